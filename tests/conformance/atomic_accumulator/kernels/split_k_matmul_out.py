"""
Split-K matrix multiplication whose output has the inputs' dtype
================================================================

As examples/split_k_matmul.py, but the output is allocated with x's dtype, so
bf16 inputs give a bf16 atomic target (accumulated in f32 by the
atomic-accumulator pass and rounded once, on the last k chunk).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def split_k_matmul_out(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.zeros([m, n], dtype=x.dtype, device=x.device)
    k_chunk = hl.register_block_size(k)
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_chunk]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out
