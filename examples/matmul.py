"""
Matrix multiplication
=====================

out = x @ y with an f32 accumulator carried through the loop over k.
"""

from __future__ import annotations

import torch
from torch import Tensor

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def matmul(x: Tensor, y: Tensor) -> Tensor:
    """Returns x @ y for x of shape [m, k] and y of shape [k, n]."""
    m, k = x.size()
    k2, n = y.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty(
        [m, n], dtype=torch.promote_types(x.dtype, y.dtype), device=x.device
    )
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(out.dtype)
    return out


def check(m: int, k: int, n: int) -> None:
    x = torch.randn([m, k], device="cuda", dtype=torch.float16)
    y = torch.randn([k, n], device="cuda", dtype=torch.float16)
    torch.testing.assert_close(matmul(x, y), x @ y, rtol=1e-2, atol=1e-2)


def main() -> None:
    check(1024, 1024, 1024)


if __name__ == "__main__":
    main()
