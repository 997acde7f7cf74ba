# --arg specialization: static shapes and dtypes from the spec flow into
# every type, block sizes are clamped to static dims, leading dims of a
# multi-dim grid get block 1.
# RUN: --passes "" --emit=ir --arg x=bf16[4,64,256] --arg "y=f32[k]"
import torch
import helion
import helion.language as hl


@helion.kernel()
def arg_specialization(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.zeros_like(x)
    for tb, tm in hl.tile([b, m]):
        out[tb, tm, :] = x[tb, tm, :] * 2.0
    return out
