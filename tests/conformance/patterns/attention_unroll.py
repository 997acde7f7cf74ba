"""Pattern: flash attention (loop-carried m_i, l_i, acc), launcher `unroll`.

q, k, v: [batch*heads, seq, head_dim]. The grid is (batch*heads, q tiles); the
inner loop over key tiles is a Python `for`, k and v keep their outer BlockSpec
with the whole (padded) sequence and each key tile is a pl.ds slice. The row
statistics m_i, l_i are plain (1, 16) values broadcast with [:, :, None].

seq_k is zero-padded to a multiple of the key block on the host; zero keys are
not neutral for the softmax, so the scores of padded keys are masked to -inf
with an iota over the global key index.
"""
import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _round_up(size, multiple):
    return (size + multiple - 1) // multiple * multiple


def _pad_to(array, shape):
    if array.shape == tuple(shape):
        return array
    return jnp.pad(array, [(0, want - have) for have, want in zip(array.shape, shape)])


def _attention_kernel(q_ref, k_ref, v_ref, out_ref, *, seq_k, seq_k_padded, sm_scale):
    q = q_ref[...]
    m_i = jnp.full((1, 16), -jnp.inf, jnp.float32)
    l_i = jnp.zeros((1, 16), jnp.float32)
    acc = jnp.zeros((1, 16, q.shape[2]), jnp.float32)
    for n_tile in range(seq_k_padded // 128):
        n_start = pl.multiple_of(n_tile * 128, 128)
        k = k_ref[:, pl.ds(n_start, 128), :]
        v = v_ref[:, pl.ds(n_start, 128), :]
        qk = jax.lax.dot_general(
            q, k, (((2,), (2,)), ((0,), (0,))),
            preferred_element_type=jnp.float32) * sm_scale
        key_index = n_start + jax.lax.broadcasted_iota(jnp.int32, qk.shape, 2)
        qk = jnp.where(key_index < seq_k, qk, -jnp.inf)
        m_ij = jnp.maximum(m_i, jnp.max(qk, axis=-1))
        p = jnp.exp(qk - m_ij[:, :, None])
        alpha = jnp.exp(m_i - m_ij)
        l_i = l_i * alpha + jnp.sum(p, axis=-1)
        acc = acc * alpha[:, :, None] + jax.lax.dot_general(
            p.astype(v.dtype), v, (((2,), (1,)), ((0,), (0,))),
            preferred_element_type=jnp.float32)
        m_i = m_ij
    out_ref[...] = (acc / l_i[:, :, None]).astype(out_ref.dtype)


def attention(q, k, v, *, interpret=False):
    batch_heads, seq_q, head_dim = q.shape
    seq_k = k.shape[1]
    seq_q_padded, seq_k_padded = _round_up(seq_q, 16), _round_up(seq_k, 128)
    q = _pad_to(q, (batch_heads, seq_q_padded, head_dim))
    k = _pad_to(k, (batch_heads, seq_k_padded, head_dim))
    v = _pad_to(v, (batch_heads, seq_k_padded, head_dim))
    out = pl.pallas_call(
        functools.partial(_attention_kernel, seq_k=seq_k, seq_k_padded=seq_k_padded,
                          sm_scale=1.0 / math.sqrt(head_dim)),
        grid=(batch_heads, seq_q_padded // 16),
        in_specs=[
            pl.BlockSpec((1, 16, head_dim), lambda tile_b, tile_m: (tile_b, tile_m, 0)),
            pl.BlockSpec((1, seq_k_padded, head_dim), lambda tile_b, tile_m: (tile_b, 0, 0)),
            pl.BlockSpec((1, seq_k_padded, head_dim), lambda tile_b, tile_m: (tile_b, 0, 0)),
        ],
        out_specs=pl.BlockSpec((1, 16, head_dim), lambda tile_b, tile_m: (tile_b, tile_m, 0)),
        out_shape=jax.ShapeDtypeStruct((batch_heads, seq_q_padded, head_dim), q.dtype),
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel")),
        interpret=interpret,
    )(q, k, v)
    return out[:, :seq_q, :]
