"""
SwiGLU
======

silu(a) * b, the gated activation of Llama-style MLPs.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

import helion
import helion.language as hl


@helion.kernel()
def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Returns silu(a) * b for 2-D a and b of the same shape."""
    assert a.shape == b.shape, "a and b must have the same shape"
    m, n = a.size()
    out = torch.empty_like(a)
    for tile_m, tile_n in hl.tile([m, n]):
        a_vals = a[tile_m, tile_n].to(torch.float32)
        silu_a = F.silu(a_vals)
        out[tile_m, tile_n] = silu_a.to(b.dtype) * b[tile_m, tile_n]
    return out


def check(m: int, n: int) -> None:
    a = torch.randn([m, n], device="cuda", dtype=torch.bfloat16)
    b = torch.randn([m, n], device="cuda", dtype=torch.bfloat16)
    torch.testing.assert_close(swiglu(a, b), F.silu(a) * b, rtol=1e-2, atol=1e-2)


def main() -> None:
    check(1024, 4096)


if __name__ == "__main__":
    main()
