"""
Masked splice
=============

A concatenation-like kernel written with hl.load / hl.store masks: columns
below `split` come from x, the others from y, and only rows below `rows`
are written (the rest keep the -1 the output starts with). Both extents are
runtime values, so the masks cut through blocks, and the ragged last blocks
are masked as well.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def masked_splice(x: torch.Tensor, y: torch.Tensor, split: int = 130,
                  rows: int = 150) -> torch.Tensor:
    """x, y: [m, n]. out[:rows, :split] = x, out[:rows, split:] = y, -1 below."""
    m, n = x.size()
    out = torch.full([m, n], -1.0, dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        left = (tile_n.index < split)[None, :]
        from_x = hl.load(x, [tile_m, tile_n], extra_mask=left)
        from_y = hl.load(y, [tile_m, tile_n], extra_mask=(tile_n.index >= split)[None, :])
        hl.store(out, [tile_m, tile_n], from_x + from_y,
                 extra_mask=tile_m.index[:, None] < rows)
    return out
