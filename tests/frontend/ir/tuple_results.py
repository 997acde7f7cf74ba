# Multiple outputs returned as a tuple.
# RUN: --passes "" --emit=ir --arg x=f32[128,256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def tuple_results(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    doubled = torch.empty_like(x)
    row_max = torch.empty([m])
    for tile_m in hl.tile(m):
        v = x[tile_m, :]
        doubled[tile_m, :] = v * 2
        row_max[tile_m] = v.amax(-1)
    return doubled, row_max
