"""Random kernel: family matmul, seed 5 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rk_matmul_5(x: torch.Tensor, y: torch.Tensor, bias: torch.Tensor):
    b, m, k = x.size()
    b2, k2, n = y.size()
    assert k == k2
    out = torch.empty([b, m, n], dtype=x.dtype, device=x.device)
    for tile_b, tile_m, tile_n in hl.tile([b, m, n], block_size=[None, 8, None]):
        acc = hl.zeros([tile_b, tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k, block_size=128):
            acc += x[tile_b, tile_m, tile_k] @ y[tile_b, tile_k, tile_n]
        out[tile_b, tile_m, tile_n] = (torch.tanh(torch.minimum(acc, acc))).to(out.dtype)
    return out
