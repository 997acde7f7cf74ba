"""
Softmax over rows
=================

Each program normalizes a block of whole rows: max, exp, sum, divide.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def softmax(x: torch.Tensor) -> torch.Tensor:
    """Returns softmax(x, dim=1) for a 2-D x."""
    n, _m = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        values = x[tile_n, :]
        amax = torch.amax(values, dim=1, keepdim=True)
        exp = torch.exp(values - amax)
        sum_exp = torch.sum(exp, dim=1, keepdim=True)
        out[tile_n, :] = exp / sum_exp
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float16)
    torch.testing.assert_close(
        softmax(x), torch.nn.functional.softmax(x, dim=1), rtol=1e-3, atol=1e-3
    )


def main() -> None:
    check(1024, 1024)


if __name__ == "__main__":
    main()
