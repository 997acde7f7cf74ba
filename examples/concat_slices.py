"""
Concatenation by column windows
===============================

out = concatenate([x, y], dim=1) with one tile loop over rows: each input
is stored whole into its own window of the output's columns,
`out[tile_m, :nx]` and `out[tile_m, nx:]` (Helion's simple concatenate),
32 rows at a time (a whole row of 1012 columns is wide for one program).
On the GPU a value's width is a power of two: a 500-wide window holds the
512-wide block of x, stored with the columns past 500 masked off.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def concat_slices(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x: [m, nx], y: [m, ny]. Returns [m, nx + ny]."""
    m, nx = x.size()
    out = torch.empty([m, nx + y.size(1)], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m, block_size=32):
        out[tile_m, :nx] = x[tile_m, :]
        out[tile_m, nx:] = y[tile_m, :]
    return out


def check(m: int, nx: int, ny: int) -> None:
    x = torch.randn([m, nx], device="cuda")
    y = torch.randn([m, ny], device="cuda")
    torch.testing.assert_close(concat_slices(x, y), torch.cat([x, y], dim=1))


if __name__ == "__main__":
    check(512, 500, 512)
