"""
Adding a jagged prefix to dense rows
====================================

Row b of the jagged tensor holds x_offsets[b + 1] - x_offsets[b] values,
packed one row after another in the 1-D x_data; they are added to the first
columns of row b of the dense y, whose other columns are copied. As in
Helion's jagged_dense_add, the row is split at the largest length of the
rows tile (`lengths.amax()`): the first loop reads x_data at
`starts + column`, masking each row's tail with extra_mask; the second
copies the columns past it.

Tessera runs one row per grid step (its offsets are SMEM scalars), so the
max is the row's own length, and the read is a block of x_data at a lane
offset known only at run time: on the TPU an aligned window of one more
lane tile, rotated into place (docs/tpu_legality.md, "Lane offsets read
from memory").
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_dense_add(x_data: torch.Tensor, x_offsets: torch.Tensor,
                     y: torch.Tensor) -> torch.Tensor:
    """x_data: [total]; x_offsets: [rows + 1], non-decreasing; y: [rows, n]
    with n at least the longest row."""
    rows, n = y.shape
    out = torch.empty_like(y)
    for tile_b in hl.tile(rows):
        starts = x_offsets[tile_b]
        lengths = x_offsets[tile_b.index + 1] - starts
        longest = lengths.amax()
        for tile_n in hl.tile(0, longest):
            columns = tile_n.index[None, :]
            values = hl.load(x_data, [starts[:, None] + columns],
                             extra_mask=columns < lengths[:, None])
            out[tile_b, tile_n] = y[tile_b, tile_n] + values
        for tile_n in hl.tile(longest, n):
            out[tile_b, tile_n] = y[tile_b, tile_n]
    return out
