"""Random kernel: family atomic, seed 200025 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def rk_atomic_200025(x: torch.Tensor):
    m, n = x.size()
    total = torch.zeros([m], dtype=torch.float32, device=x.device)
    hi = torch.full([m], float("-inf"), dtype=torch.float32, device=x.device)
    lo = torch.full([m], float("inf"), dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n], block_size=[None, 128]):
        x_v = x[tile_m, tile_n]
        v = torch.log2((torch.abs(x_v) + 1.0))
        hl.atomic_add(total, [tile_m], v.sum(-1))
        hl.atomic_max(hi, [tile_m], torch.amax(v, dim=-1))
        hl.atomic_min(lo, [tile_m], v.amin(-1))
    return total, hi, lo
