# A scatter the TPU cannot run, located by the pallas-tpu backend: rows at
# data-dependent positions written through a lane window that is not a
# tile's aligned block (Mosaic: an unaligned dynamic store). A grid tile or
# an inner tile on the lanes is fine (expert_scatter.py).
# scatter_tpu_bf16.py: 16-bit rows.
# RUN: --emit=code -o - --arg x=f32[256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, idx):
    m, n = x.size()
    out = torch.zeros_like(x)
    for tile_m in hl.tile(m):
        out[idx[tile_m], 64:128] = x[tile_m, 0:64]
    return out
