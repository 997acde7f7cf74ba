# Two kernels of one file tuned at `--arg x=...` only: `rows` has no static
# shape, so no cost estimate; `twice` is tuned all the same, and `rows` is
# reported as not tuned, with the reason (issue 33, item 9).
import helion
import helion.language as hl
import torch


@helion.kernel()
def twice(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] * 2.0
    return out


@helion.kernel()
def rows(y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(y)
    for tile in hl.tile(y.size()):
        out[tile] = y[tile] + 1.0
    return out
