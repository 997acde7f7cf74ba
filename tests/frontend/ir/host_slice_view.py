# Host-side slices of an argument (grpo_loss's `logits[:, :-1, :]`): each is
# a slice_view ref; a negative bound counts from the end of its dim (static
# here, symbolic in host_slice_view_symbolic.py), a begin shifts the view.
# RUN: --passes "" --emit=ir --arg x=f32[2,9,256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    b, s, v = x.shape
    prev = x[:, :-1, :]
    nxt = x[:, 1:]
    last = x[:, -1, :]
    out = torch.empty([b, s - 1, v])
    for tile_b, tile_s, tile_v in hl.tile([b, s - 1, v]):
        out[tile_b, tile_s, tile_v] = (
            nxt[tile_b, tile_s, tile_v] - prev[tile_b, tile_s, tile_v]
            + last[tile_b, tile_v][:, None, :])
    return out
