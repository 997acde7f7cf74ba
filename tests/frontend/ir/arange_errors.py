# hl.arange's length must be known at compile time (a register value has a
# static shape), and it is an iota of a loop body, not of the host.
# RUN: --passes "" --emit=ir --arg x=f32[64,128] --arg offsets=i32[5]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    host = hl.arange(8)
    out = torch.zeros([m, n], dtype=x.dtype, device=x.device)
    for g in hl.grid(offsets.size(0) - 1):
        first = offsets[g]
        rows = hl.arange(first, first + 8)
        steps = hl.arange(0, 8, 2)
        empty = hl.arange(4, 4)
        out[g, :] = x[g, :]
    return out
