# Augmented assignment to a device accumulator (+=, -=, *=, /=) and to a
# store target.
# RUN: --passes "" --emit=ir --arg x=f32[256,1024]
import torch
import helion
import helion.language as hl


@helion.kernel()
def augmented_assignment(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros([m])
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            acc += x[tile_m, tile_n].sum(dim=1)
            acc -= 1.0
            acc *= 0.5
            acc /= 2
        out[tile_m] += acc
    return out
