# Gathers and masks the frontend rejects, each located: an element gather
# through a rank-2 index tensor, stores at gathered lanes and at two gathered
# dims (scatters of single elements; scatter.py has the row scatters),
# a float extra_mask, hl.load of a value. `x[idx[tile_m], idx[tile_m]]`
# zips its two index vectors (lane_select.py; the pallas-tpu backend then
# rejects it in lane_select_errors.py: its rows are not a tile's index).
# RUN: --passes "" --emit=ir --arg x=f32[256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, idx):
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        flat = idx[tile_m][:, None] * n + tile_n.index[None, :]
        a = hl.load(x.view(-1), [flat])
        out[tile_m, idx[tile_n]] = x[tile_m, tile_n]
        out[idx[tile_m], idx[tile_n]] = x[tile_m, tile_n]
        b = x[idx[tile_m], idx[tile_m]]
        c = hl.load(x, [tile_m, tile_n], extra_mask=x[tile_m, tile_n])
        d = hl.load(x[tile_m, tile_n], [tile_m])
        out[tile_m, tile_n] = b + c + d
    return out
