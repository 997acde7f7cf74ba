# Module constants, math.* on constants, integer division, and if on
# compile-time constants (only the taken branch is lowered); a scalar
# parameter with a default.
# RUN: --passes "" --emit=ir --arg x=bf16[256,512]
import math
import torch
import helion
import helion.language as hl

USE_BIAS = True


@helion.kernel
def constants(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    m, n = x.size()
    scale = 1.0 / math.sqrt(n)
    half = n // 2
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        v = x[tile_m, :] * scale + math.pi + math.log(2.0)
        if half > 100:
            v = v + eps
        else:
            v = v - 1
        if USE_BIAS:
            v = v + SHIFT
        out[tile_m, :] = v
    return out


SHIFT = -3
