"""
Sum over long rows
==================

Rows too long for one block are reduced with an inner tile loop that
accumulates block-wide partial sums, reduced once at the end.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def long_sum(x: torch.Tensor) -> torch.Tensor:
    """Returns x.sum(-1) for a 2-D x with long rows."""
    m, n = x.size()
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    # Registered so the accumulator can be shaped before the loop over n.
    block_size_n = hl.register_block_size(n)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m, block_size_n], dtype=torch.float32)
        for tile_n in hl.tile(n, block_size=block_size_n):
            acc += x[tile_m, tile_n]
        out[tile_m] = acc.sum(-1).to(out.dtype)
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float32)
    torch.testing.assert_close(long_sum(x), x.sum(-1), rtol=1e-2, atol=1e-1)


def main() -> None:
    check(4, 131072)


if __name__ == "__main__":
    main()
