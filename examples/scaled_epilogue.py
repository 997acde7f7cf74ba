"""
Row scaling with compile-time options and an epilogue
=====================================================

out[i, j] = epilogue((x[i, j] * w[j]) ** 2) with a clamping epilogue: a
kernel whose behaviour is chosen when it compiles. `squared` is an
`hl.constexpr` and `mode` a `str` argument (both fixed at compile time, kept
as keyword arguments of the generated host function, which checks them),
and `epilogue` a callable parameter whose lambda default is inlined into the
device code. `x.new_empty` allocates the result and `w[None, :]` broadcasts
against the row tile, which makes `w.size(0) == x.size(1)` a host check
when the kernel is compiled without shapes.
"""

from __future__ import annotations

from typing import Callable

import torch

import helion
import helion.language as hl


@helion.kernel()
def scaled_epilogue(
    x: torch.Tensor,
    w: torch.Tensor,
    squared: hl.constexpr = True,
    mode: str = "clamp",
    epilogue: Callable[[torch.Tensor], torch.Tensor] = lambda v, lo=-2.0: torch.clamp(
        v, min=lo, max=2.0
    ),
) -> torch.Tensor:
    """Returns clamp((x * w) ** 2, -2, 2) for a 2-D x and a 1-D w."""
    m, n = x.size()
    out = x.new_empty([m, n])
    for tile_m in hl.tile(m):
        v = x[tile_m, :] * w[None, :]
        if squared:
            v = v * v
        if mode == "clamp":
            v = epilogue(v)
        out[tile_m, :] = v
    return out
