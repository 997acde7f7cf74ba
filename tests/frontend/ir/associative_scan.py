# hl.associative_scan is a located error naming what is missing (a scan op,
# and the combine function is not inlined), reported before its arguments
# (the combine function is an undefined name in the kernel).
# RUN: --passes "" --emit=ir --arg x=f32[256,128]
import torch
import helion
import helion.language as hl


def combine(a, b):
    return a + b


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros([2, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        scanned = hl.associative_scan(combine, x[tile_m, tile_n], dim=0)
        out[0, tile_n] = scanned[0, :]
    return out
