"""
Running sums along rows
=======================

out[i, j] = sum_{k <= j} x[i, k]: `hl.cumsum` of whole rows, one block of
rows per program. A scan runs within the block it is given (as Helion's
`tl.associative_scan` does), so each row is scanned whole. On a TPU the scan
is log2(n) steps of a lane rotation (`pltpu.roll`) and a select (Mosaic
lowers neither `jnp.cumsum` nor `lax.associative_scan`); under Pallas Triton
it is `jnp.cumsum` (docs/ir.md, "Scans").
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def row_cumsum(x: torch.Tensor) -> torch.Tensor:
    """Returns torch.cumsum(x, dim=1) for a 2-D x."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        out[tile_m, :] = hl.cumsum(x[tile_m, :], dim=1)
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float32)
    torch.testing.assert_close(row_cumsum(x), torch.cumsum(x, dim=1),
                               rtol=1e-4, atol=1e-4)


def main() -> None:
    check(512, 1024)


if __name__ == "__main__":
    main()
