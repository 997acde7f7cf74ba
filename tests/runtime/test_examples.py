"""Every example kernel through `tessera.load`, compiled at its call, in
f32, bf16 and f16 (where the example takes bf16), against the float64 NumPy
references of examples/references.py; attention also at ranks 2 and 4 (it
is rank-generic)."""

import inspect
import pathlib

import jax.numpy as jnp
import numpy as np
import pytest

import conformance_lib as lib
import kernel_table
import tessera

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCES = lib.load_module(ROOT / "examples" / "references.py", "runtime_references")
# f16: 11 significand bits against bf16's 8.
F16_TOLERANCE = {"atol": 4e-3, "rtol": 4e-3}
lib.TOLERANCES.setdefault("float16", F16_TOLERANCE)


def cases():
    for kernel in kernel_table.KERNELS:
        spec = kernel_table.SPECS[kernel]
        dtypes = list(spec.dtypes)
        if "bfloat16" in dtypes:
            dtypes.append("float16")
        for dtype in dtypes:
            yield pytest.param(kernel, dtype, id=f"{kernel}-{dtype}")


def run_case(kernel, dtype, shapes):
    spec = kernel_table.SPECS[kernel]
    library = tessera.load(ROOT / "examples" / f"{kernel}.py")
    arrays, exact = lib.make_kernel_inputs(ROOT, kernel, spec, shapes, dtype, seed=7)
    reference = getattr(REFERENCES, kernel)
    # Required parameters after the tensors (chunk_sums' specialized
    # `chunk`) take the reference's default, as a caller passes them.
    required = [p.name for p in getattr(library, kernel).source.params[len(arrays):]
                if not p.has_default]
    defaults = {name: parameter.default
                for name, parameter in inspect.signature(reference).parameters.items()
                if name in required}
    outputs = getattr(library, kernel)(*arrays, **defaults)
    references = reference(*exact, **defaults)
    for output in lib.as_tuple(outputs):
        if output.dtype in (jnp.bfloat16, jnp.float16):
            # PyTorch semantics: the result keeps the inputs' float dtype.
            assert output.dtype == jnp.dtype(dtype), (output.dtype, dtype)
    ok, message = lib.compare(outputs, references)
    assert ok, message


@pytest.mark.parametrize("kernel,dtype", list(cases()))
def test_example(kernel, dtype):
    run_case(kernel, dtype, kernel_table.SPECS[kernel].shapes["even"])


@pytest.mark.parametrize("shape", [(256, 128), (2, 2, 256, 128)], ids=["rank2", "rank4"])
def test_attention_ranks(shape):
    run_case("attention", "float32", [shape] * 3)


def test_ragged_shapes_compile_again():
    library = tessera.load(ROOT / "examples" / "softmax.py")
    for shape in kernel_table.SPECS["softmax"].shapes.values():
        x = np.random.default_rng(0).standard_normal(shape[0]).astype(np.float32)
        ok, message = lib.compare(library.softmax(jnp.asarray(x)),
                                  REFERENCES.softmax(x.astype(np.float64)))
        assert ok, message
    assert len(library.softmax.specializations()) == 2
