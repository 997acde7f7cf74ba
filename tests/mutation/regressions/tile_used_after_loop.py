# Mutation campaigns (issue 33), seed 3 kernels 995 and 2561 and seed 2026
# kernel 2656: an `if` moved out of its loop, or a loop's body cut short by
# an indentation change. The tile of a finished hl.tile loop used after it:
# Python accepts the file (a loop variable outlives its loop); Tessera used
# to exit 1 with "the input IR fails verification" unlocated as its first
# line, then "value 't' is not dominated by its definition".
# expect-error: 't' is used after the loop at line 17 that defines it
import torch

import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, modes: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0), block_size=1):
        out[t] = x[t]
    if modes[t.begin] > 0:
        pass
    return out
