"""Pattern: matmul with an inner loop over k, launcher `fori_loop`.

The streamed operands stay in HBM (`pl.ANY`); the inner tile loop is a
`jax.lax.fori_loop` whose body waits for the DMA of its tiles into a two-slot
VMEM scratch (`pltpu.make_async_copy` + `pltpu.SemaphoreType.DMA`). Two-slot
prefetch: copy 0 is started before the loop, and iteration j starts copy j+1
into the other slot before waiting on copy j. The loop-carried accumulator is
the fori_loop carry. Every streamed dim is zero-padded on the host: a DMA of a
block that runs past the array is an out-of-bounds error in InterpretParams.
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


def _matmul_kernel(x_hbm, y_hbm, out_ref, x_buffer, y_buffer, copy_sems, *, k):
    tile_m = pl.program_id(0)
    tile_n = pl.program_id(1)
    k_tiles = k // 128

    def _x_copy(k_tile, slot):
        return pltpu.make_async_copy(
            x_hbm.at[pl.ds(tile_m * 16, 16), pl.ds(pl.multiple_of(k_tile * 128, 128), 128)],
            x_buffer.at[slot], copy_sems.at[0, slot])

    def _y_copy(k_tile, slot):
        return pltpu.make_async_copy(
            y_hbm.at[pl.ds(pl.multiple_of(k_tile * 128, 128), 128), pl.ds(tile_n * 128, 128)],
            y_buffer.at[slot], copy_sems.at[1, slot])

    # src: line 12
    acc = jnp.zeros((16, 128), jnp.float32)
    _x_copy(0, 0).start()
    _y_copy(0, 0).start()

    # src: line 13
    def _loop_k_body(k_tile, acc):
        slot = k_tile % 2

        @pl.when(k_tile + 1 < k_tiles)
        def _prefetch_next():
            _x_copy(k_tile + 1, 1 - slot).start()
            _y_copy(k_tile + 1, 1 - slot).start()

        _x_copy(k_tile, slot).wait()
        _y_copy(k_tile, slot).wait()
        # src: line 14
        acc = acc + jax.lax.dot_general(
            x_buffer[slot], y_buffer[slot], (((1,), (0,)), ((), ())),
            preferred_element_type=jnp.float32)
        return acc

    acc = jax.lax.fori_loop(0, k_tiles, _loop_k_body, acc)
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
            pl.BlockSpec(memory_space=pl.ANY),
            pl.BlockSpec(memory_space=pl.ANY),
        ],
        out_specs=pl.BlockSpec((16, 128), lambda tile_m, tile_n: (tile_m, tile_n)),
        out_shape=jax.ShapeDtypeStruct((m_pad, n_pad), x.dtype),
        scratch_shapes=[
            pltpu.VMEM((2, 16, 128), x.dtype),
            pltpu.VMEM((2, 128, 128), y.dtype),
            pltpu.SemaphoreType.DMA((2, 2)),
        ],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel")),
        interpret=interpret,
    )(x, y)
    return out[:m, :n]
