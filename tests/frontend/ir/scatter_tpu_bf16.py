# A scatter of 16-bit rows: a row at a data-dependent sublane offset is
# 32-bit only on libtpu 0.0.42, as for gathers (gather_tpu_bf16.py), so the
# output is scattered as f32 (`out_wide`) and narrowed after the launch.
# RUN: --emit=code -o - --arg x=bf16[256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, idx):
    m, n = x.size()
    out = torch.zeros_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[idx[tile_m], tile_n] = x[tile_m, tile_n]
    return out
