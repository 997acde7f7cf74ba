"""
Min over the batch dim, split across the grid
=============================================

Each program reduces one batch block of one (m, n) block and combines it
into the output with hl.atomic_min.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def batch_min(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.full([m, n], float("inf"), dtype=x.dtype, device=x.device)
    for tile_b, tile_m, tile_n in hl.tile([b, m, n]):
        hl.atomic_min(out, [tile_m, tile_n], torch.amin(x[tile_b, tile_m, tile_n], dim=0))
    return out
