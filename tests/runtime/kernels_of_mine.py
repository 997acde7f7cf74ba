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


@tessera.kernel
def mean_over_shape(x: torch.Tensor, normalized_shape: list[int]) -> torch.Tensor:
    """Row means over the trailing `normalized_shape` (a list of ints the
    kernel is compiled for, as layer_norm's)."""
    m = x.size(0)
    n = normalized_shape[0]
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m] = torch.sum(x[tile_m, :], dim=-1) / n
    return out


@tessera.kernel
def weighted_mean_over_shape(
    x: torch.Tensor, normalized_shape: list[int], weight: torch.Tensor
) -> torch.Tensor:
    """A compile-time list before a tensor without a default (as Helion's
    layer_norm_fwd): the module's signature keeps the list required."""
    m = x.size(0)
    n = normalized_shape[0]
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m] = torch.sum(x[tile_m, :] * weight[None, :], dim=-1) / n
    return out
