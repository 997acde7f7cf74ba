"""
Batched matmul over an hl.grid
==============================

out[i] = x[i] @ y[i]. The kernel's top-level loop is `hl.grid(b)`: its
target is a scalar index (a grid dim of block 1), and the rows and the
contraction are tile loops nested inside it, two levels deep, as in
Helion's fp8_attention example.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def grid_bmm(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Returns x @ y in float32 for x [b, m, k] and y [b, k, n]."""
    b, m, k = x.size()
    _, _, n = y.size()
    out = torch.empty([b, m, n], dtype=torch.float32, device=x.device)
    for i in hl.grid(b):
        for tile_m in hl.tile(m):
            acc = hl.zeros([tile_m, n], dtype=torch.float32)
            for tile_k in hl.tile(k):
                acc = hl.dot(x[i, tile_m, tile_k], y[i, tile_k, :], acc=acc)
            out[i, tile_m, :] = acc
    return out
