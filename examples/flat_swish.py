"""
Swish through flat views
========================

out = x * sigmoid(x), computed over `x.view(-1)` and stored through
`out.view(-1)`: the kernel writes its result through a view of the array it
returns (as Helion's geglu and swiglu examples do).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def flat_swish(x: torch.Tensor) -> torch.Tensor:
    """Returns x * sigmoid(x), tiled over the flattened x."""
    out = torch.empty_like(x)
    x_flat = x.view(-1)
    out_flat = out.view(-1)
    for tile in hl.tile(x.numel()):
        values = x_flat[tile].to(torch.float32)
        out_flat[tile] = (values * torch.sigmoid(values)).to(out.dtype)
    return out


def check(m: int, n: int) -> None:
    x = torch.randn([m, n], device="cuda", dtype=torch.float32)
    torch.testing.assert_close(flat_swish(x), x * torch.sigmoid(x), rtol=1e-4, atol=1e-4)


def main() -> None:
    check(512, 1024)


if __name__ == "__main__":
    main()
