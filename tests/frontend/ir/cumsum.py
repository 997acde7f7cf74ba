# hl.cumsum / hl.cumprod (and torch.cumsum in a kernel) are scans whose
# combine is add / mul of the two elements; reverse=True and negative dims.
# RUN: --passes "" --emit=ir --arg x=bf16[64,256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :]
        forward = hl.cumsum(row, dim=-1)
        backward = hl.cumprod(row, 1, reverse=True)
        out[tile_m, :] = forward + backward + torch.cumsum(row, 0)
    return out
