"""Random kernel: family dead_code, seed 1 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def rk_dead_code_only_1(x: torch.Tensor):
    m, n = x.size()
    unused_size = m * 2 + n
    twice = unused_size * 2
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            x_v = x[tile_m, tile_n].to(torch.float32)
            v = x_v
            acc = acc + torch.sum(v, dim=-1)
        out[tile_m] = acc.to(out.dtype)
    return out
