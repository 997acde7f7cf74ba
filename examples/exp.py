"""
Element-wise exponential
========================

Applies torch.exp to every element; the tile loop covers all dims of x.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def exp(x: torch.Tensor) -> torch.Tensor:
    """Returns exp(x) with the shape and dtype of x."""
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = torch.exp(x[tile])
    return out


def check(n: int) -> None:
    x = torch.randn([n], device="cuda", dtype=torch.float32)
    torch.testing.assert_close(exp(x), torch.exp(x))


def main() -> None:
    check(10240)


if __name__ == "__main__":
    main()
