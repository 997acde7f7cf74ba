"""Shared checks of the conformance harness and the pattern tests.

Every check runs on the CPU with JAX 0.10.2:
  * run the kernel's host function with interpret=True and with
    interpret=pltpu.InterpretParams() and compare to a float64 reference;
  * export it for TPU (jax.export with platforms=["tpu"] runs Pallas's block
    checks and the Mosaic lowering rules without a TPU);
  * compile it with the real TPU compiler (PyPI's libtpu) for v5e, v6e and
    v7x, ahead of time and with no TPU attached (scripts/verify_tpu.py);
  * run pyflakes on the module file.
emit_pipeline (and everything asking pltpu for the chip's tiling) fails on a
CPU device with "Unsupported TPU device kind: cpu" unless an abstract mesh
names a TPU. Generated modules enter one themselves (their `tpu=` keyword), so
they are run as a user would, with no mesh (provide_tpu=False); hand-written
patterns are run inside on_abstract_tpu().
"""
import contextlib
import dataclasses
import functools
import importlib.util
import io
import pathlib
import sys
import time
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.pallas import tpu as pltpu

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import verify_tpu  # noqa: E402  (the real-compiler helpers, shared with the CLI)

# The TPU generation simulated while tracing on the CPU.
ABSTRACT_DEVICE_KIND = "TPU v6e"

# Per-dtype tolerances: a result passes when, elementwise,
#   |out - ref| <= atol * max(1, max|ref|) + rtol * |ref|
# f32: the kernels accumulate in f32 in a different order than NumPy's f64.
# bf16: inputs are bf16 (the reference sees the same rounded values), the
#   output is rounded to bf16 (2^-8 relative) and kernels such as attention
#   cast intermediates (p) to bf16 before the second dot.
TOLERANCES = {
    "float32": {"atol": 1e-4, "rtol": 1e-4},
    "bfloat16": {"atol": 2e-2, "rtol": 2e-2},
    # One unit in the last place of an e5m2 value (2 mantissa bits): a sum
    # computed in another order may round to the neighbouring fp8 value.
    "float8_e5m2": {"atol": 1e-3, "rtol": 0.25},
    "float8_e4m3fn": {"atol": 1e-3, "rtol": 0.125},
}
# f32 results of TF32 dots (NVIDIA tensor cores, the default of Pallas
# Triton and of Helion for f32 x f32): operands rounded to 10-bit
# mantissas (2^-11 relative each), errors growing with the contraction.
TF32_TOLERANCE = {"atol": 4e-3, "rtol": 4e-3}

# The real compiler's generations (scripts/verify_tpu.py).
TPU_GENERATIONS = verify_tpu.GENERATIONS

# The checks run on a generated module, in order (see check_function).
REAL_COMPILER_CHECKS = tuple(f"tpu_{gen}" for gen in TPU_GENERATIONS)
RUN_CHECKS = ("interpret", "tpu_interpret", "export", *REAL_COMPILER_CHECKS)

INTERPRET_MODES = {
    "interpret": lambda: True,
    "tpu_interpret": lambda: pltpu.InterpretParams(),
}


def abstract_tpu_mesh():
    """An empty mesh whose abstract device is a TPU (see module docstring)."""
    device = jax.sharding.AbstractDevice(
        device_kind=ABSTRACT_DEVICE_KIND, num_cores=1, platform="tpu")
    return jax.sharding.AbstractMesh((), (), abstract_device=device)


@contextlib.contextmanager
def on_abstract_tpu():
    with jax.sharding.use_abstract_mesh(abstract_tpu_mesh()):
        yield


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dtype_name(dtype):
    return jnp.dtype(dtype).name


def make_inputs(arg_specs, seed):
    """arg_specs: list of (shape, dtype). Values ~ N(0, 1), rounded to dtype.

    Returns (jax arrays, float64 numpy arrays of the same rounded values)."""
    rng = np.random.default_rng(seed)
    arrays, exact = [], []
    for shape, dtype in arg_specs:
        value = jnp.asarray(rng.standard_normal(shape), dtype=dtype)
        arrays.append(value)
        exact.append(np.asarray(value.astype(jnp.float32), dtype=np.float64))
    return arrays, exact


def make_kernel_inputs(source_dir, kernel, kernel_spec, shapes, dtype, seed):
    """Standard-normal inputs, and for integer parameters (offsets, indices:
    kernel_spec.arg_dtypes) the values examples/references.py's INTEGER_ARGS
    makes. dtype: the float dtype's name ("float32")."""
    float_positions = [i for i in range(len(shapes)) if kernel_spec.dtype_of(i, dtype) == dtype]
    arrays, exact = make_inputs([(shapes[i], jnp.dtype(dtype)) for i in float_positions], seed)
    by_position = dict(zip(float_positions, zip(arrays, exact)))
    if len(by_position) < len(shapes):
        references = load_module(pathlib.Path(source_dir) / "examples" / "references.py",
                                 "references_integer_args")
        rng = np.random.default_rng(seed)
        for i, values in references.INTEGER_ARGS[kernel](shapes, rng).items():
            typed = jnp.asarray(values, dtype=kernel_spec.dtype_of(i, dtype))
            by_position[i] = (typed, np.asarray(values))
    return ([by_position[i][0] for i in range(len(shapes))],
            [by_position[i][1] for i in range(len(shapes))])


def as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def compare(outputs, references, f32_tolerance=None):
    """Returns (ok, message) comparing outputs to float64 references;
    f32_tolerance replaces TOLERANCES["float32"] (e.g. TF32_TOLERANCE)."""
    outputs, references = as_tuple(outputs), as_tuple(references)
    if len(outputs) != len(references):
        return False, f"{len(outputs)} outputs, reference has {len(references)}"
    worst = 0.0
    for index, (out, ref) in enumerate(zip(outputs, references)):
        ref = np.asarray(ref, dtype=np.float64)
        if tuple(out.shape) != ref.shape:
            return False, f"output {index}: shape {tuple(out.shape)} != reference {ref.shape}"
        tol = TOLERANCES[dtype_name(out.dtype)]
        if f32_tolerance and dtype_name(out.dtype) == "float32":
            tol = f32_tolerance
        got = np.asarray(jnp.asarray(out).astype(jnp.float32), dtype=np.float64)
        scale = max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
        allowed = tol["atol"] * scale + tol["rtol"] * np.abs(ref)
        error = np.abs(got - ref)
        if not np.all(np.isfinite(got)):
            return False, f"output {index}: non-finite values"
        ratio = float(np.max(error / allowed)) if ref.size else 0.0
        worst = max(worst, ratio)
        if ratio > 1.0:
            where = np.unravel_index(np.argmax(error / allowed), ref.shape)
            return False, (f"output {index} ({dtype_name(out.dtype)}): max err "
                           f"{float(np.max(error)):.3g} at {tuple(int(i) for i in where)} "
                           f"(got {got[where]:.6g}, want {ref[where]:.6g})")
    return True, f"err/tol {worst:.2f}"


def _tpu_context(provide_tpu):
    return on_abstract_tpu() if provide_tpu else contextlib.nullcontext()


@contextlib.contextmanager
def quick_cpu_compile():
    """XLA compiles the CPU program of an interpret run with most
    optimizations off. The test shapes are small, so compiling dominates
    running: this makes the interpret checks about 35 % faster (docs/testing.md,
    "CI time"). Only interpret runs use it; the export and the real TPU
    compiler run with JAX's defaults, as a user's do."""
    previous = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", True)
    try:
        yield
    finally:
        jax.config.update("jax_disable_most_optimizations", previous)


def run_interpret(function, arrays, mode, provide_tpu=True, eager=False):
    """Runs function(*arrays, interpret=<mode>), under the abstract TPU mesh
    when provide_tpu; jitted unless eager (a host function that reads
    scalars on the host jits its own launch: see host_sync_launch)."""
    call = functools.partial(function, interpret=INTERPRET_MODES[mode]())
    with _tpu_context(provide_tpu), quick_cpu_compile():
        return jax.block_until_ready((call if eager else jax.jit(call))(*arrays))


def host_sync_launch(module, kernel, arrays):
    """For a kernel whose host function reads scalars from device memory
    (`n = int(x_offsets[-1].item())`, a host sync jax.jit cannot trace; the
    module defines KERNEL_host_reads and the jitted KERNEL_launch,
    backends/pallas_common/host_reads.h): KERNEL_launch with the scalars read
    from the concrete `arrays` bound as its static arguments, the function
    to export and compile. None for any other kernel."""
    reads = getattr(module, f"{kernel}_host_reads", None)
    if reads is None:
        return None
    return functools.partial(getattr(module, f"{kernel}_launch"), **reads(*arrays))


def export_tpu(function, arrays, provide_tpu=True):
    """Lowers function for TPU from the CPU; returns the StableHLO text.
    arrays: arrays or (shape, dtype) pairs."""
    structs = [jax.ShapeDtypeStruct(a.shape, a.dtype) if hasattr(a, "shape")
               else jax.ShapeDtypeStruct(*a) for a in arrays]
    with _tpu_context(provide_tpu):
        exported = jax.export.export(jax.jit(function), platforms=["tpu"])(*structs)
    text = exported.mlir_module()
    if "tpu_custom_call" not in text:
        raise AssertionError("exported module has no tpu_custom_call")
    return text


def check_tpu_compile(function, arg_specs, generation):
    """A cell check: (ok, "code KiB, temp KiB") from the real compiler
    (scripts/verify_tpu.py: deviceless libtpu)."""
    try:
        compiled = verify_tpu.compile_tpu(function, arg_specs, generation)
    except Exception as error:  # The compiler's verdict is the cell's detail.
        return False, verify_tpu.compiler_error(error)
    return True, verify_tpu.describe(compiled)


def check_function(function, arrays, expected, cells, compare_outputs=None,
                   provide_tpu=False, modes=tuple(INTERPRET_MODES),
                   generations=TPU_GENERATIONS, launch=None):
    """Fills cells[c] for every c in RUN_CHECKS: both interpret modes against
    `expected`, the TPU export, and the real compiler per generation.
    provide_tpu: enter the abstract TPU mesh for the interpret and export runs
    (hand-written patterns; generated modules do it themselves).
    modes, generations: a subset of the interpret modes and of the real
    compiler's generations (the others' cells are left unset).
    launch: for a host function that reads scalars on the host, its jitted
    launch with them bound (host_sync_launch): the interpret runs call
    `function` eagerly, as a user does, and the export and the real
    compiler take `launch`."""
    compare_outputs = compare_outputs or compare
    for mode in modes:
        cells[mode] = timed(lambda mode=mode: compare_outputs(
            run_interpret(function, arrays, mode, provide_tpu, eager=launch is not None),
            expected))
    function = launch or function
    cells["export"] = timed(
        lambda: (export_tpu(function, arrays, provide_tpu) is not None, ""))
    for generation in generations:
        cells[f"tpu_{generation}"] = timed(
            lambda g=generation: check_tpu_compile(function, arrays, g))


def pyflakes(path):
    """Returns (ok, output) of pyflakes on path (in-process: same checks as
    `python -m pyflakes path`, without a process start per module)."""
    # Imported here: the main job runs a module through this library with
    # only JAX installed (scripts/run_example.py).
    from pyflakes import api as pyflakes_api
    from pyflakes import reporter as pyflakes_reporter

    output = io.StringIO()
    reporter = pyflakes_reporter.Reporter(output, output)
    warnings = pyflakes_api.checkPath(str(path), reporter)
    text = output.getvalue().strip()
    return warnings == 0 and not text, text


@dataclasses.dataclass
class Cell:
    """One check's result.

    status: pass | FAIL | blocked (could not run: an earlier step failed) |
    xfail (failed, listed in expected_failures.py) | XPASS (listed, passed)."""
    status: str
    detail: str = ""
    seconds: float = 0.0


def short_error(error):
    """One line: the exception type and the first line of its message."""
    message = str(error).strip().splitlines()
    return f"{type(error).__name__}: {message[0] if message else ''}"[:300]


def timed(check):
    """Runs check() -> (ok, detail); exceptions make a failing cell."""
    start = time.perf_counter()
    try:
        ok, detail = check()
    except Exception as error:  # A failing kernel must not stop the matrix.
        ok, detail = False, short_error(error)
        traceback.print_exc(file=sys.stderr)
    return Cell("pass" if ok else "FAIL", detail, time.perf_counter() - start)


def print_matrix(title, rows, columns):
    """rows: list of (row label, {column: Cell}). Prints a text matrix."""
    label_width = max([len(title)] + [len(label) for label, _ in rows])
    widths = {c: max(len(c), len("blocked")) for c in columns}
    header = title.ljust(label_width) + " | " + " | ".join(c.ljust(widths[c]) for c in columns)
    print(header)
    print("-" * len(header))
    for label, cells in rows:
        entries = []
        for column in columns:
            cell = cells.get(column)
            entries.append((cell.status if cell else "-").ljust(widths[column]))
        print(label.ljust(label_width) + " | " + " | ".join(entries))
    print()
    for label, cells in rows:
        for column in columns:
            cell = cells.get(column)
            if cell and cell.status != "pass":
                print(f"  {label} / {column}: {cell.status}: {cell.detail}")
    sys.stdout.flush()


def is_red(cell):
    return cell.status in ("FAIL", "blocked", "XPASS")
