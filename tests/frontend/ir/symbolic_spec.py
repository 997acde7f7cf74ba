# Shapes named by the spec stay symbolic; asserts equate the dims of y with
# those of x; block sizes come from the spec's block_sizes... here defaults.
# RUN: --passes "" --emit=ir --arg "x=bf16[m, k]" --arg "y=bf16[k2, n]"
import torch
import helion
import helion.language as hl


@helion.kernel()
def symbolic_spec(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.empty([m, n], dtype=torch.float32)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc
    return out
