"""Random kernel: family row_reduce, seed 66 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rk_row_reduce_66(x: torch.Tensor):
    b, m, n = x.size()
    out = torch.empty([b, m], dtype=x.dtype, device=x.device)
    for tile_b, tile_m in hl.tile([b, m], block_size=[1, None]):
        x_v = x[tile_b, tile_m, :]
        v = torch.sqrt((torch.abs((x_v + -1.5)) + 1.0))
        red = torch.amax(v, dim=-1)
        out[tile_b, tile_m] = red
    return out
