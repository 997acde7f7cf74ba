# What a scan cannot take, each a located error: a combine function with a
# loop, one that calls an unknown function, one of the wrong arity, a dim
# that is not in the block, a scan outside the tiles, and calling the
# combine function directly.
# RUN: --passes "" --emit=ir --arg x=f32[256,128]
import torch
import helion
import helion.language as hl


def looping(a, b):
    for i in range(2):
        a = a + b
    return a


def unknown(a, b):
    return torch.special_add(a, b)


def three(a, b, c):
    return a + b + c


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    whole = hl.cumsum(x, dim=0)
    for tile_m, tile_n in hl.tile([m, n]):
        t = x[tile_m, tile_n]
        a = hl.associative_scan(looping, t, dim=0)
        b = hl.associative_scan(unknown, t, dim=0)
        c = hl.associative_scan(three, t, dim=0)
        d = hl.cumsum(t, dim=2)
        e = three(t, t, t)
        out[tile_m, tile_n] = t
    return out
