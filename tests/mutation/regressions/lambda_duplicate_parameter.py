# A lambda with a parameter named twice (CPython rejects it).
# expect-error: duplicate argument 'a' in function definition
import torch

import helion
import helion.language as hl


@helion.kernel()
def running_max(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = hl.associative_scan(
            lambda a, a: torch.maximum(a, a), x[tile_m, tile_n], dim=1
        )
    return out
