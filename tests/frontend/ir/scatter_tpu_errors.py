# Scatters the TPU cannot run, located by the pallas-tpu backend: rows at
# data-dependent positions written through a lane window of an inner loop
# (Mosaic: an unaligned dynamic store). scatter_tpu_bf16.py: 16-bit rows.
# RUN: --emit=code -o - --arg x=f32[256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, idx):
    m, n = x.size()
    out = torch.zeros_like(x)
    for tile_m in hl.tile(m):
        for tile_n in hl.tile(n):
            out[idx[tile_m], tile_n] = x[tile_m, tile_n]
    return out
