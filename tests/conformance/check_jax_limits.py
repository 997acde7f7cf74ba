"""Asserts the JAX 0.10.2 behaviours the patterns and the README rely on.

Each check states one fact (the README's "Facts" section quotes these names);
if a JAX upgrade changes one, this test says which. Exit status 1 on any
mismatch.
"""
import functools
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import conformance_lib as lib

FACTS = []


def fact(function):
    FACTS.append(function)
    return function


def _raises(call, exception_type, text):
    """Runs call(); returns (ok, detail) requiring exception_type with text."""
    try:
        call()
    except exception_type as error:
        message = str(error)
        if text in message:
            return True, f"{type(error).__name__}: ...{text}..."
        return False, f"{type(error).__name__} without '{text}': {message[:200]}"
    except Exception as error:
        return False, f"expected {exception_type.__name__}, got {lib.short_error(error)}"
    return False, f"expected {exception_type.__name__}, no error"


def _interpret(mode):
    return lib.INTERPRET_MODES[mode]()


# --- a small emit_pipeline kernel: row sums of x[8, n] over 128-wide tiles ---

def _row_sum_kernel(x_hbm, out_ref, acc_scratch, *, n, block):
    acc_scratch[...] = jnp.zeros((8, block), jnp.float32)

    def _body(x_block):
        acc_scratch[...] = acc_scratch[...] + x_block[...]

    pltpu.emit_pipeline(_body, grid=(pl.cdiv(n, block),),
                        in_specs=[pl.BlockSpec((8, block), lambda j: (0, j))])(x_hbm)
    out_ref[...] = acc_scratch[...]


def _row_sum(x, *, interpret=False, block=128):
    return pl.pallas_call(
        functools.partial(_row_sum_kernel, n=x.shape[1], block=block),
        grid=(1,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((8, block), lambda i: (0, 0)),
        out_shape=jax.ShapeDtypeStruct((8, block), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, block), jnp.float32)],
        interpret=interpret,
    )(x)


@fact
def emit_pipeline_needs_abstract_tpu_mesh():
    x = jnp.ones((8, 256), jnp.float32)
    for mode in lib.INTERPRET_MODES:
        ok, detail = _raises(lambda: _row_sum(x, interpret=_interpret(mode)),
                             ValueError, "Unsupported TPU device kind: cpu")
        if not ok:
            return False, f"{mode}: {detail}"
    with lib.on_abstract_tpu():
        result = _row_sum(x, interpret=True)
    if not np.allclose(np.asarray(result), 2.0):
        return False, "wrong result under the abstract mesh"
    return True, "fails on the CPU device, works under use_abstract_mesh"


@fact
def emit_pipeline_export_needs_abstract_tpu_mesh():
    x = jax.ShapeDtypeStruct((8, 256), jnp.float32)
    ok, detail = _raises(lambda: jax.export.export(jax.jit(_row_sum), platforms=["tpu"])(x),
                         ValueError, "Unsupported TPU device kind: cpu")
    if not ok:
        return False, detail
    with lib.on_abstract_tpu():
        jax.export.export(jax.jit(_row_sum), platforms=["tpu"])(x)
    return True, "export also needs use_abstract_mesh"


@fact
def emit_pipeline_rejects_ragged_blocks_in_interpret_mode():
    x = jnp.ones((8, 200), jnp.float32)
    with lib.on_abstract_tpu():
        ok, detail = _raises(lambda: _row_sum(x, interpret=True), TypeError,
                             "Shapes must be 1D sequences of concrete values")
        if not ok:
            return False, f"interpret=True: {detail}"
        ok, detail = _raises(lambda: jax.block_until_ready(
            _row_sum(x, interpret=pltpu.InterpretParams())), Exception, "Out-of-bounds read")
        if not ok:
            return False, f"InterpretParams: {detail}"
    return True, "pad streamed dims to a multiple of the block on the host"


def _revisit_kernel(x_ref, out_in_ref, out_ref):
    out_ref[...] = out_in_ref[...] + x_ref[...]


def _sum_over_leading_dim(x, *, interpret=False, semantics=("arbitrary", "parallel")):
    """out[8, 128] += x[s*8, 128] block by block; grid (s, 1) with s first."""
    out = jnp.zeros((8, 128), x.dtype)
    return pl.pallas_call(
        _revisit_kernel,
        grid=(x.shape[0] // 8, 1),
        in_specs=[pl.BlockSpec((8, 128), lambda s, j: (s, j)),
                  pl.BlockSpec((8, 128), lambda s, j: (0, j))],
        out_specs=pl.BlockSpec((8, 128), lambda s, j: (0, j)),
        out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),
        input_output_aliases={1: 0},
        compiler_params=pltpu.CompilerParams(dimension_semantics=semantics),
        interpret=interpret,
    )(x, out)


@fact
def tpu_interpreter_rejects_parallel_after_arbitrary():
    x = jnp.ones((32, 128), jnp.float32)
    with lib.on_abstract_tpu():
        ok, detail = _raises(lambda: jax.block_until_ready(_sum_over_leading_dim(
            x, interpret=pltpu.InterpretParams())), ValueError,
            "Dimensions with parallel semantics must form a prefix of the grid")
        if not ok:
            return False, detail
        _sum_over_leading_dim(x, interpret=True)  # interpret=True does not check.
    return True, "order 'parallel' dims before 'arbitrary' ones"


@fact
def export_checks_the_8_128_block_rule():
    def copy_kernel(x_ref, out_ref):
        out_ref[...] = x_ref[...]

    def copy(x, block):
        return pl.pallas_call(
            copy_kernel, grid=(x.shape[0] // block[0], x.shape[1] // block[1]),
            in_specs=[pl.BlockSpec(block, lambda i, j: (i, j))],
            out_specs=pl.BlockSpec(block, lambda i, j: (i, j)),
            out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    def export(shape, block, dtype=jnp.float32):
        function = functools.partial(copy, block=block)
        return jax.export.export(jax.jit(function), platforms=["tpu"])(
            jax.ShapeDtypeStruct(shape, dtype))

    for shape, block in (((16, 256), (4, 128)), ((16, 256), (8, 64))):
        ok, detail = _raises(lambda: export(shape, block), ValueError,
                             "divisible by 8 and 128 respectively")
        if not ok:
            return False, f"block {block}: {detail}"
    export((16, 256), (8, 128))
    export((20, 200), (20, 200))             # equal to the full dims: legal
    export((32, 256), (8, 128), jnp.bfloat16)  # JAX itself only checks 8 for bf16
    return True, "(8,128) or full dim; 16-row bf16 blocks are tessera's own stricter rule"


@fact
def rank_1_blocks_are_restricted():
    def row_sum_kernel(x_ref, out_ref):
        out_ref[...] = jnp.sum(x_ref[...], axis=1)

    def row_sum(x):
        return pl.pallas_call(
            row_sum_kernel, grid=(x.shape[0] // 16,),
            in_specs=[pl.BlockSpec((16, x.shape[1]), lambda i: (i, 0))],
            out_specs=pl.BlockSpec((16,), lambda i: (i,)),
            out_shape=jax.ShapeDtypeStruct((x.shape[0],), x.dtype))(x)

    def export():
        return jax.export.export(jax.jit(row_sum), platforms=["tpu"])(
            jax.ShapeDtypeStruct((64, 256), jnp.float32))

    with lib.on_abstract_tpu():
        ok, detail = _raises(export, ValueError, "rank 1 block")
    return ok, "pass 1-D arrays as (1, n) / (m, 1)" if ok else detail


@fact
def removed_api_names():
    missing = [name for module, name in ((pl, "load"), (pl, "store"),
                                         (pltpu, "TPUCompilerParams"),
                                         (pltpu, "ANY"), (pltpu, "repeat"))
               if hasattr(module, name)]
    if missing:
        return False, f"unexpectedly present: {missing}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(pl, "dot")
    if not any("deprecated" in str(w.message) for w in caught):
        return False, "pl.dot is no longer deprecated?"
    if not all(callable(getattr(pl, n)) for n in ("ds", "multiple_of", "when", "program_id",
                                                   "num_programs", "cdiv")):
        return False, "a baseline pl name is missing"
    return True, "pl.load/store, TPUCompilerParams, pltpu.ANY, pltpu.repeat absent; pl.dot deprecated"


def _export_elementwise(op):
    def kernel(x_ref, out_ref):
        out_ref[...] = op(x_ref[...])

    def function(x):
        return pl.pallas_call(
            kernel, grid=(1,),
            in_specs=[pl.BlockSpec((16, 128), lambda i: (0, 0))],
            out_specs=pl.BlockSpec((16, 128), lambda i: (0, 0)),
            out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32))(x)

    return jax.export.export(jax.jit(function), platforms=["tpu"])(
        jax.ShapeDtypeStruct((16, 128), jnp.float32))


@fact
def exact_gelu_needs_erf_not_erfc():
    ok, detail = _raises(lambda: _export_elementwise(
        lambda x: jax.nn.gelu(x, approximate=False)), NotImplementedError, "erfc")
    if not ok:
        return False, f"jax.nn.gelu(approximate=False): {detail}"
    _export_elementwise(lambda x: 0.5 * x * (1.0 + jax.lax.erf(x * 0.7071067811865476)))
    _export_elementwise(lambda x: jnp.tile(x, (1, 2))[:, :128])
    return True, "write exact gelu as 0.5*x*(1+lax.erf(x/sqrt(2))); jnp.tile lowers"


def _carry_kernel_plain(x_hbm, out_ref, acc_scratch):
    acc_scratch[...] = jnp.zeros((8, 128), jnp.float32)

    def _body(x_block):
        acc_scratch[...] = acc_scratch[...] + x_block[...]

    pltpu.emit_pipeline(_body, grid=(4,),
                        in_specs=[pl.BlockSpec((8, 128), lambda j: (0, j))])(x_hbm)
    out_ref[...] = acc_scratch[...]


# Built from text so that this file stays pyflakes-clean: pyflakes reports this
# body ("local variable 'total' ... referenced before assignment"), which is
# why the harness runs pyflakes on every generated module.
_UNBOUND_SOURCE = """
def _carry_kernel_unbound(x_hbm, out_ref, acc_scratch):
    total = jnp.zeros((8, 128), jnp.float32)
    acc_scratch[...] = total

    def _body(x_block):
        acc_scratch[...] = total + x_block[...]
        total = acc_scratch[...]

    pltpu.emit_pipeline(_body, grid=(4,),
                        in_specs=[pl.BlockSpec((8, 128), lambda j: (0, j))])(x_hbm)
    out_ref[...] = acc_scratch[...]
"""
_unbound_namespace = {"jnp": jnp, "pl": pl, "pltpu": pltpu}
exec(_UNBOUND_SOURCE, _unbound_namespace)
_carry_kernel_unbound = _unbound_namespace["_carry_kernel_unbound"]


def _carry_kernel_nonlocal_stale(x_hbm, out_ref, acc_scratch):
    total = jnp.zeros((8, 128), jnp.float32)
    acc_scratch[...] = total

    def _body(x_block):
        nonlocal total
        acc_scratch[...] = total + x_block[...]
        total = acc_scratch[...]

    pltpu.emit_pipeline(_body, grid=(4,),
                        in_specs=[pl.BlockSpec((8, 128), lambda j: (0, j))])(x_hbm)
    out_ref[...] = acc_scratch[...]


def _carry_kernel_nonlocal_leak(x_hbm, out_ref, acc_scratch):
    total = jnp.zeros((8, 128), jnp.float32)
    acc_scratch[...] = total

    def _body(x_block):
        nonlocal total
        total = acc_scratch[...] + x_block[...]
        acc_scratch[...] = total

    pltpu.emit_pipeline(_body, grid=(4,),
                        in_specs=[pl.BlockSpec((8, 128), lambda j: (0, j))])(x_hbm)
    out_ref[...] = total


def _carry_call(kernel, x, *, interpret=False):
    return pl.pallas_call(
        kernel, grid=(1,), in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)], interpret=interpret)(x)


@fact
def loop_carried_values_must_not_flow_through_python_names():
    arrays, exact = lib.make_inputs([((8, 512), jnp.float32)], seed=0)
    expected = exact[0].reshape(8, 4, 128).sum(axis=1)
    x = arrays[0]
    with lib.on_abstract_tpu():
        ok, detail = lib.compare(_carry_call(_carry_kernel_plain, x, interpret=True), expected)
        if not ok:
            return False, f"scratch-carried: {detail}"
        ok, detail = _raises(lambda: _carry_call(_carry_kernel_unbound, x, interpret=True),
                             UnboundLocalError, "total")
        if not ok:
            return False, f"read-then-assign without nonlocal: {detail}"
        stale = _carry_call(_carry_kernel_nonlocal_stale, x, interpret=True)
        if lib.compare(stale, expected)[0]:
            return False, "nonlocal read of a captured value was expected to be stale"
        ok, detail = _raises(lambda: _carry_call(_carry_kernel_nonlocal_leak, x, interpret=True),
                             ValueError, "captures constants")
        if not ok:
            return False, f"nonlocal value read after the pipeline: {detail}"
    return True, ("assign-after-read without nonlocal: UnboundLocalError; with nonlocal: "
                  "stale pre-loop value each iteration, or a leaked tracer after the loop")


@fact
def kernels_must_not_capture_host_arrays():
    bias = jnp.ones((8, 128), jnp.float32)

    def kernel(x_ref, out_ref):
        out_ref[...] = x_ref[...] + bias

    def function(x):
        return pl.pallas_call(
            kernel, grid=(1,), in_specs=[pl.BlockSpec((8, 128), lambda i: (0, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
            out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), interpret=True)(x)

    return _raises(lambda: function(jnp.ones((8, 128), jnp.float32)), ValueError,
                   "captures constants")


@fact
def program_id_in_a_pipeline_body_is_the_pipeline_index():
    def kernel(x_hbm, out_ref, ids_scratch):
        tile = pl.program_id(0)
        ids_scratch[...] = jnp.zeros((8, 128), jnp.float32)

        def _body(x_block):
            ids_scratch[...] = ids_scratch[...] + (pl.program_id(0) * 10 + tile).astype(jnp.float32)

        pltpu.emit_pipeline(_body, grid=(3,),
                            in_specs=[pl.BlockSpec((8, 128), lambda j: (0, j))])(x_hbm)
        out_ref[...] = ids_scratch[...]

    def function(x, *, interpret):
        return pl.pallas_call(
            kernel, grid=(2,), in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
            out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
            scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)], interpret=interpret)(x)

    with lib.on_abstract_tpu():
        result = np.asarray(function(jnp.ones((8, 384), jnp.float32), interpret=True))
    # grid cell t: sum over j of (10 j + t) = 30 + 3 t.
    if result[0, 0] != 30.0 or result[8, 0] != 33.0:
        return False, f"got {result[0, 0]}, {result[8, 0]}; want 30, 33"
    return True, "read grid indices before the pipeline; inside, program_id is the inner index"


def main():
    failures = 0
    for check in FACTS:
        cell = lib.timed(check)
        failures += cell.status != "pass"
        print(f"{cell.status:4}  {check.__name__}: {cell.detail}")
    print(f"{len(FACTS) - failures}/{len(FACTS)} facts hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
