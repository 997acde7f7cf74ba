import torch

import helion
import helion.language as hl


@helion.kernel()
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        v = x[tile]
if v.sum() > 0:
        v = v * 2.0
        out[tile] = v + y[tile]
    return out
