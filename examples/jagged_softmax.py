"""
Softmax over jagged segments
============================

Each column of each segment x_data[x_offsets[b]:x_offsets[b + 1], :] is
normalized with a softmax over the segment's rows. Two passes over the
segment: the running max and sum of exponentials, then the normalized rows,
stored back at the segment's own rows (the rows of neighbouring segments in
the same blocks are left as they are).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_softmax(x_data: torch.Tensor, x_offsets: torch.Tensor) -> torch.Tensor:
    """x_data: [total, m]; x_offsets: [num_segments + 1], non-decreasing."""
    num_segments = x_offsets.size(0) - 1
    m = x_data.size(1)
    out = torch.zeros_like(x_data)
    for tile_b in hl.tile(num_segments, block_size=1):
        start = x_offsets[tile_b.begin]
        end = x_offsets[tile_b.begin + 1]
        row_max = hl.full([1, m], float("-inf"), dtype=torch.float32)
        for tile_k in hl.tile(start, end):
            block = x_data[tile_k, :].to(torch.float32)
            row_max = torch.maximum(row_max, torch.amax(block, dim=0, keepdim=True))
        denom = hl.zeros([1, m], dtype=torch.float32)
        for tile_k in hl.tile(start, end):
            block = x_data[tile_k, :].to(torch.float32)
            denom += torch.sum(torch.exp(block - row_max), dim=0, keepdim=True)
        for tile_k in hl.tile(start, end):
            block = x_data[tile_k, :].to(torch.float32)
            out[tile_k, :] = (torch.exp(block - row_max) / denom).to(out.dtype)
    return out
