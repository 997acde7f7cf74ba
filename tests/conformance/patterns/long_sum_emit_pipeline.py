"""Pattern: long_sum (row sums with an inner loop over n), launcher `emit_pipeline`.

Source shape: grid over tile_m, `acc = hl.zeros([tile_m])`, inner loop
`acc += x[tile_m, tile_n].sum(-1)`, `out[tile_m] = acc`.

The 1-D output `out[m]` is produced as an (m, 1) array whose (16, 1) blocks
are legal (1 equals the full dim), then reshaped on the host; a (16,) rank-1
block is rejected by the TPU lowering. Inside the kernel the accumulator keeps
its source shape (16,) in a (16,) VMEM scratch; the store adds the trailing
unit dim with `[:, None]`. n is zero-padded to the inner block (zero is
neutral for the sum, so no mask is needed).
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


def _long_sum_kernel(x_hbm, out_ref, acc_scratch, *, n):
    tile_m = pl.program_id(0)
    acc_scratch[...] = jnp.zeros((16,), jnp.float32)

    def _loop_n_body(x_block):
        acc_scratch[...] = acc_scratch[...] + jnp.sum(
            x_block[...].astype(jnp.float32), axis=-1)

    pltpu.emit_pipeline(
        _loop_n_body,
        grid=(n // 256,),
        in_specs=[pl.BlockSpec((16, 256), lambda n_tile: (tile_m, n_tile))],
    )(x_hbm)
    acc = acc_scratch[...]
    out_ref[...] = acc[:, None].astype(out_ref.dtype)


def long_sum(x, *, interpret=False):
    m, n = x.shape
    m_pad, n_pad = _round_up(m, 16), _round_up(n, 256)
    x = _pad_to(x, (m_pad, n_pad))
    out = pl.pallas_call(
        functools.partial(_long_sum_kernel, n=n_pad),
        grid=(m_pad // 16,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((16, 1), lambda tile_m: (tile_m, 0)),
        out_shape=jax.ShapeDtypeStruct((m_pad, 1), x.dtype),
        scratch_shapes=[pltpu.VMEM((16,), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        interpret=interpret,
    )(x)
    return out[:m, 0]
