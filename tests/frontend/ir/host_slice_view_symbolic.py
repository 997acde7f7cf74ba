# A host slice of an argument of symbolic shape: `x[:, :-1]` is a view of
# extent `n - 1`, a size the host function computes.
# RUN: --passes "" --emit=ir
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    head = x[:, :-1]
    out = torch.empty([m, n - 1], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n - 1]):
        out[tile_m, tile_n] = head[tile_m, tile_n] * 2.0
    return out
