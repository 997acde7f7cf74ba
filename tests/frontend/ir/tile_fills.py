# Device allocations sized by tiles: hl.zeros, hl.full, torch.full_like and
# torch.zeros_like on a loaded tile.
# RUN: --passes "" --emit=ir --arg x=f32[256,512]
import torch
import helion
import helion.language as hl


@helion.kernel()
def tile_fills(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        v = x[tile_m, tile_n]
        a = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        b = hl.full([tile_m, tile_n], 1.5, dtype=torch.bfloat16)
        c = torch.full_like(v, 2.0)
        d = torch.zeros_like(v)
        e = hl.zeros([tile_m])
        out[tile_m, tile_n] = a + b + c + d + v + e[:, None]
    return out
