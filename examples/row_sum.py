"""
Sum over rows
=============

out[i] = sum_j x[i, j], each program reducing whole rows at once.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def row_sum(x: torch.Tensor) -> torch.Tensor:
    """Returns x.sum(-1) for a 2-D x."""
    m, n = x.size()
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m] = x[tile_m, :].sum(-1)
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float32)
    torch.testing.assert_close(row_sum(x), x.sum(-1), rtol=1e-4, atol=1e-4)


def main() -> None:
    check(512, 1024)


if __name__ == "__main__":
    main()
