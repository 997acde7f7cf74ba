"""
Accumulating into a caller's tensor
===================================

The atomic target is an argument with the caller's (non-zero) values: the
kernel adds the batch sum of x into it and returns it.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def accumulate_into(acc: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    for tile_b, tile_m, tile_n in hl.tile([b, m, n]):
        hl.atomic_add(acc, [tile_m, tile_n], torch.sum(x[tile_b, tile_m, tile_n], dim=0))
    return acc
