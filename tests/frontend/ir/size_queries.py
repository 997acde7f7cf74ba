# Size queries: x.size() unpacked, x.size(d) with negative d, x.shape and
# x.shape[d]; symbolic dims come from the spec.
# RUN: --passes "" --emit=ir --arg "x=f32[m, n]" --arg "y=f32[b, m, n]"
import torch
import helion
import helion.language as hl


@helion.kernel()
def size_queries(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    last = y.size(-1)
    b = y.size(0)
    rows, cols = x.shape
    batch = y.shape[0]
    out = torch.empty([b, m, n], dtype=torch.float32)
    for tile_b, tile_m in hl.tile([batch, rows]):
        out[tile_b, tile_m, :] = y[tile_b, tile_m, :] + x[tile_m, :] * last * cols
    return out
