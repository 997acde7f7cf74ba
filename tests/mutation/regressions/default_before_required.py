# A parameter without a default after one with a default (CPython: "non-default
# argument follows default argument"); Tessera used to compile it.
# expect-error: parameter 'y' without a default follows parameter 'scale' with a default
import torch

import helion
import helion.language as hl


@helion.kernel()
def scaled(x: torch.Tensor, scale: float = 2.0, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] * scale + y[tile]
    return out
