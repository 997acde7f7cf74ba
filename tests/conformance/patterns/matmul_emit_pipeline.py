"""Pattern: matmul with an inner loop over k, launcher `emit_pipeline`.

The streamed operands stay in HBM (`pl.BlockSpec(memory_space=pl.ANY)`); the
inner tile loop is `pltpu.emit_pipeline(body, grid=..., in_specs=...)`, which
double-buffers their (16, 128) / (128, 128) blocks into VMEM. The index maps of
the inner specs close over the grid indices read with `pl.program_id` before
the pipeline. The loop-carried accumulator lives in a VMEM scratch: written
before the pipeline, read and written in the body, read after it.

emit_pipeline cannot stream a ragged last block in interpret mode (it fails
with a traced block size under interpret=True and an out-of-bounds DMA under
InterpretParams), so every streamed dim is zero-padded on the host.
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


def _matmul_kernel(x_hbm, y_hbm, out_ref, acc_scratch, *, k):
    tile_m = pl.program_id(0)
    tile_n = pl.program_id(1)
    # src: line 12
    acc_scratch[...] = jnp.zeros((16, 128), jnp.float32)

    # src: line 13
    def _loop_k_body(x_block, y_block):
        # src: line 14
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
        scratch_shapes=[pltpu.VMEM((16, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel")),
        interpret=interpret,
    )(x, y)
    return out[:m, :n]
