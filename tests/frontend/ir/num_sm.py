# helion.runtime.get_num_sm() sizes a persistent kernel's worker grid: 2 on
# a TPU (the TensorCores of a v7x chip; v5e and v6e run the two workers in
# turn), a Python int the grid and the allocations fold.
# RUN: --passes "" --emit=ir --arg x=f32[256,128]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    workers = helion.runtime.get_num_sm(x.device)
    out = torch.zeros([workers, n], dtype=x.dtype, device=x.device)
    for w in hl.grid(workers):
        for tile_n in hl.tile(n):
            out[w, tile_n] = x[w, tile_n] * 2.0
    return out
