# One element per row at a lane from data: two index vectors side by side
# zip (x[tile.index, lanes]), and a flat index row * row_length + lane over
# a view(-1) / reshape(-1) of a rank-2 argument is rewritten into that zipped
# gather of the argument (the view is then unused). Index sums in either
# order, the row length as a size query, an unpacked size or a constant
# (x symbolic, y static).
# RUN: --passes "" --emit=ir --arg y=f32[256,512]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, labels, y):
    n, v = x.size()
    out = torch.empty([n], dtype=x.dtype, device=x.device)
    x_flat = x.view(-1)
    y_flat = y.reshape(-1)
    for tile_n in hl.tile(n):
        lanes = labels[tile_n]
        a = hl.load(x, [tile_n.index, lanes])
        flat = tile_n.index * v + lanes
        b = hl.load(x_flat, [flat])
        c = x_flat[lanes + x.size(1) * tile_n.index]
        d = hl.load(y_flat, [tile_n.index * 512 + lanes])
        out[tile_n] = a + b + c + d
    return out
