# What CPython accepts still compiles: after a bare `*`, a parameter without
# a default may follow one with a default (keyword-only parameters).
# expect-ok
import torch

import helion
import helion.language as hl


@helion.kernel()
def scaled(x: torch.Tensor, scale: float = 2.0, *, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] * scale + y[tile]
    return out
