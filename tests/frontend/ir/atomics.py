# hl.atomic_add, atomic_max and atomic_min into host allocations; the kernel
# returns a tuple of outputs.
# RUN: --passes "" --emit=ir --arg x=f32[256,512]
import torch
import helion
import helion.language as hl


@helion.kernel()
def atomics(x: torch.Tensor):
    m, n = x.size()
    total = torch.zeros([m], dtype=torch.float32)
    hi = torch.full([m], float('-inf'))
    lo = torch.full([m], float('inf'))
    for tile_m, tile_n in hl.tile([m, n]):
        v = x[tile_m, tile_n]
        hl.atomic_add(total, [tile_m], v.sum(-1))
        hl.atomic_max(hi, [tile_m], v.amax(-1))
        hl.atomic_min(lo, [tile_m], v.amin(-1))
    return total, hi, lo
