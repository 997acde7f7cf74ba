# The device body is an `if` whose assignment nothing reads: the emitter
# drops it, and the kernel function keeps `pass` (a body of only a comment
# is an IndentationError; issue 33).
import helion
import helion.language as hl
import torch


@helion.kernel()
def dead_if(modes: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    out = torch.zeros_like(x)
    for t in hl.tile(x.size(0)):
        v = x[t]
        if modes[t.begin] > 0:
            v = v * 2.0
    return out
