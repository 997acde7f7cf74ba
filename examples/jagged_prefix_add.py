"""
Adding to the jagged prefix of each row
=======================================

Row b of `y` gets `bonus[b]` added to its first x_offsets[b + 1] -
x_offsets[b] columns; the other columns are copied. Two loops split the row
at the largest length of the rows tile (`lengths.amax()`), as Helion's
jagged_dense_add does: the first masks each row's tail with hl.load's
extra_mask, the second starts where the first stopped. Tessera runs one
row per grid step, so the max is that row's length, a scalar from SMEM.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_prefix_add(y: torch.Tensor, x_offsets: torch.Tensor,
                      bonus: torch.Tensor) -> torch.Tensor:
    """y: [rows, n]; x_offsets: [rows + 1]; bonus: [rows]."""
    rows, n = y.shape
    out = torch.empty_like(y)
    for tile_b in hl.tile(rows):
        lengths = x_offsets[tile_b.index + 1] - x_offsets[tile_b]
        longest = lengths.amax()
        for tile_n in hl.tile(0, longest):
            inside = tile_n.index[None, :] < lengths[:, None]
            prefix = hl.load(y, [tile_b, tile_n], extra_mask=inside)
            out[tile_b, tile_n] = prefix + torch.where(
                inside, bonus[tile_b][:, None], y[tile_b, tile_n])
        for tile_n in hl.tile(longest, n):
            out[tile_b, tile_n] = y[tile_b, tile_n]
    return out
