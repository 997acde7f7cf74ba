"""
Element-wise addition
=====================

Adds two tensors of the same shape, tile by tile.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Returns x + y (same shapes; the dtype follows torch promotion)."""
    m, n = x.size()
    assert x.shape == y.shape, f"shape mismatch: {x.shape} != {y.shape}"
    out = torch.empty(
        [m, n], dtype=torch.promote_types(x.dtype, y.dtype), device=x.device
    )
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] + y[tile_m, tile_n]
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float16)
    y = torch.randn([m, n], device="cuda", dtype=torch.float16)
    torch.testing.assert_close(add(x, y), x + y)


def main() -> None:
    check(1024, 1024)


if __name__ == "__main__":
    main()
