"""
Sum of shifted neighbours in a matrix
=====================================

out[i, j] = x[i + 1, j] + x[i, j - 3], with elements outside x reading 0.
Both shifts are on the TPU's minor dims, which Mosaic slices only at
aligned offsets: each load reads an aligned window one alignment wider than
the block and rotates the shifted tile's first element into place.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def neighbor_sum(x: torch.Tensor) -> torch.Tensor:
    """x: [m, n]."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        below = x[tile_m.index + 1, tile_n]
        left = x[tile_m, tile_n.index - 3]
        out[tile_m, tile_n] = below + left
    return out
