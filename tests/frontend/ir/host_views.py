# Host views: reshape with -1, view, transpose; the result of a view is
# returned.
# RUN: --passes "" --emit=ir --arg x=f32[2,8,64]
import torch
import helion
import helion.language as hl


@helion.kernel()
def host_views(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    flat = x.reshape([-1, n])
    xt = flat.transpose(0, 1)
    out = torch.empty([n, b * m])
    for tile_d in hl.tile(n):
        out[tile_d, :] = xt[tile_d, :]
    return out.view(n, b, m)
