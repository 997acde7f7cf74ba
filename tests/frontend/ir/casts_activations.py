# .to(dtype) and the activations F.relu, F.gelu (exact and tanh), F.silu.
# RUN: --passes "" --emit=ir --arg x=bf16[256,128]
import torch
import torch.nn.functional as F
import helion
import helion.language as hl


@helion.kernel()
def casts_activations(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=torch.bfloat16)
    for tile_m in hl.tile(m):
        v = x[tile_m, :].to(torch.float32)
        a = F.relu(v) + F.gelu(v) + F.silu(v)
        b = torch.nn.functional.gelu(v, approximate='tanh')
        out[tile_m, :] = (a + b).to(torch.bfloat16)
    return out
