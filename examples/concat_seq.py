"""
Concatenation along a sequence
==============================

out = concatenate([x, y]) along the leading dim, in one pass: each tile of
steps stores its rows of x at `tile_t` and its rows of y at
`tile_t.index + seq`, a shifted store whose offset is the sequence length
(not a multiple of the block when seq is ragged). The lanes of the ragged
last tile are masked, so neither half overwrites the other.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def concat_seq(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x, y: [seq, heads, d]. Returns [2 * seq, heads, d]."""
    seq, heads, d = x.size()
    out = torch.empty([2 * seq, heads, d], dtype=x.dtype, device=x.device)
    for tile_t, tile_h in hl.tile([seq, heads], block_size=[32, 1]):
        out[tile_t, tile_h.begin, :] = x[tile_t, tile_h.begin, :]
        out[tile_t.index + seq, tile_h.begin, :] = y[tile_t, tile_h.begin, :]
    return out
