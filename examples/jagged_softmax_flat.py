"""
Softmax over jagged segments, output sized from the offsets
===========================================================

Each column of segment b, x_data[x_offsets[b]:x_offsets[b + 1], :], is
normalized with a softmax over the segment's rows, written the way Helion's
jagged_softmax.py is: the output has x_offsets[-1] rows, a number read from
device memory on the host (`int(x_offsets[-1].item())`, a host sync) before
the launch, and is stored through its flat view. Rows of x_data past
the last offset are not read. Tessera's host function reads the number
eagerly and launches a jitted function that takes it as a static argument
(backends/pallas_common/host_reads.h).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_softmax_flat(x_data: torch.Tensor, x_offsets: torch.Tensor) -> torch.Tensor:
    """x_data: [total, m]; x_offsets: [rows + 1], non-decreasing, at most total."""
    n = int(x_offsets[-1].item())
    num_rows, m = x_offsets.size(0) - 1, x_data.size(1)
    out = torch.zeros([n, m], dtype=x_data.dtype, device=x_data.device)
    x_flat = x_data.view(-1)
    out_flat = out.view(-1)
    for tile_b in hl.tile(num_rows):
        starts = x_offsets[tile_b]
        lengths = x_offsets[tile_b.index + 1] - starts
        for tile_m in hl.tile(m):
            row_max = hl.full([tile_b, tile_m], float("-inf"), dtype=torch.float32)
            denom = hl.zeros([tile_b, tile_m], dtype=torch.float32)
            for tile_k in hl.jagged_tile(lengths):
                rows = starts[:, None] + tile_k.index[None, :]
                flat = rows[:, :, None] * m + tile_m.index[None, None, :]
                block = hl.load(x_flat, [flat]).to(torch.float32)
                new_max = torch.maximum(row_max, block.amax(dim=1))
                denom = denom * torch.exp(row_max - new_max) + torch.exp(
                    block - new_max[:, None, :]
                ).sum(dim=1)
                row_max = new_max
            for tile_k in hl.jagged_tile(lengths):
                rows = starts[:, None] + tile_k.index[None, :]
                flat = rows[:, :, None] * m + tile_m.index[None, None, :]
                block = hl.load(x_flat, [flat]).to(torch.float32)
                value = torch.exp(block - row_max[:, None, :]) / denom[:, None, :]
                hl.store(out_flat, [flat], value.to(out.dtype))
    return out
