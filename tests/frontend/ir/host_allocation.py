# Host allocations: torch.empty, empty_like, zeros, zeros_like, full,
# full_like (with and without dtype=).
# RUN: --passes "" --emit=ir --arg x=bf16[64,256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def host_allocation(x: torch.Tensor):
    m, n = x.size()
    a = torch.empty([m, n], dtype=torch.float32)
    b = torch.empty_like(x)
    c = torch.zeros([m], dtype=torch.float32)
    d = torch.zeros_like(x)
    e = torch.full([m, n], 2.5)
    f = torch.full_like(x, float('-inf'), dtype=torch.float32)
    for tile_m in hl.tile(m):
        v = x[tile_m, :]
        a[tile_m, :] = v + e[tile_m, :]
        b[tile_m, :] = v + d[tile_m, :]
        c[tile_m] = v.sum(-1)
        f[tile_m, :] = v
    return a, b, c, f
