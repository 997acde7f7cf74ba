"""
Embedding lookup
================

out[i, :] = table[indices[i], :]: each grid step reads its index from SMEM
(scalar prefetch) and copies that row of the table.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def embedding(indices: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """indices: [n] integers in [0, vocab); table: [vocab, d]."""
    n = indices.size(0)
    d = table.size(1)
    out = torch.empty([n, d], dtype=table.dtype, device=table.device)
    for tile_i in hl.tile(n, block_size=1):
        row = indices[tile_i.begin]
        out[tile_i, :] = table[row, :][None, :]
    return out
