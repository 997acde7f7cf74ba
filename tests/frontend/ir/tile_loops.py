# hl.tile forms (see also tile_forms.py): one dim, tile(begin, end), block_size=,
# and nested tile loops (only the outermost is the grid).
# RUN: --passes "" --emit=ir --arg x=f32[256,512]
import torch
import helion
import helion.language as hl


@helion.kernel()
def tile_loops(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m, block_size=64):
        for tile_n in hl.tile(n):
            out[tile_m, tile_n] = x[tile_m, tile_n]
        for part in hl.tile(0, n, block_size=256):
            out[tile_m, part] = out[tile_m, part] * 2.0
        for sub in hl.tile(tile_m.begin, tile_m.end, block_size=16):
            out[sub, :] = out[sub, :] + 1.0
    return out
