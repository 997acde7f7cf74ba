# A ref transposed inside the device loop: rejected by the backend, at the
# line and column of the `.T` (it had no location; issue 33, item 8).
import helion
import helion.language as hl
import torch


@helion.kernel()
def add_transposed(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tm, tn in hl.tile([x.size(0), x.size(1)]):
        out[tm, tn] = x[tm, tn] + y.T[tm, tn]
    return out
