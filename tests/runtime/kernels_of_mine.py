"""Kernels written against tessera itself (no helion import), as a user's
own module would hold them (test_runtime.py calls them)."""

import torch

import tessera
import tessera.language as hl


@tessera.kernel
def double_rows(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        out[tile_m, tile_n] = x[tile_m, tile_n] * 2.0
    return out


@tessera.kernel(config=tessera.Config(block_sizes=[8, 128]))
def scaled_rows(x: torch.Tensor, scale: float) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        out[tile_m, tile_n] = x[tile_m, tile_n] * scale
    return out
