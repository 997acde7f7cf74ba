# A gather index built with torch.where and a compare (moe_matmul_ogs's
# `where(tile.index < count, tile.index, 0)` then `start + ...`): evaluated
# row by row as a scalar, the rows past `count` reading row `start`.
# RUN: --emit=code -o - --arg a=f32[256,128] --arg order=i32[256] --arg offsets=i32[5]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(a: torch.Tensor, order: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    t, d = a.size()
    out = torch.zeros([4, 64, d], dtype=a.dtype, device=a.device)
    for g in hl.grid(4):
        start = offsets[g]
        count = offsets[g + 1] - start
        for tile_t in hl.tile(64):
            local = tile_t.index
            valid = torch.where(local < count, local, 0)
            rows = order[start + valid]
            out[g, tile_t, :] = a[rows, :]
    return out
