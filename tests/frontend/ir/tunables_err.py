# An --arg value the tunable's fragment does not allow is a located error.
# RUN: --passes "" --emit=ir --arg split_k=3
# EXIT: 1
import torch
import helion
from helion.autotuner import PowerOfTwoFragment
import helion.language as hl


@helion.kernel()
def tunables_err(x: torch.Tensor) -> torch.Tensor:
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(1, 8, 2))
    out = torch.empty_like(x)
    for tm in hl.tile(x.size(0)):
        out[tm] = x[tm] * split_k
    return out
