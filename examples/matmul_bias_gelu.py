"""
Matmul with a bias + GELU epilogue and an auxiliary output
==========================================================

out = gelu(x @ y + bias) and aux = x @ y + bias (the pre-activation, which a
backward pass would keep), both written by the same kernel.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def matmul_bias_gelu(
    x: torch.Tensor, y: torch.Tensor, bias: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Returns (gelu_tanh(x @ y + bias), x @ y + bias)."""
    m, k = x.size()
    k2, n = y.size()
    assert k == k2, "inner dims differ"
    assert bias.size(0) == n, "bias must have n entries"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    aux = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        pre = acc + bias[tile_n].to(torch.float32)
        aux[tile_m, tile_n] = pre.to(aux.dtype)
        out[tile_m, tile_n] = F.gelu(pre, approximate="tanh").to(out.dtype)
    return out, aux


def check(m: int, k: int, n: int) -> None:
    x = torch.randn([m, k], device="cuda", dtype=torch.bfloat16)
    y = torch.randn([k, n], device="cuda", dtype=torch.bfloat16)
    bias = torch.randn([n], device="cuda", dtype=torch.bfloat16)
    out, aux = matmul_bias_gelu(x, y, bias)
    expected_aux = x @ y + bias
    torch.testing.assert_close(aux, expected_aux, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(
        out, F.gelu(expected_aux, approximate="tanh"), rtol=2e-2, atol=2e-2
    )


def main() -> None:
    check(512, 256, 384)


if __name__ == "__main__":
    main()
