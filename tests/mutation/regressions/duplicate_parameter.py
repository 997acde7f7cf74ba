# Mutation campaign (issue 33), seed 2 kernel 91: a parameter line of
# examples/scaled_epilogue.py repeated. CPython rejects the file; Tessera
# used to exit 1 with "the input IR fails verification" as the first line.
# expect-error: duplicate argument 'w' in function definition
import torch

import helion
import helion.language as hl


@helion.kernel()
def scaled(x: torch.Tensor, w: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] * w[tile]
    return out
