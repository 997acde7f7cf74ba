"""Pattern: elementwise add, grid only (no inner loop).

Hand-written in the style tessera's pallas-tpu backend emits. Grid dims that do
not divide the block are left as partial edge blocks: Pallas reads the edge
block padded and drops the out-of-range part of the write, which is correct
under interpret=True, interpret=pltpu.InterpretParams() and on TPU, as long as
no reduction mixes the padded rows/columns into valid ones.
"""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def _add_kernel(x_ref, y_ref, out_ref):
    # src: line 8
    out_ref[...] = x_ref[...] + y_ref[...]


def add(x, y, *, interpret=False):
    # src: line 5
    m, n = x.shape
    return pl.pallas_call(
        _add_kernel,
        grid=(pl.cdiv(m, 16), pl.cdiv(n, 128)),
        in_specs=[
            pl.BlockSpec((16, 128), lambda tile_m, tile_n: (tile_m, tile_n)),
            pl.BlockSpec((16, 128), lambda tile_m, tile_n: (tile_m, tile_n)),
        ],
        out_specs=pl.BlockSpec((16, 128), lambda tile_m, tile_n: (tile_m, tile_n)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel")),
        interpret=interpret,
    )(x, y)
