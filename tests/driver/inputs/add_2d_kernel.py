# A kernel with two block dims: block_sizes in a config must give two.
import helion
import helion.language as hl
import torch


@helion.kernel()
def add_2d(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tm, tn in hl.tile([x.size(0), x.size(1)]):
        out[tm, tn] = x[tm, tn] + y[tm, tn]
    return out
