"""Random kernel: family row_reduce, seed 9 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rk_row_reduce_9(x: torch.Tensor):
    m, n = x.size()
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        x_v = x[tile_m, :]
        v = x_v
        red = torch.amax(v, dim=-1)
        out[tile_m] = red
    return out
