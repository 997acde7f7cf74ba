"""
Jagged sums by row gathers
==========================

Row b of the output sums x_data[x_offsets[b] : x_offsets[b] + x_lengths[b]]
for a block of segments at once: step k gathers row offsets[b] + k of every
segment of the block (a row gather by an index vector) and masks the
segments shorter than k + 1 with hl.load's extra_mask. Empty segments sum
to 0. `max_length` bounds the longest segment.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_gather_sum(x_data: torch.Tensor, x_offsets: torch.Tensor,
                      x_lengths: torch.Tensor, max_length: int = 8) -> torch.Tensor:
    """x_data: [total, m]; x_offsets, x_lengths: [segments]."""
    num_segments = x_lengths.size(0)
    m = x_data.size(1)
    out = torch.empty([num_segments, m], dtype=x_data.dtype, device=x_data.device)
    for tile_b, tile_m in hl.tile([num_segments, m]):
        lengths = x_lengths[tile_b]
        acc = hl.zeros([tile_b, tile_m], dtype=torch.float32)
        for k in range(max_length):
            rows = x_offsets[tile_b] + k
            part = hl.load(x_data, [rows, tile_m], extra_mask=lengths[:, None] > k)
            acc = acc + part
        out[tile_b, tile_m] = acc.to(out.dtype)
    return out
