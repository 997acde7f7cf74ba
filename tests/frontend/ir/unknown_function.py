# An unknown function: error with a caret under the call, a suggestion and
# a note; the second error in the same kernel is reported too.
# RUN: --passes "" --emit=ir --arg x=f32[64,64]
import torch
import helion
import helion.language as hl


@helion.kernel()
def unknown_function(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        out[tile, :] = torch.sigmoidd(x[tile, :])
        out[tile, :] = x[tile, :, 0]
    return out
