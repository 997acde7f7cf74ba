# A store into a slice whose extent is computed in the kernel body
# (`out[t, n1:]`: size - n1) takes the dim of the stored value's parameter
# (y's), not the other way round: the computed size is defined only in the
# body, and the ssa pass would version it there.
# RUN: --emit=ir
import torch
import helion
import helion.language as hl


@helion.kernel()
def side_by_side(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty([x.size(0), x.size(1) + y.size(1)], dtype=x.dtype, device=x.device)
    n1 = x.size(1)
    for tile in hl.tile(x.size(0)):
        out[tile, :n1] = x[tile, :]
        out[tile, n1:] = y[tile, :]
    return out
