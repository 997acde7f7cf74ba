# `hl.tiel`: two letters swapped, one edit away from `hl.tile`.
import helion
import helion.language as hl
import torch


@helion.kernel()
def scale(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tiel(x.size(0)):
        out[t] = x[t] * 2.0
    return out
