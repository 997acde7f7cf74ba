"""
Split-K matmul with a tunable split and an optional bias
========================================================

out = x @ y (+ bias). The number of K splits is an autotuner tunable,
`hl.register_tunable("split_k", PowerOfTwoFragment(1, 8, 2))`: Tessera
compiles the fragment's default (2) unless `--arg split_k=4` picks another
legal value. The K block is derived from it the way Helion does,
`helion.next_power_of_2(helion.cdiv(k, split_k))`: with symbolic k that is a
size known only at call time, so Tessera chooses the block (config or
default), which does not change the result. `bias` is `Tensor | None`:
compiled for None unless `--arg bias=f32[n]` is given.
"""

from __future__ import annotations

import torch

import helion
from helion.autotuner import PowerOfTwoFragment
import helion.language as hl


@helion.kernel()
def tunable_split_k(
    x: torch.Tensor, y: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """Returns x @ y in float32, plus bias[None, :] when given."""
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.zeros([m, n], dtype=torch.float32, device=x.device)
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(1, 8, 2))
    k_block = helion.next_power_of_2(helion.cdiv(k, split_k))
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_block]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        if bias is not None:
            if outer_k.begin == 0:
                acc = acc + bias[tile_n][None, :]
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out
