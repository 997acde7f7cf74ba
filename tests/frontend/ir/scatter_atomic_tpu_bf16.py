# An atomic scatter of 16-bit rows is not widened by wide_gathers.h: the
# atomic_accumulator pass already sums it in an f32 VMEM scratch
# (`out_acc_scratch`), whose rows move as 32-bit ones.
# RUN: --emit=code -o - --arg x=bf16[256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x, idx):
    m, n = x.size()
    out = torch.zeros_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        hl.atomic_add(out, [idx[tile_m], tile_n], x[tile_m, tile_n])
    return out
