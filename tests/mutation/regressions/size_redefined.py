# Mutation campaigns (issue 33), seed 3 kernel 548 and seed 2026 kernels 1004
# and 4053: a line of examples/jagged_sum.py / jagged_rows_mean.py repeated.
# A size assigned twice: the ssa pass renamed the second `num_rows`
# (num_rows_1) in `out`'s type but not in the function's declared result,
# and its output failed verification (exit 1, the first error at the
# config's `passes` line). Valid input: it compiles.
# expect-ok
import torch

import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    num_rows = offsets.size(0) - 1
    num_rows = offsets.size(0) - 1
    out = torch.empty([num_rows], dtype=x.dtype, device=x.device)
    for tile in hl.tile(num_rows):
        out[tile] = x[tile]
    return out
