# An atomic through a window at a scalar offset (`s + hl.arange(B)`) is a
# located error: the atomic-accumulator pass keeps a VMEM accumulator per
# block of a tile, and a window is not one (stores through windows are
# fine: they rotate the value into an aligned window). Without that pass
# the backend refuses it on the two minor dims (shifted_tiles.cpp).
# RUN: --emit=code -o - --arg x=f32[64,128] --arg offsets=i32[5]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros([m, n], dtype=x.dtype, device=x.device)
    for g in hl.grid(offsets.size(0) - 1):
        rows = offsets[g] + hl.arange(8)
        hl.atomic_add(out, [rows, hl.arange(n)], x[g, :][None, :])
    return out
