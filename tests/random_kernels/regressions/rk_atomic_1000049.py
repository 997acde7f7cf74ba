"""Random kernel: family atomic, seed 1000049 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rk_atomic_1000049(x: torch.Tensor, y: torch.Tensor):
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.zeros([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[16, 128, 256]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out
