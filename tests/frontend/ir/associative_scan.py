# hl.associative_scan inlines its combine function: a function of the file
# taking 2k parameters (a tuple of k tensors, left members then right)
# with assignments, a docstring and a tuple return, or a lambda; each member
# of the result is one `scan` op (its combine as scan_arg expressions).
# RUN: --passes "" --emit=ir --arg x=f32[256,128] --arg ids=f32[256,128]
import torch
import helion
import helion.language as hl


def segment_add(left_v, left_id, right_v, right_id):
    """Adds within a segment, restarts at its first element."""
    same = left_id == right_id
    combined = torch.where(same, left_v + right_v, right_v)
    return combined, right_id


@helion.kernel()
def k(x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        v, _ = hl.associative_scan(
            segment_add, (x[tile_m, tile_n], ids[tile_m, tile_n]), dim=0
        )
        best = hl.associative_scan(
            lambda a, b: torch.maximum(a, b), x[tile_m, tile_n], dim=1, reverse=True
        )
        out[tile_m, tile_n] = v + best
    return out
