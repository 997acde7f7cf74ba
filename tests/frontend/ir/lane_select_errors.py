# Element gathers the TPU cannot run as one element per row, each located
# by the pallas-tpu backend: a zipped gather whose rows are not a tile's
# index, a flat index of another form, one of a rank-3 tensor.
# lane_select.py: the forms that are lowered; lane_select_apart.py: index
# tensors the frontend cannot zip; lane_select_vmem.py: rows too wide.
# RUN: --emit=code -o - --arg x=f32[256,1000] --arg idx=i32[256] --arg z=f32[4,256,256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def rows_by_data(x, idx):
    n, v = x.size()
    out = torch.empty([n], dtype=x.dtype, device=x.device)
    for tile_n in hl.tile(n):
        out[tile_n] = x[idx[tile_n], idx[tile_n]]
    return out


@helion.kernel()
def flat_other_form(x, idx):
    n, v = x.size()
    out = torch.empty([n], dtype=x.dtype, device=x.device)
    x_flat = x.view(-1)
    for tile_n in hl.tile(n):
        out[tile_n] = hl.load(x_flat, [tile_n.index * (v + 1) + idx[tile_n]])
    return out


@helion.kernel()
def rank3(z, idx):
    b, n, v = z.size()
    out = torch.empty([b, n], dtype=z.dtype, device=z.device)
    for tile_b, tile_n in hl.tile([b, n]):
        out[tile_b, tile_n] = z[tile_b, tile_n.index, idx[tile_n]]
    return out
