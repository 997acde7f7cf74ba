# Index tensors zip only side by side and with the same length (PyTorch
# reads x[a, b] at (a[i], b[i])); others are rejected at the second index.
# RUN: --passes "" --emit=ir --arg z=f32[4,256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(z, idx):
    b, n, v = z.size()
    out = torch.empty([b, n], dtype=z.dtype, device=z.device)
    for tile_b, tile_n in hl.tile([b, n]):
        out[tile_b, tile_n] = hl.load(z, [idx[tile_n], tile_b, idx[tile_n]])
        out[tile_b, tile_n] = z[tile_b.index, idx[tile_n], :]
    return out
