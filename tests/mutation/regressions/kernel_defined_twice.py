# Mutation campaign (issue 33), seed 3 kernel 24: a splice of jagged_mean's
# header into itself. Two kernels of one name: Python accepts the file (the
# second `def` rebinds the name); Tessera used to exit 1 with an unlocated
# first line, "the input IR fails verification", then the verifier's
# "function @k is defined more than once". Now the later definition is the
# kernel, with a warning at its `def`.
# expect-ok
import torch

import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] * 2.0
    return out


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] + 1.0
    return out
