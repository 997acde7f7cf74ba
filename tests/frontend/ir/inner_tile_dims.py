# hl.tile over several dims inside the grid (moe_matmul_ogs's
# `for tile_t, tile_n in hl.tile([max_t, n])` under hl.grid) is one inner
# loop per dim, nested in order: the backends stream one dim per loop.
# RUN: --passes "" --emit=ir --arg x=f32[4,256,384]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    e, t, n = x.size()
    out = torch.empty_like(x)
    for g in hl.grid(e):
        for tile_t, tile_n in hl.tile([t, n]):
            out[g, tile_t, tile_n] = x[g, tile_t, tile_n] + 1.0
    return out
