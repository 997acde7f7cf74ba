# hl.arange(n) and hl.arange(start, end) outside a tile: an `arange {size}`
# iota (plus the start). A scalar plus an arange as an index is a window at
# a scalar offset (`shifted(add(..., arange))`, like a shifted tile index);
# compares against it are masks (extra_mask).
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
        rows = first + hl.arange(8)
        lanes = hl.arange(0, 128)
        valid = rows < offsets[g + 1]
        v = hl.load(x, [rows, lanes], extra_mask=valid[:, None])
        hl.store(out, [rows, hl.arange(128)], v * 2.0, extra_mask=valid[:, None])
    return out
