"""
Dropout with counter-based random numbers
=========================================

out[i, j] = x[i, j] / (1 - p) where hl.rand's value for (i, j) exceeds p,
else 0. `hl.rand([tile_m, tile_n], seed=seed)` gives each element a uniform
number in [0, 1) that depends only on the seed and the element's global
position, so the mask is the same for every block size and launcher, and a
backward kernel drawing with the same seed drops the same elements.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def dropout(x: torch.Tensor, p: float = 0.25, seed: int = 1234) -> torch.Tensor:
    """Returns x scaled by 1 / (1 - p) where kept, 0 where dropped."""
    m, n = x.size()
    out = torch.empty_like(x)
    scale = 1.0 / (1.0 - p)
    for tile_m, tile_n in hl.tile([m, n]):
        r = hl.rand([tile_m, tile_n], seed=seed)
        out[tile_m, tile_n] = torch.where(r > p, x[tile_m, tile_n] * scale, 0.0)
    return out
