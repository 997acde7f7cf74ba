"""A Helion program of our own, as a user would write one: kernels, an
autograd Function whose forward and backward call them, and a main that
prints what it computed. Run with `python -m tessera.helion`."""

from __future__ import annotations

import sys

import torch

import helion
import helion.language as hl


@helion.kernel()
def gated_silu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    a_flat = a.view(-1)
    b_flat = b.view(-1)
    out_flat = out.view(-1)
    for tile in hl.tile(a.numel()):
        x = a_flat[tile].to(torch.float32)
        out_flat[tile] = (x * torch.sigmoid(x) * b_flat[tile].to(torch.float32)).to(out.dtype)
    return out


@helion.kernel()
def gated_silu_bwd(grad: torch.Tensor, a: torch.Tensor,
                   b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    grad_a = torch.empty_like(a)
    grad_b = torch.empty_like(b)
    for tile_m, tile_n in hl.tile(a.size()):
        x = a[tile_m, tile_n].to(torch.float32)
        g = grad[tile_m, tile_n].to(torch.float32)
        s = torch.sigmoid(x)
        grad_b[tile_m, tile_n] = (g * x * s).to(grad_b.dtype)
        grad_a[tile_m, tile_n] = (g * b[tile_m, tile_n].to(torch.float32)
                                  * s * (1.0 + x * (1.0 - s))).to(grad_a.dtype)
    return grad_a, grad_b


@helion.kernel(config=helion.Config(block_sizes=[8, 128], num_warps=4))
def scaled_matmul(x: torch.Tensor, y: torch.Tensor, epilogue=lambda acc, tile: acc) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = epilogue(acc, (tile_m, tile_n)).to(out.dtype)
    return out


@helion.kernel()
def fp8_floor(base: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """max(base, x / 2) of f32 base and float8 x: PyTorch promotes the
    float8 operand to f32 (JAX would refuse to without a cast)."""
    out = torch.empty_like(base)
    for tile_m, tile_n in hl.tile(base.size()):
        out[tile_m, tile_n] = torch.maximum(base[tile_m, tile_n], x[tile_m, tile_n] * 0.5)
    return out


@helion.kernel()
def dot_f32(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """hl.dot of bf16 operands without an accumulator is f32 in Helion (not
    rounded to bf16 as torch.mm would)."""
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = hl.dot(x[tile_m, :], y[:, tile_n])
    return out


@helion.kernel()
def does_not_compile(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = torch.no_such_function(x[tile])
    return out


class GatedSilu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return gated_silu(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return gated_silu_bwd(grad, a, b)


def main(rows: int) -> None:
    torch.manual_seed(0)
    a = torch.randn(rows, 256, requires_grad=True)
    b = torch.randn(rows, 256, requires_grad=True)
    GatedSilu.apply(a, b).sum().backward()
    a_ref = a.detach().clone().requires_grad_(True)
    b_ref = b.detach().clone().requires_grad_(True)
    (torch.nn.functional.silu(a_ref) * b_ref).sum().backward()
    torch.testing.assert_close(a.grad, a_ref.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(b.grad, b_ref.grad, rtol=1e-4, atol=1e-4)
    print(f"gated_units: forward and backward match PyTorch for {rows} rows "
          f"(kernel type {type(gated_silu).__module__}.{type(gated_silu).__name__})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
