"""Pattern: two nested inner loops, launcher `emit_pipeline`.

Source shape: `for tile_m in hl.tile(m)` (grid) / `for tile_n in hl.tile(n)`
(level 1) / `for tile_k in hl.tile(k)` (level 2), `acc` carried by level 2,
`out[tile_m, tile_n] = acc` after it.

Level 1 is a pipeline that streams the output blocks (out_specs) and runs the
level-2 pipeline inside its body. Inside a pipeline body `pl.program_id(0)`
is that pipeline's own loop index, so the grid index (tile_m) and the level-1
index (tile_n) are read before the pipeline that needs them in an index map.
The read-back after level 2 (`acc = acc_scratch[...]`) binds a name local to
the level-1 body; loop-carried state never flows through Python names of an
enclosing scope (a body is traced once: `nonlocal` on a value either reads
the pre-loop value on every iteration or leaks a tracer; see README.md).
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


def _matmul_kernel(x_hbm, y_hbm, out_hbm, acc_scratch, *, k, n):
    tile_m = pl.program_id(0)

    def _loop_n_body(out_block):
        tile_n = pl.program_id(0)
        acc_scratch[...] = jnp.zeros((16, 128), jnp.float32)

        def _loop_k_body(x_block, y_block):
            acc_scratch[...] = acc_scratch[...] + jax.lax.dot_general(
                x_block[...], y_block[...], (((1,), (0,)), ((), ())),
                preferred_element_type=jnp.float32)

        pltpu.emit_pipeline(
            _loop_k_body,
            grid=(k // 128,),
            in_specs=[
                pl.BlockSpec((16, 128), lambda k_tile: (tile_m, k_tile)),
                pl.BlockSpec((128, 128), lambda k_tile: (k_tile, tile_n)),
            ],
        )(x_hbm, y_hbm)
        acc = acc_scratch[...]
        out_block[...] = acc.astype(out_block.dtype)

    pltpu.emit_pipeline(
        _loop_n_body,
        grid=(n // 128,),
        out_specs=[pl.BlockSpec((16, 128), lambda n_tile: (tile_m, n_tile))],
    )(out_hbm)


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
        scratch_shapes=[pltpu.VMEM((16, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        interpret=interpret,
    )(x, y)
    return out[:m, :n]
