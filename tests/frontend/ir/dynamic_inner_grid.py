# An inner hl.grid whose extent is computed from scalars read from memory
# inside a grid step (a data-dependent trip count: a tile loop of block 1
# whose end is a value, which every launcher runs as a fori_loop), under a
# tensor-derived `if`.
# RUN: --passes "" --emit=ir --arg x=f32[64,128] --arg offsets=i32[5]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros([m, n], dtype=x.dtype, device=x.device)
    for g in hl.grid(offsets.size(0) - 1):
        first = offsets[g]
        count = offsets[g + 1] - first
        if count > 0:
            for b in hl.grid((count + 7) // 8):
                rows = first + b * 8 + hl.arange(8)
                valid = rows < first + count
                v = hl.load(x, [rows, hl.arange(n)], extra_mask=valid[:, None])
                hl.store(out, [rows, hl.arange(n)], v + 1.0,
                         extra_mask=valid[:, None])
    return out
