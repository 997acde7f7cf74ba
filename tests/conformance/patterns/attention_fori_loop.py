"""Pattern: flash attention (loop-carried m_i, l_i, acc), launcher `fori_loop`.

k and v stay in HBM; the loop over key tiles is a jax.lax.fori_loop with a
two-slot prefetch of their (1, 128, head_dim) blocks (make_async_copy into VMEM
scratch, one DMA semaphore per operand and slot). m_i, l_i (pre-broadcast to
128 lanes) and acc are the fori_loop carry. Padded keys are masked to -inf.
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


def _attention_kernel(q_ref, k_hbm, v_hbm, out_ref, k_buffer, v_buffer, copy_sems,
                      *, seq_k, seq_k_padded, sm_scale):
    tile_b = pl.program_id(0)
    n_tiles = seq_k_padded // 128

    def _k_copy(n_tile, slot):
        return pltpu.make_async_copy(
            k_hbm.at[pl.ds(tile_b, 1), pl.ds(pl.multiple_of(n_tile * 128, 128), 128), :],
            k_buffer.at[slot], copy_sems.at[0, slot])

    def _v_copy(n_tile, slot):
        return pltpu.make_async_copy(
            v_hbm.at[pl.ds(tile_b, 1), pl.ds(pl.multiple_of(n_tile * 128, 128), 128), :],
            v_buffer.at[slot], copy_sems.at[1, slot])

    q = q_ref[...]
    m_i = jnp.full((1, 16, 128), -jnp.inf, jnp.float32)
    l_i = jnp.zeros((1, 16, 128), jnp.float32)
    acc = jnp.zeros((1, 16, 128), jnp.float32)
    _k_copy(0, 0).start()
    _v_copy(0, 0).start()

    def _loop_n_body(n_tile, carry):
        m_i, l_i, acc = carry
        slot = n_tile % 2

        @pl.when(n_tile + 1 < n_tiles)
        def _prefetch_next():
            _k_copy(n_tile + 1, 1 - slot).start()
            _v_copy(n_tile + 1, 1 - slot).start()

        _k_copy(n_tile, slot).wait()
        _v_copy(n_tile, slot).wait()
        k = k_buffer[slot]
        v = v_buffer[slot]
        qk = jax.lax.dot_general(
            q, k, (((2,), (2,)), ((0,), (0,))),
            preferred_element_type=jnp.float32) * sm_scale
        key_index = n_tile * 128 + jax.lax.broadcasted_iota(jnp.int32, qk.shape, 2)
        qk = jnp.where(key_index < seq_k, qk, -jnp.inf)
        m_ij = jnp.maximum(m_i, jnp.max(qk, axis=-1, keepdims=True))
        p = jnp.exp(qk - m_ij)
        alpha = jnp.exp(m_i - m_ij)
        l_i = l_i * alpha + jnp.sum(p, axis=-1, keepdims=True)
        acc = acc * alpha + jax.lax.dot_general(
            p.astype(v.dtype), v, (((2,), (1,)), ((0,), (0,))),
            preferred_element_type=jnp.float32)
        return m_ij, l_i, acc

    m_i, l_i, acc = jax.lax.fori_loop(0, n_tiles, _loop_n_body, (m_i, l_i, acc))
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
            pltpu.VMEM((2, 1, 128, 128), k.dtype),
            pltpu.VMEM((2, 1, 128, 128), v.dtype),
            pltpu.SemaphoreType.DMA((2, 2)),
        ],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel")),
        interpret=interpret,
    )(q, k, v)
    return out[:, :seq_q, :]
