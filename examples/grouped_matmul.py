"""
Grouped matmul over groups of rows of any size (grouped GEMM)
=============================================================

The shape of Helion's grouped_gemm (its persistent kernel): the groups'
rows lie back to back in `x`, `offsets[g]` .. `offsets[g + 1]` are group
g's, and every group multiplies its rows by the shared `w`. One grid step
per group reads its bounds from SMEM; an inner `hl.grid` over the group's
(row block, column block) cells runs a number of steps read from memory
(a fori_loop), and each cell addresses its rows as `first + hl.arange(bm)`:
a window at a scalar offset, masked past the group's end so that a ragged
last block neither reads nor writes the next group's rows.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def grouped_matmul(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor,
                   block_m: hl.constexpr = 16,
                   block_n: hl.constexpr = 128) -> torch.Tensor:
    """x: [rows, k] the groups' rows; w: [k, n] shared by every group;
    offsets: [groups + 1] where each group starts and the last one ends
    (rows of no group are 0 in the result)."""
    rows, k = x.shape
    _, n = w.shape
    groups = offsets.size(0) - 1
    out = torch.zeros([rows, n], dtype=x.dtype, device=x.device)
    for g in hl.grid(groups):
        first = offsets[g]
        last = offsets[g + 1]
        count = last - first
        if count > 0:
            row_blocks = (count + block_m - 1) // block_m
            col_blocks = (n + block_n - 1) // block_n
            for cell in hl.grid(row_blocks * col_blocks):
                row_block = cell // col_blocks
                # (not `cell % col_blocks`: JAX 0.10.2's Triton lowering of
                # an integer remainder in a fori_loop fails, i32 vs i1)
                col_block = cell - row_block * col_blocks
                r = first + row_block * block_m + hl.arange(block_m)
                c = col_block * block_n + hl.arange(block_n)
                in_group = r < last
                acc = hl.zeros([block_m, block_n], dtype=torch.float32)
                for tile_k in hl.tile(k):
                    a = hl.load(x, [r, tile_k], extra_mask=in_group[:, None])
                    acc = torch.addmm(acc, a, hl.load(w, [tile_k, c]))
                hl.store(out, [r, c], acc.to(out.dtype),
                         extra_mask=in_group[:, None] & (c < n)[None, :])
    return out
