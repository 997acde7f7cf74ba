"""
Two atomic outputs and one plain output
=======================================

Over a batch split across the grid: the sum (hl.atomic_add) and the max
(hl.atomic_max) over the batch, and a plainly stored scaled copy of x.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def sum_max_scale(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    b, m, n = x.size()
    total = torch.zeros([m, n], dtype=x.dtype, device=x.device)
    largest = torch.full([m, n], float("-inf"), dtype=x.dtype, device=x.device)
    scaled = torch.empty_like(x)
    for tile_b, tile_m, tile_n in hl.tile([b, m, n]):
        block = x[tile_b, tile_m, tile_n]
        hl.atomic_add(total, [tile_m, tile_n], torch.sum(block, dim=0))
        hl.atomic_max(largest, [tile_m, tile_n], torch.amax(block, dim=0))
        scaled[tile_b, tile_m, tile_n] = block * 2.0
    return total, largest, scaled
