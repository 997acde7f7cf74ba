# hl.tile forms: a list of dims (the grid), a nested loop over
# tile.begin..tile.end, block_size=, a tuple of tiles, tile attributes.
# RUN: --passes "" --emit=ir --arg x=f32[64,256] --arg y=f32[64,256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def tile_forms(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n], block_size=[32, 128]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for sub in hl.tile(tile_n.begin, tile_n.end, block_size=64):
            acc += x[tile_m, tile_n] * tile_m.block_size
        out[tile_m, tile_n] = acc + y[tile_m, tile_n] + tile_n.index[None, :]
    return out
