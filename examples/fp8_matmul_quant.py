"""
Matmul on fp8 operands, with an fp8 copy of the result
======================================================

acc = x8 @ y8 in float32, where x8 and y8 are x and y rounded to
float8_e4m3fn inside the kernel (the MXU reads fp8 operands); the second
output is acc rounded to float8_e5m2 and stored as such. Both fp8 formats
are dtypes of the IR (f8e4m3, f8e5m2); the real TPU compiler accepts them on
v5e, v6e and v7x alike (libtpu 0.0.42).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def fp8_matmul_quant(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Returns (fp8(x) @ fp8(y) in float32, the same as float8_e5m2)."""
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    out8 = torch.empty([m, n], dtype=torch.float8_e5m2, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            a = x[tile_m, tile_k].to(torch.float8_e4m3fn)
            b = y[tile_k, tile_n].to(torch.float8_e4m3fn)
            acc = hl.dot(a, b, acc=acc)
        out[tile_m, tile_n] = acc
        out8[tile_m, tile_n] = acc.to(torch.float8_e5m2)
    return out, out8
