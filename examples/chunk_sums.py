"""
Per-chunk row sums with a specialized chunk size
================================================

out[c, i] = sum(x[i, c * chunk : (c + 1) * chunk]). `chunk` is an int
argument passed to `hl.specialize`, so the kernel is compiled for one value
of it: `--arg chunk=64`, else the default block size (128). It is the block
size of the inner hl.tile loop and also sizes the output, and `t.id` (the
chunk's position) indexes the store. The host function rejects a call with
another chunk.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def chunk_sums(x: torch.Tensor, chunk: int) -> torch.Tensor:
    """Returns the sums of each row's consecutive chunks, chunk-major."""
    m, n = x.size()
    chunk = hl.specialize(chunk)
    nchunks = (n + chunk - 1) // chunk
    out = torch.zeros([nchunks, m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        for t in hl.tile(n, block_size=chunk):
            out[t.id, tile_m] = torch.sum(x[tile_m, t].to(torch.float32), dim=-1)
    return out
