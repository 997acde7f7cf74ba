# hl.load / hl.store: index lists as subscripts take them, extra_mask as a
# where on loads and a read-modify-write on stores; an index vector is a
# gather index. A constant mask stores everything (True) or nothing (False).
# RUN: --passes "" --emit=ir --arg x=f32[256,384] --arg idx=i32[256] --arg table=f32[1000,384]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, idx, table, split: int):
    m, n = x.size()
    out = torch.zeros_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        left = hl.load(x, [tile_m, tile_n], extra_mask=(tile_n.index < split)[None, :])
        rows = hl.load(table, [idx[tile_m], tile_n], eviction_policy="evict_last")
        hl.store(out, [tile_m, tile_n], left + rows, extra_mask=tile_m.index[:, None] < split)
        hl.store(out, [tile_m, tile_n], rows, extra_mask=True)
        hl.store(out, [tile_m, tile_n], left, extra_mask=False)
    return out
