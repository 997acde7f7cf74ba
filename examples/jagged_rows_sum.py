"""
Jagged sums over a tile of rows
===============================

Row b of the output sums x_data[x_offsets[b]:x_offsets[b + 1], :], written
the way Helion's jagged kernels are: the lengths of a tile of rows bound an
hl.jagged_tile, and the rows are read through the flattened data with
element indices (start + k) * m + lane. Tessera runs one row per grid step
(its offsets are SMEM scalars that bound the loop) and reads the block
x_data[start + k, lanes] (plugins/helion_py/lower_jagged_rows.cpp). Empty
rows sum to zero.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_rows_sum(x_data: torch.Tensor, x_offsets: torch.Tensor) -> torch.Tensor:
    """x_data: [total, m]; x_offsets: [rows + 1], non-decreasing."""
    m = x_data.size(1)
    num_rows = x_offsets.size(0) - 1
    out = torch.zeros([num_rows, m], dtype=x_data.dtype, device=x_data.device)
    x_flat = x_data.view(-1)
    for tile_b in hl.tile(num_rows):
        starts = x_offsets[tile_b]
        lengths = x_offsets[tile_b.index + 1] - starts
        for tile_m in hl.tile(m):
            acc = hl.zeros([tile_b, tile_m], dtype=torch.float32)
            for tile_k in hl.jagged_tile(lengths):
                rows = starts[:, None] + tile_k.index[None, :]
                flat = rows[:, :, None] * m + tile_m.index[None, None, :]
                acc = acc + hl.load(x_flat, [flat]).sum(dim=1)
            out[tile_b, tile_m] = acc.to(out.dtype)
    return out
