"""
Column sums of a row-wise log-softmax, in two stages
====================================================

out[j] = sum_i log_softmax(x[i, :])[j]. Each program reduces one block of
rows into its own row of `partial` (indexed by `tile.id`, allocated with
`x.new_zeros` whose shape is size arithmetic and a starred `x.shape[1:]`);
host code after the kernel sums the partial rows (`partial.sum(0)`).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def block_col_sums(x: torch.Tensor) -> torch.Tensor:
    """Returns torch.log_softmax(x, dim=-1).sum(0) for a 2-D x."""
    m = x.size(0)
    m_block = hl.register_block_size(m)
    partial = x.new_zeros(
        [(m + m_block - 1) // m_block, *x.shape[1:]], dtype=torch.float32
    )
    for tile in hl.tile(m, block_size=m_block):
        rows = torch.log_softmax(x[tile, :].to(torch.float32), dim=-1)
        partial[tile.id, :] = rows.sum(0)
    return partial.sum(0).to(x.dtype)
