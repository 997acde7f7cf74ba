# A bool vector given a new axis (`valid[:, None]`, `valid.view(n, 1)`, as
# moe_matmul_ogs's token_valid) goes through int32: Mosaic cannot
# shape-cast i1 vectors ("infer-vector-layout: unsupported shape cast").
# RUN: --emit=code -o - --arg x=f32[256,128] --arg counts=i32[256] --config ../../../configs/pallas_unroll.toml
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        valid = counts[tile_m] > 0
        rows = valid.view(tile_m.block_size, 1)
        out[tile_m, tile_n] = torch.where(
            valid[:, None] & rows, x[tile_m, tile_n], 0.0)
    return out
