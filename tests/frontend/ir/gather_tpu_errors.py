# A gather the TPU cannot run, located at its statement by the pallas-tpu
# backend: elements gathered along the lane dim (Mosaic gathers only within
# one vreg). gather_tpu_bf16.py: rows of a 16-bit table.
# RUN: --emit=code -o - --arg x=f32[256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, idx):
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        lanes = x[tile_m, idx[tile_n]]
        out[tile_m, tile_n] = lanes
    return out
