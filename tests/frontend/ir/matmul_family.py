# The matmul family lowers to dot: torch.addmm, matmul, bmm, baddbmm, @,
# hl.dot with out_dtype= and acc=.
# RUN: --passes "" --emit=ir --arg a=bf16[2,64,32] --arg b=bf16[2,32,64] --arg c=f32[64,64]
import torch
import helion
import helion.language as hl


@helion.kernel()
def matmul_family(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    bs, m, k = a.size()
    out = torch.empty([bs, m, m])
    for tb, tm in hl.tile([bs, m]):
        x = a[tb, tm, :]
        y = b[tb, :, :]
        p = torch.bmm(x, y)
        q = x @ y
        r = torch.matmul(x, y)
        s = torch.baddbmm(p, x, y)
        t = hl.dot(x, y, out_dtype=torch.float32)
        u = hl.dot(x, y, acc=t)
        x2 = c[tm, :]
        v = torch.addmm(x2, x2, c[:, :])
        out[tb, tm, :] = p + q + r + s + t + u + v
    return out
