"""Random kernel: family attention, seed 102 (tests/random_kernels)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel()
def rk_attention_102(q: torch.Tensor, kt: torch.Tensor, v: torch.Tensor):
    m, d = q.size()
    d2, n = kt.size()
    n2, dv = v.size()
    assert d == d2
    assert n == n2
    out = torch.empty([m, dv], dtype=q.dtype, device=q.device)
    for tile_m in hl.tile(m, block_size=32):
        m_i = hl.full([tile_m], float("-inf"), dtype=torch.float32)
        l_i = hl.zeros([tile_m], dtype=torch.float32)
        acc = hl.zeros([tile_m, dv], dtype=torch.float32)
        q_v = q[tile_m, :].to(torch.float32)
        for tile_n in hl.tile(n):
            s = torch.matmul(q_v, kt[:, tile_n].to(torch.float32)) * 0.18033688
            m_new = torch.maximum(m_i, torch.amax(s, -1))
            p = torch.exp2(s - m_new[:, None])
            alpha = torch.exp2(m_i - m_new)
            l_i = l_i * alpha + torch.sum(p, -1)
            acc = torch.addmm(acc * alpha[:, None], p.to(v.dtype), v[tile_n, :])
            m_i = m_new
        out[tile_m, :] = (acc / l_i[:, None]).to(out.dtype)
    return out
