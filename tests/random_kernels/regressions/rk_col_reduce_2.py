"""Random kernel: family col_reduce, seed 2 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def rk_col_reduce_2(x: torch.Tensor):
    m, n = x.size()
    out = torch.empty([n], dtype=x.dtype, device=x.device)
    for tile_n in hl.tile(n, block_size=128):
        x_v = x[:, tile_n]
        v = x_v
        out[tile_n] = torch.mean(v, dim=0)
    return out
