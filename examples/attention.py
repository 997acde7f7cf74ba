"""
Flash attention
===============

softmax(q @ k^T / sqrt(head_dim)) @ v, computed blockwise over the keys with
the running row maximum `m_i`, the running row sum `l_i` and the output
accumulator `acc` carried through the loop (online softmax, base 2).
q, k and v are [..., seq, head_dim]; the leading dims are flattened.
"""

from __future__ import annotations

import math

import torch

import helion
import helion.language as hl


def _reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    scores = q.float() @ k.float().transpose(-2, -1) / math.sqrt(q.size(-1))
    return (torch.softmax(scores, dim=-1) @ v.float()).to(q.dtype)


@helion.kernel(static_shapes=True)
def attention(
    q_in: torch.Tensor,
    k_in: torch.Tensor,
    v_in: torch.Tensor,
) -> torch.Tensor:
    """Scaled dot-product attention (no mask)."""
    m_dim = q_in.size(-2)
    n_dim = k_in.size(-2)
    assert n_dim == v_in.size(-2)
    head_dim = hl.specialize(q_in.size(-1))
    assert head_dim == k_in.size(-1) == v_in.size(-1)
    q_view = q_in.reshape([-1, m_dim, head_dim])
    v_view = v_in.reshape([-1, n_dim, head_dim])
    k_view = k_in.reshape([-1, n_dim, head_dim])
    out = torch.empty_like(q_view)
    sm_scale = 1.0 / math.sqrt(head_dim)
    qk_scale = sm_scale * 1.44269504  # 1 / ln(2): exp2 instead of exp
    for tile_b, tile_m in hl.tile([q_view.size(0), m_dim]):
        m_i = hl.full([tile_b, tile_m], float("-inf"), dtype=torch.float32)
        l_i = torch.full_like(m_i, 1.0)
        acc = hl.zeros([tile_b, tile_m, head_dim], dtype=torch.float32)
        q = q_view[tile_b, tile_m, :]
        for tile_n in hl.tile(v_view.size(1)):
            k = k_view[tile_b, tile_n, :]
            qk = torch.bmm(q, k.transpose(1, 2), out_dtype=torch.float32)
            m_ij = torch.maximum(m_i, torch.amax(qk, -1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, :, None]
            p = torch.exp2(qk)
            l_ij = torch.sum(p, -1)
            alpha = torch.exp2(m_i - m_ij)
            l_i = l_i * alpha + l_ij
            acc = acc * alpha[:, :, None]
            v = v_view[tile_b, tile_n, :]
            p = p.to(v.dtype)
            acc = torch.baddbmm(acc, p, v)
            m_i = m_ij
        acc = acc / l_i[:, :, None]
        out[tile_b, tile_m, :] = acc.to(out.dtype)
    return out.view(q_in.size())


def check(z: int, h: int, n_ctx: int, head_dim: int) -> None:
    q, k, v = [
        torch.randn((z, h, n_ctx, head_dim), dtype=torch.float16, device="cuda")
        for _ in range(3)
    ]
    torch.testing.assert_close(
        attention(q, k, v), _reference(q, k, v), rtol=2e-2, atol=2e-2
    )


def main() -> None:
    check(2, 32, 1024, 64)


if __name__ == "__main__":
    main()
