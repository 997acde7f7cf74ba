# Elementwise math: unary torch functions, binary maximum/minimum/where,
# comparisons, arithmetic operators and Python scalars.
# RUN: --passes "" --emit=ir --arg x=f32[256,128]
import torch
import helion
import helion.language as hl


@helion.kernel()
def elementwise_math(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        v = x[tile_m, :]
        a = torch.exp(v) + torch.exp2(v) + torch.log(v) + torch.log2(v)
        b = torch.sqrt(v) + torch.rsqrt(v) + torch.tanh(v) + torch.sigmoid(v)
        c = torch.erf(v) + torch.abs(v) + torch.maximum(v, a) + torch.minimum(v, 0.0)
        d = torch.where(v > 0, v, 0.0) + torch.where(v <= b, 1.0, v)
        e = -v - 2 * v / (v ** 2)
        out[tile_m, :] = a + b + c + d + e
    return out
