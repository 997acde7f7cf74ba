"""
Jagged means with per-row feature counts
========================================

Row b of the output is the mean of x_data[x_offsets[b]:x_offsets[b + 1], f]
for the first x_feature_counts[b] features f, and 0 past them and for empty
rows. Two nested hl.jagged_tile loops: the features of a row (lengths read
directly) and its rows (`ends - starts`), the rows read through the
flattened data as in Helion's jagged_mean.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_rows_mean(x_data: torch.Tensor, x_offsets: torch.Tensor,
                     x_feature_counts: torch.Tensor) -> torch.Tensor:
    """x_data: [total, m]; x_offsets: [rows + 1]; x_feature_counts: [rows]."""
    m = x_data.size(1)
    num_rows = x_offsets.size(0) - 1
    out = torch.zeros([num_rows, m], dtype=x_data.dtype, device=x_data.device)
    x_flat = x_data.view(-1)
    for tile_b in hl.tile(num_rows):
        starts = x_offsets[tile_b]
        ends = x_offsets[tile_b.index + 1]
        counts = ends - starts
        features = x_feature_counts[tile_b]
        for tile_f in hl.jagged_tile(features):
            acc = hl.zeros([tile_b, tile_f], dtype=torch.float32)
            for tile_k in hl.jagged_tile(counts):
                flat = (starts[:, None] + tile_k.index[None, :])[:, :, None] * m
                flat = flat + tile_f.index[None, None, :]
                acc = acc + hl.load(x_flat, [flat]).sum(dim=1)
            denominator = counts.to(torch.float32)[:, None]
            mean = torch.where(denominator > 0, acc / denominator, 0.0)
            out[tile_b, tile_f] = mean.to(out.dtype)
    return out
