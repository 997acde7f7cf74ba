# Two kernels of one file, the second with an error: `--kernel twice`
# compiles the first alone; the whole file fails at the second's line.
import helion
import helion.language as hl
import torch


@helion.kernel()
def twice(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile] * 2.0
    return out


@helion.kernel()
def broken(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = torch.nosuch(x[tile])
    return out
