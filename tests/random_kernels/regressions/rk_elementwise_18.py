"""Random kernel: family elementwise, seed 18 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rk_elementwise_18(x: torch.Tensor):
    b, m, n = x.size()
    out = torch.empty_like(x)
    for tile_b, tile_m, tile_n in hl.tile([b, m, n], block_size=[None, 16, None]):
        x_v = x[tile_b, tile_m, tile_n]
        out[tile_b, tile_m, tile_n] = ((torch.relu((torch.abs(x_v) - 3.0)) * -torch.rsqrt((torch.abs((x_v - x_v)) + 1.0)))).to(torch.float32)
    return out
