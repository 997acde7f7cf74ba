"""
Matmul rows written back to positions taken from an index tensor
================================================================

out[dest[i], :] = (x @ w)[i, :]: the scatter store of Helion's
moe_matmul_ogs (`C[expert_orig_token_indices, tile_n] = ...`), where each
row of a block goes back to its token's original position. Tessera keeps
the output's row dim whole in VMEM and writes the block's rows one at a
time at the positions read from SMEM (docs/tpu_legality.md, "Scatters").
Helion assumes distinct indices (a permutation here); with repeats the first
row of the block wins.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def scatter_rows(x: torch.Tensor, w: torch.Tensor,
                 dest: torch.Tensor) -> torch.Tensor:
    """x: [n, k]; w: [k, d]; dest: [n] distinct row indices in [0, n)."""
    n, k = x.size()
    d = w.size(1)
    out = torch.zeros([n, d], dtype=x.dtype, device=x.device)
    for tile_n, tile_d in hl.tile([n, d]):
        acc = hl.zeros([tile_n, tile_d], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_n, tile_k], w[tile_k, tile_d])
        rows = dest[tile_n]
        out[rows, tile_d] = acc.to(out.dtype)
    return out
