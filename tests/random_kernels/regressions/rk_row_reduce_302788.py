"""Random kernel: family row_reduce, seed 302788 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def rk_row_reduce_302788(x: torch.Tensor):
    b, m, n = x.size()
    out = torch.empty([b, m], dtype=x.dtype, device=x.device)
    for tile_b, tile_m in hl.tile([b, m]):
        x_v = x[tile_b, tile_m, :]
        v = x_v
        red = torch.amin(v, dim=-1)
        out[tile_b, tile_m] = red
    return out
