"""
Broadcasting add
================

out = x + y with PyTorch's broadcasting and type promotion, as Helion's
add.py writes it: `torch.broadcast_tensors(x, y)` on the kernel's
arguments (y of shape [n] against x of shape [m, n]), then one tiled loop
over the result.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def broadcast_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Returns x + y broadcast to their common shape."""
    x, y = torch.broadcast_tensors(x, y)
    out = torch.empty(x.shape, dtype=torch.promote_types(x.dtype, y.dtype), device=x.device)
    for tile in hl.tile(out.size()):
        out[tile] = x[tile] + y[tile]
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float32)
    y = torch.randn([n], device="cuda", dtype=torch.float32)
    torch.testing.assert_close(broadcast_add(x, y), x + y)


def main() -> None:
    check(512, 1024)


if __name__ == "__main__":
    main()
