"""
Branches on values read at run time
===================================

Each row reads its mode from `modes` (a scalar read from memory) and is
doubled or shifted by it; a row whose sum then comes out negative is
negated (a condition from a reduction of the block). Both `if`s merge
values, so each becomes a `jax.lax.cond` whose branches are functions.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def conditional_rescale(x: torch.Tensor, modes: torch.Tensor) -> torch.Tensor:
    """x: [rows, n]; modes: [rows] integers (> 0: double, else subtract 1)."""
    out = torch.empty_like(x)
    for tile_r in hl.tile(x.size(0), block_size=1):
        values = x[tile_r, :].to(torch.float32)
        if modes[tile_r.begin] > 0:
            values = values * 2.0
        else:
            values = values - 1.0
        if values.sum() < 0:
            values = -values
        out[tile_r, :] = values.to(out.dtype)
    return out
