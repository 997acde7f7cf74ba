# The index of a finished run-time `range` loop used after it (Python keeps
# it bound to its last value; in a kernel it exists only inside the loop).
# expect-error: 'k' is used after the loop at line 16 that defines it
import torch

import helion
import helion.language as hl


@helion.kernel()
def k_sum(x: torch.Tensor, steps: int) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for k in range(steps):
            acc = acc + x[tile_m, tile_n]
        out[tile_m, tile_n] = acc * k
    return out
