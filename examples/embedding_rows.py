"""
Embedding lookup by index vectors
=================================

out[i, :] = table[indices[i], :] with a block of rows per grid step: the
indices of a block select whole rows of the table (a row gather), read with
one dynamic-slice load per row; the indices are read from SMEM. Compare
examples/embedding.py, one row per grid step.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def embedding_rows(indices: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """indices: [n] integers in [0, vocab); table: [vocab, d]."""
    n = indices.size(0)
    d = table.size(1)
    out = torch.empty([n, d], dtype=table.dtype, device=table.device)
    for tile_b, tile_d in hl.tile([n, d]):
        out[tile_b, tile_d] = table[indices[tile_b], tile_d]
    return out
