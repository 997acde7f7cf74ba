# One elementwise kernel for the checks of names given on the command line
# and in configs (issue 33, items 7 and 8).
import helion
import helion.language as hl
import torch


@helion.kernel()
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] + y[t]
    return out
