"""
Label-smoothed negative log-likelihood through a flat view
==========================================================

out[i] = -weights[i] * ((1 - eps) * log_probs[i, targets[i]]
                        + eps / classes * sum_j log_probs[i, j]),
with the target's log-probability read through `log_probs.reshape(-1)` at
`targets + tile.index * classes`, the way Helion's examples index a
flattened tensor. Tessera recognises the flat index as one element per row
(row * row length + lane) and reads it as `log_probs[tile.index, targets]`:
the row block whole along the classes (the one the smoothing sum reads),
the target's lane selected by a compare (docs/tpu_legality.md). Compare
examples/cross_entropy_rows.py, which writes the 2-D form directly.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def label_nll(log_probs: torch.Tensor, targets: torch.Tensor,
              weights: torch.Tensor, eps: float = 0.1) -> torch.Tensor:
    """log_probs: [n, classes]; targets: [n] integers in [0, classes);
    weights: [n]."""
    n, classes = log_probs.size()
    flat = log_probs.reshape(-1)
    out = torch.empty([n], dtype=torch.float32, device=log_probs.device)
    for tile_n in hl.tile(n):
        at = targets[tile_n] + tile_n.index * classes
        picked = hl.load(flat, [at]).to(torch.float32)
        row_sum = torch.sum(log_probs[tile_n, :].to(torch.float32), dim=1)
        smoothed = (1.0 - eps) * picked + (eps / classes) * row_sum
        out[tile_n] = -weights[tile_n].to(torch.float32) * smoothed
    return out
