"""
Lagged difference along a sequence
==================================

out[t, h, :] = x[t + lead, h, :] - x[t - lag, h, :], with steps outside
[0, seq) reading 0. The sequence is the leading dim; `tile_t + lead` (tile
arithmetic, as `tile.index + lead`) and `tile_t.index - lag` are shifted
tile indices that are not multiples of the block, on a ragged last tile.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def lagged_diff(x: torch.Tensor, lead: int = 3, lag: int = 5) -> torch.Tensor:
    """x: [seq, heads, d]."""
    seq, heads, d = x.size()
    out = torch.empty_like(x)
    for tile_t, tile_h in hl.tile([seq, heads], block_size=[32, 1]):
        ahead = x[tile_t + lead, tile_h.begin, :]
        behind = x[tile_t.index - lag, tile_h.begin, :]
        out[tile_t, tile_h.begin, :] = ahead - behind
    return out
