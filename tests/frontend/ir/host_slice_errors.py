# Host indexing that is not a view, each located: a tile used after its loop
# and a slice with a step (a single element, `offsets[-1]`, is a host scalar
# read, host_read). host_store.py: a store on the host after the kernel.
# RUN: --passes "" --emit=ir --arg x=f32[64,256] --arg offsets=i32[9]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    total = offsets[-1]
    every_other = x[:, ::2]
    out = torch.zeros_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n]
    rows = x[tile_m, :]
    return out
