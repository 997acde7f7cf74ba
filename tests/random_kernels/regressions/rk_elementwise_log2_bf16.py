"""Random kernel: family elementwise, seed 0 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rk_elementwise_log2_bf16(x: torch.Tensor):
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        x_v = x[tile_m, :]
        out[tile_m, :] = torch.log2((torch.abs(x_v) + 1.0))
    return out
