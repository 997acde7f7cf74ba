"""
Cross-entropy loss per row
==========================

loss[i] = logsumexp(logits[i, :]) - logits[i, labels[i]], in float32.
The logit at the label is one element per row at a lane taken from data
(`hl.load(logits, [tile_n.index, labels[tile_n]])`: the two index vectors
zip, row i reads lane labels[i]). The TPU gathers lanes only within one
vreg, so Tessera reads the row block whole along the vocabulary and
selects the label's lane with a compare (docs/tpu_legality.md); the block
is the one the logsumexp reads anyway.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def cross_entropy_rows(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """logits: [n, vocab]; labels: [n] integers in [0, vocab)."""
    n, vocab = logits.size()
    losses = torch.empty([n], dtype=torch.float32, device=logits.device)
    for tile_n in hl.tile(n):
        rows = logits[tile_n, :].to(torch.float32)
        row_max = torch.amax(rows, dim=1)
        total = torch.sum(torch.exp(rows - row_max[:, None]), dim=1)
        picked = hl.load(logits, [tile_n.index, labels[tile_n]])
        losses[tile_n] = row_max + torch.log(total) - picked.to(torch.float32)
    return losses
