# A `Tensor | None = None` argument without --arg is compiled for None (the
# `is not None` branch folds and the argument becomes a compile-time
# parameter); `hl.specialize` of an int argument fixes it at compile time
# (--arg chunk=64) and makes it usable as a block size.
# RUN: --passes "" --emit=ir --arg chunk=64
from typing import Optional

import torch
import helion
import helion.language as hl


@helion.kernel()
def optional_and_specialize(
    x: torch.Tensor, chunk: int, w: torch.Tensor | None = None, v: Optional[torch.Tensor] = None
) -> torch.Tensor:
    m, n = x.size()
    chunk = hl.specialize(chunk)
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        for tn in hl.tile(n, block_size=chunk):
            y = x[tm, tn]
            if w is not None:
                y = y * w[tn][None, :]
            if v is None:
                y = y + 1.0
            out[tm, tn] = y
    return out
