"""Pattern: matmul with an inner loop over k, launcher `unroll`.

The inner tile loop becomes a Python `for` over a static trip count; the
operands keep their outer BlockSpec with the inner (k) dim whole and every
inner tile is a `pl.ds(pl.multiple_of(k_tile * 128, 128), 128)` slice of the
VMEM block. The loop-carried accumulator is a plain value.

A k that does not divide the inner block is zero-padded on the host (zero is
neutral for the dot); m and n are padded the same way and the result sliced.
"""
import functools

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


def _matmul_kernel(x_ref, y_ref, out_ref, *, k):
    # src: line 12
    acc = jnp.zeros((16, 128), jnp.float32)
    # src: line 13
    for k_tile in range(k // 128):
        k_start = pl.multiple_of(k_tile * 128, 128)
        # src: line 14
        acc = acc + jax.lax.dot_general(
            x_ref[:, pl.ds(k_start, 128)], y_ref[pl.ds(k_start, 128), :],
            (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)
    # src: line 15
    out_ref[...] = acc.astype(out_ref.dtype)


def matmul(x, y, *, interpret=False):
    # src: line 6
    m, k = x.shape
    # src: line 7
    _, n = y.shape
    m_pad, k_pad, n_pad = _round_up(m, 16), _round_up(k, 128), _round_up(n, 128)
    x = _pad_to(x, (m_pad, k_pad))
    y = _pad_to(y, (k_pad, n_pad))
    out = pl.pallas_call(
        functools.partial(_matmul_kernel, k=k_pad),
        grid=(m_pad // 16, n_pad // 128),
        in_specs=[
            pl.BlockSpec((16, k_pad), lambda tile_m, tile_n: (tile_m, 0)),
            pl.BlockSpec((k_pad, 128), lambda tile_m, tile_n: (0, tile_n)),
        ],
        out_specs=pl.BlockSpec((16, 128), lambda tile_m, tile_n: (tile_m, tile_n)),
        out_shape=jax.ShapeDtypeStruct((m_pad, n_pad), x.dtype),
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel")),
        interpret=interpret,
    )(x, y)
    return out[:m, :n]
