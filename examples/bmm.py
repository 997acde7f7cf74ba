"""
Batched matrix multiplication
=============================

out[b] = A[b] @ B[b], tiled over batch, rows and columns.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def bmm(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Returns torch.bmm(A, B) for A [b, m, k] and B [b, k, n]."""
    b, m, k = A.size()
    b2, k2, n = B.size()
    assert b == b2, f"batch size mismatch {b} != {b2}"
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty(
        [b, m, n], device=A.device, dtype=torch.promote_types(A.dtype, B.dtype)
    )
    for tile_b, tile_m, tile_n in hl.tile([b, m, n]):
        acc = hl.zeros([tile_b, tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.baddbmm(
                acc, A[tile_b, tile_m, tile_k], B[tile_b, tile_k, tile_n]
            )
        out[tile_b, tile_m, tile_n] = acc.to(out.dtype)
    return out


def check(b: int, m: int, k: int, n: int) -> None:
    x = torch.randn([b, m, k], device="cuda", dtype=torch.float16)
    y = torch.randn([b, k, n], device="cuda", dtype=torch.float16)
    torch.testing.assert_close(bmm(x, y), torch.bmm(x, y), rtol=1e-2, atol=1e-2)


def main() -> None:
    check(16, 512, 768, 1024)


if __name__ == "__main__":
    main()
