"""
Segment sums by atomics at rows taken from an index tensor
==========================================================

out[s, :] = sum of data[i, :] over the rows i with segment_ids[i] == s: the
`hl.atomic_add(output, [idxs, tile_f], vals)` of Helion's
segment_reduction, without its associative scan (each row is added into its
segment directly). The atomic-accumulator pass keeps the whole [segments,
block] accumulator in VMEM for the grid; the backend adds the block's rows
one at a time at the segments read from SMEM, so repeated segment ids add
up exactly (docs/tpu_legality.md, "Scatters").
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def segment_sum(data: torch.Tensor, segment_ids: torch.Tensor,
                num_segments: hl.constexpr = 48) -> torch.Tensor:
    """data: [n, f]; segment_ids: [n] integers in [0, num_segments)."""
    n, f = data.size()
    out = torch.zeros([num_segments, f], dtype=torch.float32,
                      device=data.device)
    for tile_n, tile_f in hl.tile([n, f]):
        idxs = segment_ids[tile_n]
        vals = data[tile_n, tile_f].to(torch.float32)
        hl.atomic_add(out, [idxs, tile_f], vals)
    return out
