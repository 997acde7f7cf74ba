"""
Layer normalization
===================

Normalizes each row to zero mean and unit variance (in float32), then
scales by `weight` and shifts by `bias`.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def layer_norm(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5
) -> torch.Tensor:
    """torch.nn.functional.layer_norm(x, [n], weight, bias, eps) for 2-D x."""
    m, n = x.size()
    assert weight.size(0) == n, f"weight size mismatch {weight.size(0)} != {n}"
    assert bias.size(0) == n, f"bias size mismatch {bias.size(0)} != {n}"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        acc = x[tile_m, :].to(torch.float32)
        mean = torch.mean(acc, dim=-1, keepdim=True)
        centered = acc - mean
        var = torch.mean(centered * centered, dim=-1, keepdim=True)
        normalized = centered * torch.rsqrt(var + eps)
        acc = normalized * weight[:].to(torch.float32) + bias[:].to(torch.float32)
        out[tile_m, :] = acc.to(out.dtype)
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float16)
    weight = torch.randn([n], device="cuda", dtype=torch.float16)
    bias = torch.randn([n], device="cuda", dtype=torch.float16)
    expected = torch.nn.functional.layer_norm(x, [n], weight, bias, eps=1e-5)
    torch.testing.assert_close(layer_norm(x, weight, bias), expected, rtol=1e-2, atol=1e-2)


def main() -> None:
    check(32, 1024)


if __name__ == "__main__":
    main()
