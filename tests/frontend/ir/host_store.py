# A store on the host after the kernel (grpo_loss's `grad_logits[:, -1, :]
# = 0`): the host function updates the kernel's result array
# (`.at[...].set(...)`); the kernel reads a slice_view of its argument.
# RUN: --emit=code -o - --config ../../../configs/pallas_unroll.toml
import torch
import helion
import helion.language as hl


@helion.kernel()
def k(x: torch.Tensor) -> torch.Tensor:
    b, s, v = x.shape
    head = x[:, :-1, :]
    grad = torch.zeros_like(x)
    for tile_b, tile_s, tile_v in hl.tile([b, s - 1, v]):
        grad[tile_b, tile_s, tile_v] = head[tile_b, tile_s, tile_v] * 2.0
    grad[:, -1, :] = 0
    return grad
