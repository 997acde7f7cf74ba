"""Pattern: two nested inner loops, launcher `fori_loop`.

Source shape as nested_emit_pipeline.py: grid over m, level 1 over n tiles
(stores an output block per iteration), level 2 over k tiles (carries acc).
Level 2 is a fori_loop with the two-slot prefetch of x and y tiles; it is
restarted for every level-1 iteration (prime copy 0 of this n tile, start copy
j+1 before waiting on copy j), so no DMA is in flight when level 2 ends. The
output block of each level-1 iteration is written into a VMEM scratch and
copied to the HBM output (synchronously: started and waited at once).
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


def _matmul_kernel(x_hbm, y_hbm, out_hbm, x_buffer, y_buffer, out_buffer, copy_sems,
                   *, k, n):
    tile_m = pl.program_id(0)
    k_tiles = k // 128

    def _x_copy(k_tile, slot):
        return pltpu.make_async_copy(
            x_hbm.at[pl.ds(tile_m * 16, 16), pl.ds(pl.multiple_of(k_tile * 128, 128), 128)],
            x_buffer.at[slot], copy_sems.at[0, slot])

    def _y_copy(n_tile, k_tile, slot):
        return pltpu.make_async_copy(
            y_hbm.at[pl.ds(pl.multiple_of(k_tile * 128, 128), 128),
                     pl.ds(pl.multiple_of(n_tile * 128, 128), 128)],
            y_buffer.at[slot], copy_sems.at[1, slot])

    def _out_copy(n_tile):
        return pltpu.make_async_copy(
            out_buffer,
            out_hbm.at[pl.ds(tile_m * 16, 16), pl.ds(pl.multiple_of(n_tile * 128, 128), 128)],
            copy_sems.at[2, 0])

    def _loop_n_body(n_tile, carry):
        acc = jnp.zeros((16, 128), jnp.float32)
        _x_copy(0, 0).start()
        _y_copy(n_tile, 0, 0).start()

        def _loop_k_body(k_tile, acc):
            slot = k_tile % 2

            @pl.when(k_tile + 1 < k_tiles)
            def _prefetch_next():
                _x_copy(k_tile + 1, 1 - slot).start()
                _y_copy(n_tile, k_tile + 1, 1 - slot).start()

            _x_copy(k_tile, slot).wait()
            _y_copy(n_tile, k_tile, slot).wait()
            acc = acc + jax.lax.dot_general(
                x_buffer[slot], y_buffer[slot], (((1,), (0,)), ((), ())),
                preferred_element_type=jnp.float32)
            return acc

        acc = jax.lax.fori_loop(0, k_tiles, _loop_k_body, acc)
        out_buffer[...] = acc.astype(out_buffer.dtype)
        out_copy = _out_copy(n_tile)
        out_copy.start()
        out_copy.wait()
        return carry

    jax.lax.fori_loop(0, n // 128, _loop_n_body, 0)


def matmul(x, y, *, interpret=False):
    m, k = x.shape
    _, n = y.shape
    m_pad, k_pad, n_pad = _round_up(m, 16), _round_up(k, 128), _round_up(n, 128)
    x = _pad_to(x, (m_pad, k_pad))
    y = _pad_to(y, (k_pad, n_pad))
    out = pl.pallas_call(
        functools.partial(_matmul_kernel, k=k_pad, n=n_pad),
        grid=(m_pad // 16,),
        in_specs=[
            pl.BlockSpec(memory_space=pl.ANY),
            pl.BlockSpec(memory_space=pl.ANY),
        ],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        out_shape=jax.ShapeDtypeStruct((m_pad, n_pad), x.dtype),
        scratch_shapes=[
            pltpu.VMEM((2, 16, 128), x.dtype),
            pltpu.VMEM((2, 128, 128), y.dtype),
            pltpu.VMEM((16, 128), x.dtype),
            pltpu.SemaphoreType.DMA((3, 2)),
        ],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        interpret=interpret,
    )(x, y)
    return out[:m, :n]
