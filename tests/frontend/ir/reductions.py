# Reductions with dim= and keepdim= (keyword and positional, negative dims)
# as functions and as methods.
# RUN: --passes "" --emit=ir --arg x=f32[256,128]
import torch
import helion
import helion.language as hl


@helion.kernel()
def reductions(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        v = x[tile_m, :]
        s = torch.sum(v, dim=1, keepdim=True)
        hi = torch.amax(v, 1, True)
        lo = v.amin(-1, keepdim=True)
        mu = torch.mean(v, dim=-1)
        total = v.sum(-1)
        out[tile_m, :] = v - s + hi + lo + mu[:, None] + total[:, None]
    return out
