"""Zero-size dims at the call (backends/pallas_common/empty_grid.h).

Each kernel is compiled shape-generic (no --arg: the host function tests the
sizes when called) and for each case's static shapes (--arg: the zero is
known at compile time), under every launcher of both backends, and run in
interpret mode (pallas-tpu also under pltpu.InterpretParams, which raises on
out-of-bounds reads) against NumPy: same shape, dtype and values. A case
whose grid or outputs are empty must not launch (no pallas_call in its
jaxpr); the others launch a kernel that reads an empty operand (a matmul
with K = 0, a sum over an empty axis) and must give NumPy's zeros. Every
module must pass pyflakes.

  zero_size.py --tessera build/bin/tessera --source-dir . [--work-dir DIR]
"""
import argparse
import dataclasses
import pathlib
import subprocess
import sys
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

import conformance_lib as lib

TPU_LAUNCHERS = ("unroll", "emit_pipeline", "fori_loop")
GPU_LAUNCHERS = ("gpu_triton", "gpu_mosaic")


@dataclasses.dataclass
class Case:
    kernel: str
    shapes: tuple  # one shape per tensor parameter (x, then y)
    reference: object
    launches: bool  # False: the grid or every output is empty
    dtype: str = "float32"


def matmul_reference(x, y):
    return (x.astype(np.float32) @ y.astype(np.float32)).astype(x.dtype)


CASES = (
    Case("add", ((0, 8), (0, 8)), np.add, False),
    Case("add", ((8, 0), (8, 0)), np.add, False),
    Case("row_sum", ((0, 8),), lambda x: x.sum(-1), False),
    Case("row_sum", ((8, 0),), lambda x: x.sum(-1), True),  # sums of nothing: 0
    Case("row_sum", ((0, 0),), lambda x: x.sum(-1), False),
    Case("matmul", ((8, 0), (0, 16)), matmul_reference, True),  # K = 0: zeros
    Case("matmul", ((0, 8), (8, 16)), matmul_reference, False),
    Case("matmul", ((8, 8), (8, 0)), matmul_reference, False),
    # An output allocated with torch.zeros and an empty grid (its split-K
    # axis): the zeros, with no launch.
    Case("split_k_matmul", ((8, 0), (0, 16)), matmul_reference, False),
    # Mosaic GPU lowers bf16 dots only (and its interpreter runs no wgmma):
    # empty outputs, no launch.
    Case("matmul", ((0, 64), (64, 64)), matmul_reference, False, "bfloat16"),
    Case("matmul", ((64, 64), (64, 0)), matmul_reference, False, "bfloat16"),
)
# What a launcher cannot compile (a located error, conformance_gpu's
# --expect-rejected): mosaic lowers only bf16 dots and full-block reductions.
UNSUPPORTED = {("row_sum", "gpu_mosaic", "float32"), ("matmul", "gpu_mosaic", "float32"),
               ("split_k_matmul", "gpu_mosaic", "float32")}
PARAMS = ("x", "y")
DTYPES = {"float32": "f32", "bfloat16": "bf16"}


def compile_module(args, kernel, launcher, dtype, shapes, out_dir):
    """Shape-generic when shapes is None (the dtype is then the frontend's
    default, f32: a bf16 case passes the shapes)."""
    flags = []
    if shapes is not None:
        flags = [f"--arg={name}={DTYPES[dtype]}[{','.join(map(str, shape))}]"
                 for name, shape in zip(PARAMS, shapes)]
    out_dir.mkdir(parents=True, exist_ok=True)
    command = [args.tessera, "compile", f"examples/{kernel}.py",
               f"--config=configs/pallas_{launcher}.toml", "--emit=code", *flags,
               f"--output={out_dir}/"]
    subprocess.run(command, cwd=args.source_dir, check=True, capture_output=True, text=True)
    return out_dir / f"{kernel}_pallas.py"


def check(path, case, launcher, name):
    """Returns the failures of one module on one case."""
    failures = []
    ok, text = lib.pyflakes(path)
    if not ok:
        failures.append(f"pyflakes: {text}")
    function = getattr(lib.load_module(path, name), case.kernel)
    rng = np.random.default_rng(0)
    arrays = [jnp.asarray(rng.standard_normal(shape), case.dtype) for shape in case.shapes]
    expected = case.reference(*[np.asarray(array) for array in arrays])
    tpu = launcher in TPU_LAUNCHERS
    modes = ("interpret", "tpu_interpret") if tpu else ("interpret",)
    for mode in modes:
        try:
            got = lib.run_interpret(function, arrays, mode, provide_tpu=tpu)
        except Exception as error:  # The error is the failure's detail.
            failures.append(f"{mode}: {lib.short_error(error)}")
            continue
        if got.shape != expected.shape or got.dtype != expected.dtype:
            failures.append(f"{mode}: {got.dtype}{list(got.shape)}, NumPy gives "
                            f"{expected.dtype}{list(expected.shape)}")
        elif not np.allclose(np.asarray(got, np.float32), expected.astype(np.float32),
                             atol=1e-4, rtol=1e-4):
            failures.append(f"{mode}: {np.asarray(got)} != {expected}")
    with lib._tpu_context(tpu):
        jaxpr = str(jax.make_jaxpr(lambda *a: function(*a, interpret=True))(*arrays))
    if ("pallas_call" in jaxpr) != case.launches:
        failures.append("launched a kernel" if not case.launches else "launched nothing")
    return failures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work-dir", type=pathlib.Path)
    args = parser.parse_args(argv)
    work = args.work_dir or pathlib.Path(tempfile.mkdtemp(prefix="tessera_zero_"))
    failures = []
    runs = 0
    for launcher in TPU_LAUNCHERS + GPU_LAUNCHERS:
        for index, case in enumerate(CASES):
            kernel = case.kernel
            if (kernel, launcher, case.dtype) in UNSUPPORTED:
                continue
            labels = {"static": case.shapes}
            if case.dtype == "float32":
                labels["generic"] = None
            for label, shapes in labels.items():
                path = compile_module(args, kernel, launcher, case.dtype, shapes,
                                      work / launcher / kernel / f"{label}{index}")
                row = f"{kernel} {launcher} {case.dtype} {label} {case.shapes}"
                problems = check(path, case, launcher,
                                 f"zero_{launcher}_{kernel}_{label}_{index}")
                runs += 1
                print(f"{row}: {'; '.join(problems) or 'pass'}", flush=True)
                failures += [f"{row}: {problem}" for problem in problems]
    print(f"{runs} runs, {len(failures)} failures")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
