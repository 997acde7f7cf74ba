"""
Matmul with the contraction as the grid and atomics into whole rows
===================================================================

out = x @ w, computed the way attention's backward kernel computes dq: the
grid runs over blocks of the contraction dim k, an inner hl.tile loop over
the rows m, and every grid step adds its partial product into
out[tile_m, :] with hl.atomic_add. out's row dim is indexed by the inner
tile, not by the grid, so the atomic-accumulator pass keeps all of out in
one on-chip accumulator carried across the grid; compiled without --arg its
row count is symbolic, and the host sizes the accumulator (rounded up to
whole inner tiles) when the kernel is called.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def k_grid_matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Returns x @ w in float32 for x [m, k] and w [k, d]."""
    m, k = x.size()
    _, d = w.size()
    out = torch.zeros([m, d], dtype=torch.float32, device=x.device)
    for tile_k in hl.tile(k):
        for tile_m in hl.tile(m):
            partial = hl.dot(x[tile_m, tile_k], w[tile_k, :], out_dtype=torch.float32)
            hl.atomic_add(out, [tile_m, slice(None)], partial)
    return out
