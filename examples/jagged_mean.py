"""
Means of jagged segments
========================

Like jagged_sum, divided by the segment's length; an empty segment's mean
is zero. Whether a segment is empty is decided in the kernel from the
offsets it read (a data-dependent `if`).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_mean(x_data: torch.Tensor, x_offsets: torch.Tensor) -> torch.Tensor:
    """x_data: [total, m]; x_offsets: [num_segments + 1], non-decreasing."""
    num_segments = x_offsets.size(0) - 1
    m = x_data.size(1)
    out = torch.zeros([num_segments, m], dtype=x_data.dtype, device=x_data.device)
    for tile_b in hl.tile(num_segments, block_size=1):
        start = x_offsets[tile_b.begin]
        end = x_offsets[tile_b.begin + 1]
        if end > start:
            acc = hl.zeros([1, m], dtype=torch.float32)
            for tile_k in hl.tile(start, end):
                acc += x_data[tile_k, :].to(torch.float32).sum(0, keepdim=True)
            count = (end - start).to(torch.float32)
            out[tile_b, :] = (acc / count).to(out.dtype)
    return out
