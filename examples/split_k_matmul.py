"""
Split-K matrix multiplication
=============================

The reduction dim k is split across the launch grid: each program multiplies
one chunk of k for one output block and adds its partial product into the
f32 output with hl.atomic_add. The output starts at zero.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def split_k_matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Returns x @ y in float32, reducing over k in parallel chunks."""
    m, k = x.size()
    k2, n = y.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.zeros([m, n], dtype=torch.float32, device=x.device)
    k_chunk = hl.register_block_size(k)
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_chunk]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out


def check(m: int, k: int, n: int) -> None:
    x = torch.randn([m, k], device="cuda", dtype=torch.float16)
    y = torch.randn([k, n], device="cuda", dtype=torch.float16)
    torch.testing.assert_close(
        split_k_matmul(x, y), (x @ y).float(), rtol=1e-2, atol=1e-2
    )


def main() -> None:
    check(64, 8192, 64)


if __name__ == "__main__":
    main()
