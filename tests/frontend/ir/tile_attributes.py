# Tile attributes: begin, end, index, block_size (a compile-time int).
# RUN: --passes "" --emit=ir --arg x=f32[64,128]
import torch
import helion
import helion.language as hl


@helion.kernel()
def tile_attributes(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m, block_size=16):
        first = tile_m.begin
        stop = tile_m.end
        rows = tile_m.index
        size = tile_m.block_size
        v = x[tile_m, :] + rows[:, None] * size
        out[tile_m, :] = v + first + stop
    return out
