# A scalar parameter without a default: the cost model ranks the kernel,
# but the real compiler's check cannot call it (it takes tensor types
# only), so every candidate is rejected and tune must say why.
import helion
import helion.language as hl
import torch


@helion.kernel()
def scale_by(x: torch.Tensor, alpha: float) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] * alpha
    return out
