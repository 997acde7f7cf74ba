"""Pattern: flash attention (loop-carried m_i, l_i, acc), launcher `emit_pipeline`.

k and v stay in HBM and are streamed in (1, 128, head_dim) blocks by
pltpu.emit_pipeline; q keeps its outer BlockSpec (it is used outside the
loop). The loop-carried m_i, l_i, acc live in VMEM scratch: initialised before
the pipeline, read and written in the body, read after it. m_i and l_i are
pre-broadcast to 128 lanes ((1, 16, 128), as the pre-broadcast pass emits), so
`[..., None]` on them disappears; with head_dim == 128 the consumers take them
as they are (head_dim 256 would need jnp.tile(x, (1, 1, 2))).

The body reads the captured q value (closure constant, fine) and never assigns
a captured name; the kernel reassigns `acc` from its scratch after the
pipeline at its own scope, so no `nonlocal` is needed here (see
nested_emit_pipeline.py for the case that needs one).
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


def _attention_kernel(q_ref, k_hbm, v_hbm, out_ref, m_i_scratch, l_i_scratch, acc_scratch,
                      *, seq_k, seq_k_padded, sm_scale):
    tile_b = pl.program_id(0)
    q = q_ref[...]
    m_i_scratch[...] = jnp.full((1, 16, 128), -jnp.inf, jnp.float32)
    l_i_scratch[...] = jnp.zeros((1, 16, 128), jnp.float32)
    acc_scratch[...] = jnp.zeros((1, 16, 128), jnp.float32)

    def _loop_n_body(k_block, v_block):
        n_start = pl.multiple_of(pl.program_id(0) * 128, 128)
        m_i = m_i_scratch[...]
        k = k_block[...]
        v = v_block[...]
        qk = jax.lax.dot_general(
            q, k, (((2,), (2,)), ((0,), (0,))),
            preferred_element_type=jnp.float32) * sm_scale
        key_index = n_start + jax.lax.broadcasted_iota(jnp.int32, qk.shape, 2)
        qk = jnp.where(key_index < seq_k, qk, -jnp.inf)
        m_ij = jnp.maximum(m_i, jnp.max(qk, axis=-1, keepdims=True))
        p = jnp.exp(qk - m_ij)
        alpha = jnp.exp(m_i - m_ij)
        l_i_scratch[...] = l_i_scratch[...] * alpha + jnp.sum(p, axis=-1, keepdims=True)
        acc_scratch[...] = acc_scratch[...] * alpha + jax.lax.dot_general(
            p.astype(v.dtype), v, (((2,), (1,)), ((0,), (0,))),
            preferred_element_type=jnp.float32)
        m_i_scratch[...] = m_ij

    pltpu.emit_pipeline(
        _loop_n_body,
        grid=(seq_k_padded // 128,),
        in_specs=[
            pl.BlockSpec((1, 128, 128), lambda n_tile: (tile_b, n_tile, 0)),
            pl.BlockSpec((1, 128, 128), lambda n_tile: (tile_b, n_tile, 0)),
        ],
    )(k_hbm, v_hbm)
    acc = acc_scratch[...]
    l_i = l_i_scratch[...]
    out_ref[...] = (acc / l_i).astype(out_ref.dtype)


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
            pl.BlockSpec((1, 16, 128), lambda tile_b, tile_m: (tile_b, tile_m, 0)),
            pl.BlockSpec(memory_space=pl.ANY),
            pl.BlockSpec(memory_space=pl.ANY),
        ],
        out_specs=pl.BlockSpec((1, 16, 128), lambda tile_b, tile_m: (tile_b, tile_m, 0)),
        out_shape=jax.ShapeDtypeStruct((batch_heads, seq_q_padded, head_dim), q.dtype),
        scratch_shapes=[
            pltpu.VMEM((1, 16, 128), jnp.float32),
            pltpu.VMEM((1, 16, 128), jnp.float32),
            pltpu.VMEM((1, 16, 128), jnp.float32),
        ],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel")),
        interpret=interpret,
    )(q, k, v)
    return out[:, :seq_q, :]
