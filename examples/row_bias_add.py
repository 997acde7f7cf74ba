"""
Adding a one-row bias
=====================

out = x + bias for a bias of shape [1, n], read as `bias[tile_m, tile_n]`:
a dim of size 1 read with a tile broadcasts over the tile, as in PyTorch
(and as Helion's matmul epilogues read a captured [1, n] bias).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def row_bias_add(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Returns x + bias for x [m, n] and bias [1, n]."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] + bias[tile_m, tile_n]
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float32)
    bias = torch.randn([1, n], device="cuda", dtype=torch.float32)
    torch.testing.assert_close(row_bias_add(x, bias), x + bias)


def main() -> None:
    check(512, 1024)


if __name__ == "__main__":
    main()
