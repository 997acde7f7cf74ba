# Rows of a 16-bit table cannot be gathered on the TPU as they are (a packed
# row at a data-dependent offset is E2003, UnprovenMemoryAccessAlignment, in
# libtpu): the table is gathered as f32 (`t_wide`) and each row read cast
# back to bf16 (the tpu-wide-gathers pass, pallas_tpu/passes/wide_gathers.h).
# RUN: --emit=code -o - --arg idx=i32[256] --arg t=bf16[512,256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(idx, t):
    n = idx.size(0)
    d = t.size(1)
    out = torch.empty([n, d], dtype=t.dtype, device=t.device)
    for tile_m, tile_n in hl.tile([n, d]):
        out[tile_m, tile_n] = t[idx[tile_m], tile_n]
    return out
