"""
A gradient over every step but the last, then the last step set on the host
===========================================================================

grad[i, j, :] = softmax(logits[i, j, :]) * scale[i, j] for j < steps - 1 and
grad[i, -1, :] = 0.25: the shape of Helion's grpo_loss backward, which reads
`logits[:, :-1, :]` (a host slice) and sets `grad_logits[:, -1, :] = 0` after
its loops. Tessera applies that host store to the kernel's result
(`grad.at[:, steps - 1, :].set(...)`).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def shifted_grad(logits: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """logits: [batch, steps, vocab]; scale: [batch, steps - 1]."""
    batch, steps, vocab = logits.shape
    head = logits[:, :-1, :]
    grad = torch.zeros_like(logits)
    for tile_b, tile_t in hl.tile([batch, steps - 1]):
        x = head[tile_b, tile_t, :].to(torch.float32)
        row_max = torch.amax(x, dim=-1)
        p = torch.exp(x - row_max[:, :, None])
        p = p / torch.sum(p, dim=-1)[:, :, None]
        grad[tile_b, tile_t, :] = (
            p * scale[tile_b, tile_t].to(torch.float32)[:, :, None])
    grad[:, -1, :] = 0.25
    return grad
