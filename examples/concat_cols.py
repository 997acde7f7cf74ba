"""
Concatenation along the last dim
================================

out = concatenate([x, y], dim=1) with one tile loop over the output's
columns: `x[tile_m, tile_n.index + 0]` and `y[tile_m, tile_n.index - nx]`
are shifted tile loads whose lanes outside x or y read 0, and `torch.where`
picks the half each column belongs to. The shifts are on the lane dim: the
TPU reads 128-lane-aligned windows and rotates them into place.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def concat_cols(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x: [m, nx], y: [m, ny]. Returns [m, nx + ny]."""
    m, nx = x.size()
    ny = y.size(1)
    out = torch.empty([m, nx + ny], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, nx + ny]):
        from_x = x[tile_m, tile_n.index + 0]
        from_y = y[tile_m, tile_n.index - nx]
        out[tile_m, tile_n] = torch.where((tile_n.index < nx)[None, :], from_x, from_y)
    return out
