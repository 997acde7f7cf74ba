"""
Jagged rows times a dense matrix per segment
============================================

Rows x_offsets[b]:x_offsets[b + 1] of `jagged` are multiplied by dense[b]
and biased by bias[b]. The segment's rows are an hl.jagged_tile; they are
read and written through flattened views at (start + k) * width + lane, as
Helion's jagged_dense_bmm does. Tessera reads and writes the blocks
jagged[start + k, tile_d] and out[start + k, tile_n] (masked to the segment)
and runs the matmul on them.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def jagged_rows_bmm(x_offsets: torch.Tensor, jagged: torch.Tensor,
                    dense: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """x_offsets: [b + 1]; jagged: [total, d]; dense: [b, d, n]; bias: [b, n]."""
    total, d = jagged.shape
    b, d, n = dense.shape
    jagged_flat = jagged.view(-1)
    out = torch.empty([total, n], dtype=jagged.dtype, device=jagged.device).view(-1)
    for tile_b in hl.tile(b):
        starts = x_offsets[tile_b]
        lengths = x_offsets[tile_b.index + 1] - starts
        for tile_k in hl.jagged_tile(lengths):
            rows = starts[:, None] + tile_k.index[None, :]
            for tile_n in hl.tile(n):
                acc = hl.zeros([tile_b, tile_k, tile_n], dtype=torch.float32)
                for tile_d in hl.tile(d):
                    x = hl.load(jagged_flat, [rows[:, :, None] * d + tile_d.index[None, None, :]])
                    acc = acc + torch.matmul(x, dense[tile_b, tile_d, tile_n])
                acc = acc + bias[tile_b, tile_n].unsqueeze(1)
                hl.store(out, [rows[:, :, None] * n + tile_n.index[None, None, :]],
                         acc.to(out.dtype))
    return out.reshape(total, n)
