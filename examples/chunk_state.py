"""
Per-chunk states of a chunked linear recurrence (the Mamba2 chunk-state shape)
===============================================================================

The sequence is cut into chunks of `chunk_size` steps. For chunk c, head h
and group g = h // (nheads // ngroups):

    states[b, c, h, p, n] = sum over steps l of chunk c (t = c * chunk_size + l
        below seqlen) of exp(decay[b, h, c, -1] - decay[b, h, c, l])
        * dt[b, h, c, l] * x[b, t, h, p] * B[b, t, g, n]

x and B are indexed along the sequence by the step tile shifted to the
chunk's start, `c_start + tile_l.index`: an affine (shifted) tile index on a
leading dim. The last chunk may run past seqlen: those lanes read 0.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def chunk_state(
    B: torch.Tensor, x: torch.Tensor, dt: torch.Tensor, decay: torch.Tensor
) -> torch.Tensor:
    """B: [batch, seqlen, ngroups, dstate]; x: [batch, seqlen, nheads,
    headdim]; dt, decay: [batch, nheads, nchunks, chunk_size]. Returns
    [batch, nchunks, nheads, headdim, dstate]."""
    batch, seqlen, ngroups, dstate = B.shape
    _, _, nheads, headdim = x.shape
    _, _, nchunks, chunk_size = dt.shape
    heads_per_group = nheads // ngroups
    states = torch.empty(
        [batch, nchunks, nheads, headdim, dstate], dtype=x.dtype, device=x.device
    )
    for tile_b, tile_c, tile_h, tile_p, tile_n in hl.tile(
        [batch, nchunks, nheads, headdim, dstate], block_size=[1, 1, 1, None, None]
    ):
        c_start = tile_c.begin * chunk_size
        group = tile_h.begin // heads_per_group
        last = decay[tile_b.begin, tile_h.begin, tile_c.begin, chunk_size - 1]
        last = last.to(torch.float32)
        acc = hl.zeros([tile_p, tile_n], dtype=torch.float32)
        for tile_l in hl.tile(chunk_size):
            steps = decay[tile_b.begin, tile_h.begin, tile_c.begin, tile_l]
            weight = torch.exp(last - steps.to(torch.float32))
            weight = weight * dt[tile_b.begin, tile_h.begin, tile_c.begin, tile_l].to(
                torch.float32
            )
            x_chunk = x[tile_b.begin, c_start + tile_l.index, tile_h.begin, tile_p]
            b_chunk = B[tile_b.begin, tile_l.index + c_start, group, tile_n]
            weighted = (x_chunk.to(torch.float32) * weight[:, None]).T
            acc = hl.dot(weighted, b_chunk.to(torch.float32), acc=acc)
        states[tile_b.begin, tile_c.begin, tile_h.begin, tile_p, tile_n] = acc.to(
            states.dtype
        )
    return states
