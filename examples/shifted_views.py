"""
Log-sum-exp of every step but the last, through host-side slices
================================================================

out[i, j] = logsumexp(logits[i, j, :]) + mean(logits[i, j + 1, :] - logits[i, j, :])
for j < steps - 1: the host body slices the argument (`logits[:, :-1, :]`,
`logits[:, 1:, :]`), as Helion's grpo_loss does, and the kernel indexes the
two views like arguments. Tessera makes each view a host `slice_view` that
the generated host function takes as an array slice before the pallas_call.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def shifted_views(logits: torch.Tensor) -> torch.Tensor:
    """logits: [batch, steps, vocab]; returns [batch, steps - 1] in f32."""
    batch, steps, vocab = logits.shape
    prev = logits[:, :-1, :]
    nxt = logits[:, 1:, :]
    out = torch.empty([batch, steps - 1], dtype=torch.float32,
                      device=logits.device)
    for tile_b, tile_t in hl.tile([batch, steps - 1]):
        cur = prev[tile_b, tile_t, :].to(torch.float32)
        row_max = torch.amax(cur, dim=-1)
        lse = row_max + torch.log(
            torch.sum(torch.exp(cur - row_max[:, :, None]), dim=-1))
        drift = torch.mean(nxt[tile_b, tile_t, :].to(torch.float32) - cur,
                           dim=-1)
        out[tile_b, tile_t] = lse + drift
    return out
