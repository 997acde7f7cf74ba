# Scatters: a store at rows taken from an index tensor (moe_matmul_ogs's
# `C[idx, tile_n] = ...`) and an atomic at them (segment_reduction's
# `hl.atomic_add(output, [idxs, tile_f], vals)`), both IR gather indices on
# the written dim; `expand_as` broadcasts to another value's shape.
# RUN: --passes "" --emit=ir --arg x=f32[256,256] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros_like(x)
    sums = torch.zeros([64, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        rows = idx[tile_m]
        vals = x[tile_m, tile_n]
        out[rows, tile_n] = vals
        wide = rows.float().unsqueeze(1).expand_as(vals)
        hl.atomic_add(sums, [rows, tile_n], vals + wide)
    return out, sums
