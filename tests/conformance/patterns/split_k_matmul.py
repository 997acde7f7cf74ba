"""Pattern: split-K matmul with an atomic_add target (atomic-accumulator).

Source shape (Helion): `for tile_m, tile_n, outer_k in hl.tile([m, n, k],
block_size=[16, 128, 256])`, an inner loop over 128-wide tiles of outer_k
(unrolled here), then `hl.atomic_add(out, [tile_m, tile_n], acc)` into an
`out` the host zero-initialised.

The target's block (16, 128) does not map the split dim (grid dim 2), so:
  * `out` is passed in and aliased to the output (input_output_aliases) so the
    caller's initial values are honoured;
  * the atomic accumulates in a VMEM scratch (f32 also for a bf16 `out`, so
    bf16 does not round per cell), loaded from the aliased input on the first
    split cell and converted and written to the output block on the last;
  * the split dim is "arbitrary" and comes after the "parallel" ones: the
    output block is revisited on consecutive cells only, which the TPU
    interpreter accepts (it rejects a parallel dim after an arbitrary one).
"""
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


def _split_k_matmul_kernel(x_ref, y_ref, out_in_ref, out_ref, out_acc):
    outer_k = pl.program_id(2)

    @pl.when(outer_k == 0)
    def _load_atomic_target():
        out_acc[...] = out_in_ref[...].astype(jnp.float32)

    acc = jnp.zeros((16, 128), jnp.float32)
    for inner_k in range(256 // 128):
        k_start = pl.multiple_of(inner_k * 128, 128)
        acc = acc + jax.lax.dot_general(
            x_ref[:, pl.ds(k_start, 128)], y_ref[pl.ds(k_start, 128), :],
            (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32)
    # hl.atomic_add(out, [tile_m, tile_n], acc)
    out_acc[...] = out_acc[...] + acc.astype(jnp.float32)

    @pl.when(outer_k == pl.num_programs(2) - 1)
    def _store_atomic_target():
        out_ref[...] = out_acc[...].astype(out_ref.dtype)


def split_k_matmul(x, y, *, interpret=False):
    m, k = x.shape
    _, n = y.shape
    out = jnp.zeros((m, n), x.dtype)
    m_pad, k_pad, n_pad = _round_up(m, 16), _round_up(k, 256), _round_up(n, 128)
    x = _pad_to(x, (m_pad, k_pad))
    y = _pad_to(y, (k_pad, n_pad))
    out = _pad_to(out, (m_pad, n_pad))
    out = pl.pallas_call(
        _split_k_matmul_kernel,
        grid=(m_pad // 16, n_pad // 128, k_pad // 256),
        in_specs=[
            pl.BlockSpec((16, 256), lambda tile_m, tile_n, outer_k: (tile_m, outer_k)),
            pl.BlockSpec((256, 128), lambda tile_m, tile_n, outer_k: (outer_k, tile_n)),
            pl.BlockSpec((16, 128), lambda tile_m, tile_n, outer_k: (tile_m, tile_n)),
        ],
        out_specs=pl.BlockSpec((16, 128), lambda tile_m, tile_n, outer_k: (tile_m, tile_n)),
        out_shape=jax.ShapeDtypeStruct((m_pad, n_pad), out.dtype),
        scratch_shapes=[pltpu.VMEM((16, 128), jnp.float32)],
        input_output_aliases={2: 0},
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")),
        interpret=interpret,
    )(x, y, out)
    return out[:m, :n]

