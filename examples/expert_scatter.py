"""
Per-expert matmuls whose rows go back to their tokens (the MoE pattern)
======================================================================

The shape of Helion's moe_matmul_ogs: one grid step per expert reads its
token range from SMEM (`offsets[g]`, `counts[g]`), tiles up to `max_rows`
rows with hl.tile([max_rows, n]) (nested inner loops), gathers the tokens'
rows of `a` through `order`, and scatters the result back to the tokens'
positions with a store at an index tensor over an inner tile of lanes
(`out[rows, tile_n] = ...`). Rows past the expert's count point at its first
token and store what it held, as in Helion: Tessera writes a block's rows
last to first, so that the first row wins (docs/tpu_legality.md,
"Scatters").
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def expert_scatter(a: torch.Tensor, w: torch.Tensor, counts: torch.Tensor,
                   offsets: torch.Tensor, order: torch.Tensor,
                   max_rows: hl.constexpr = 128) -> torch.Tensor:
    """a: [t, k] tokens; w: [e, k, n] expert weights; counts: [e] tokens per
    expert (at most max_rows); offsets: [e + 1] their starts in `order`;
    order: [t] the token at each sorted position (a permutation)."""
    t, k = a.shape
    e, _, n = w.shape
    out = torch.zeros([t, n], dtype=torch.float32, device=a.device)
    for g in hl.grid(e):
        start = offsets[g]
        count = counts[g]
        if count != 0:
            for tile_t, tile_n in hl.tile([max_rows, n]):
                local = tile_t.index
                valid = local < count
                rows = order[start + torch.where(valid, local, 0)]
                acc = hl.zeros([tile_t, tile_n], dtype=torch.float32)
                for tile_k in hl.tile(k):
                    acc = torch.addmm(acc, a[rows, tile_k], w[g, tile_k, tile_n])
                kept = out[rows, tile_n]
                out[rows, tile_n] = torch.where(valid[:, None], acc, kept)
    return out
