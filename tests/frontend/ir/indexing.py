# Indexing forms: tile, ':', None, an int, a slice, '...', a tile.begin-based
# scalar index, and subscripts of loaded values.
# RUN: --passes "" --emit=ir --arg x=f32[256,64] --arg y=f32[256,64]
import torch
import helion
import helion.language as hl


@helion.kernel()
def indexing(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m])
    for tile_m in hl.tile(m):
        a = x[tile_m, :]
        b = x[tile_m, 0]
        c = y[tile_m.begin, :]
        d = a[:, None]
        e = x[tile_m, 0:16]
        f = a[..., 0]
        g = y[tile_m.begin + 1, 3]
        out[tile_m] = b + c[0] + d[:, 0, 1] + e[:, 0] + f + g
    return out
