"""
RMS normalization
=================

x / sqrt(mean(x^2) + eps) * weight, row by row, computed in float32.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


def rms_norm_pytorch(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
    return (x * torch.rsqrt(variance + eps) * weight).to(x.dtype)


@helion.kernel()
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Root-mean-square normalization of each row of a 2-D x."""
    m, n = x.size()
    assert weight.size(0) == n, f"weight size mismatch {weight.size(0)} != {n}"
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        x_tile = x[tile_m, :].to(torch.float32)
        x_squared = x_tile * x_tile
        mean_x_squared = torch.mean(x_squared, dim=-1)
        inv_rms_tile = torch.rsqrt(mean_x_squared + eps)
        normalized = x_tile * inv_rms_tile[:, None]
        out[tile_m, :] = (normalized * weight[:].to(torch.float32)).to(out.dtype)
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float16)
    weight = torch.randn([n], device="cuda", dtype=torch.float16)
    torch.testing.assert_close(rms_norm(x, weight), rms_norm_pytorch(x, weight), rtol=1e-2, atol=1e-2)


def main() -> None:
    check(2048, 4096)


if __name__ == "__main__":
    main()
