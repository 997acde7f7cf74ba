"""
GEGLU
=====

gelu(a) * b with the tanh approximation of GELU written out:
0.5 * a * (1 + tanh(sqrt(2 / pi) * (a + 0.044715 * a^3))).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

import helion
import helion.language as hl


@helion.kernel()
def geglu(a: Tensor, b: Tensor) -> Tensor:
    """Returns gelu_tanh(a) * b for 2-D a and b of the same shape."""
    assert a.shape == b.shape, f"shape mismatch {a.shape} != {b.shape}"
    m, n = a.size()
    out = torch.empty_like(a, dtype=torch.promote_types(a.dtype, b.dtype))
    sqrt_2_over_pi = math.sqrt(2.0 / math.pi)
    for tile_m, tile_n in hl.tile([m, n]):
        a_vals = a[tile_m, tile_n].to(torch.float32)
        b_vals = b[tile_m, tile_n]
        a_cubed = a_vals * a_vals * a_vals
        tanh_arg = sqrt_2_over_pi * (a_vals + 0.044715 * a_cubed)
        gelu_a = 0.5 * a_vals * (1.0 + torch.tanh(tanh_arg))
        out[tile_m, tile_n] = gelu_a.to(b_vals.dtype) * b_vals
    return out


def check(m: int, n: int) -> None:
    a = torch.randn([m, n], device="cuda", dtype=torch.float16)
    b = torch.randn([m, n], device="cuda", dtype=torch.float16)
    expected = torch.nn.functional.gelu(a, approximate="tanh") * b
    torch.testing.assert_close(geglu(a, b), expected, rtol=1e-2, atol=1e-2)


def main() -> None:
    check(1024, 2048)


if __name__ == "__main__":
    main()
