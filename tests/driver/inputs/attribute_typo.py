# `out.dtpye`: two letters swapped, one edit away from the attribute `dtype`.
import helion
import helion.language as hl
import torch


@helion.kernel()
def scale(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty([x.size(0)], dtype=x.dtpye, device=x.device)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2.0
    return out
