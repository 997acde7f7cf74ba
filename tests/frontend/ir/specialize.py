# hl.specialize gives the dim as a compile-time int (64 below); hl.register_block_size
# gives a block size variable used by block_size= (128 by default, clamped
# to the static extent 64).
# RUN: --passes "" --emit=ir --arg "x=f32[m, 64]"
import torch
import helion
import helion.language as hl


@helion.kernel()
def specialize(x: torch.Tensor) -> torch.Tensor:
    m = x.size(0)
    n = hl.specialize(x.size(1))
    out = torch.empty([m, n])
    bs = hl.register_block_size(n)
    for tile_m in hl.tile(m):
        for tile_n in hl.tile(n, block_size=bs):
            out[tile_m, tile_n] = x[tile_m, tile_n] * n
    return out
