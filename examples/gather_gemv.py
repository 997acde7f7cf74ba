"""
Gather-GEMV
===========

out[i * s + r, :] = w[idx[i], r, :] @ x: the rows of each selected matrix are
gathered by an index computed per output row (idx[row // s] * s + row % s)
and multiplied by x, block by block along k. On the TPU a gather is one
dynamic-slice load per row from the weights kept whole in VMEM; the index
tensor is read element by element from SMEM.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def gather_gemv(w: torch.Tensor, idx: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """w: [b, s, s]; idx: [n] integers in [0, b); x: [s, m]. Returns [n * s, m]."""
    b, s, s2 = w.size()
    n = idx.size(0)
    m = x.size(1)
    w_rows = w.view(b * s, s)
    out = torch.empty([n * s, m], dtype=w.dtype, device=w.device)
    for tile_r, tile_m in hl.tile([n * s, m]):
        rows = idx[tile_r.index // s] * s + tile_r.index % s
        acc = hl.zeros([tile_r, tile_m], dtype=torch.float32)
        for tile_k in hl.tile(s):
            acc = acc + hl.dot(hl.load(w_rows, [rows, tile_k]), x[tile_k, tile_m])
        out[tile_r, tile_m] = acc.to(out.dtype)
    return out
