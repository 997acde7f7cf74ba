"""
Layer norm over jagged segments, written through the flattened output
=====================================================================

Segment b (rows x_offsets[b]:x_offsets[b + 1] of x_data) is normalised by
the mean and variance of all its elements. Three passes over the segment's
rows, each an hl.jagged_tile under a loop over feature blocks; the last
stores through the flattened output at the same element indices it loads
(Tessera writes the block out[start + k, lanes], masked to the segment).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_rows_layer_norm(x_data: torch.Tensor, x_offsets: torch.Tensor,
                           eps: float = 1e-5) -> torch.Tensor:
    """x_data: [total, m]; x_offsets: [segments + 1], non-decreasing."""
    total, m = x_data.shape
    segments = x_offsets.size(0) - 1
    out = torch.zeros_like(x_data)
    x_flat = x_data.view(-1)
    out_flat = out.view(-1)
    for tile_b in hl.tile(segments):
        starts = x_offsets[tile_b]
        lengths = x_offsets[tile_b.index + 1] - starts
        count = lengths.to(torch.float32) * m
        total_sum = hl.zeros([tile_b], dtype=torch.float32)
        for tile_m in hl.tile(m):
            for tile_k in hl.jagged_tile(lengths):
                flat = (starts[:, None] + tile_k.index[None, :])[:, :, None] * m
                flat = flat + tile_m.index[None, None, :]
                total_sum = total_sum + hl.load(x_flat, [flat]).sum(dim=[1, 2])
        mean = total_sum / torch.maximum(count, torch.ones_like(count))
        squares = hl.zeros([tile_b], dtype=torch.float32)
        for tile_m in hl.tile(m):
            for tile_k in hl.jagged_tile(lengths):
                flat = (starts[:, None] + tile_k.index[None, :])[:, :, None] * m
                flat = flat + tile_m.index[None, None, :]
                centered = hl.load(x_flat, [flat]) - mean[:, None, None]
                squares = squares + (centered * centered).sum(dim=[1, 2])
        rstd = torch.rsqrt(squares / torch.maximum(count, torch.ones_like(count)) + eps)
        for tile_m in hl.tile(m):
            for tile_k in hl.jagged_tile(lengths):
                flat = (starts[:, None] + tile_k.index[None, :])[:, :, None] * m
                flat = flat + tile_m.index[None, None, :]
                x = hl.load(x_flat, [flat])
                hl.store(out_flat, [flat], (x - mean[:, None, None]) * rstd[:, None, None])
    return out
