"""Generated modules on the current JAX release (0.12.x, Python 3.12),
beside the pinned 0.10.2 the rest of the tests run: every example kernel at
its f32 "even" shapes, compiled by the CLI for the default TPU pipeline and
for pallas_gpu_triton, run in interpret mode against the NumPy reference
and exported (for tpu; for cuda with no GPU, which 0.12 allows only with
the abstract GPU the generated module enters itself).

usage: check_current_jax.py --tessera BIN --source-dir DIR [--out DIR] [-k KERNEL...]
Run with the current release's Python (.venv-jax-current, scripts/setup.sh).
"""

import argparse
import pathlib
import subprocess
import sys
import tempfile

import jax

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "conformance"))
sys.path.insert(0, str(ROOT / "scripts"))

import conformance_lib as lib  # noqa: E402
import kernel_table  # noqa: E402

CONFIGS = {"tpu": "configs/default.toml", "gpu": "configs/pallas_gpu_triton.toml"}


def export(function, arrays, platform):
    specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays]
    checks = []
    if platform == "cuda":
        checks = [jax.export.DisabledSafetyCheck.custom_call("__gpu$xla.gpu.triton")]
    jax.export.export(jax.jit(function), platforms=[platform], disabled_checks=checks)(*specs)
    return True, ""


def check_kernel(args, kernel, out_dir):
    spec = kernel_table.SPECS[kernel]
    shapes = spec.shapes["even"]
    names = kernel_table.kernel_parameters(args.source_dir / "examples" / f"{kernel}.py", kernel)
    arrays, exact = lib.make_kernel_inputs(args.source_dir, kernel, spec, shapes, "float32", 3)
    references = lib.load_module(args.source_dir / "examples" / "references.py", "references")
    expected = getattr(references, kernel)(*exact)
    cells = {}
    for target, config in CONFIGS.items():
        module_path = out_dir / f"{kernel}_{target}.py"
        compiled = subprocess.run(
            [str(args.tessera), "compile", f"examples/{kernel}.py", "--config", config,
             *kernel_table.arg_flags(names, shapes, "float32", spec), "-o", str(module_path)],
            cwd=args.source_dir, capture_output=True, text=True)
        if compiled.returncode != 0:
            first = (compiled.stderr.strip().splitlines() or ["?"])[0]
            # A kernel the target rejects with a located error is not red.
            status = "rejected" if compiled.returncode == 1 and ": error:" in first else "FAIL"
            cells[f"{target} interpret"] = lib.Cell(status, first)
            continue
        module = lib.load_module(module_path, f"{kernel}_{target}")
        function = getattr(module, kernel)
        cells[f"{target} interpret"] = lib.timed(lambda: lib.compare(
            function(*arrays, interpret=True), expected))
        platform = "tpu" if target == "tpu" else "cuda"
        # A host function that reads scalars on the host exports through its
        # jitted launch, with the scalars read from these arrays.
        launch = lib.host_sync_launch(module, kernel, arrays) or function
        cells[f"{target} export"] = lib.timed(lambda: export(launch, arrays, platform))
    return cells


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tessera", type=pathlib.Path, required=True)
    parser.add_argument("--source-dir", type=pathlib.Path, default=ROOT)
    parser.add_argument("-k", "--kernel", action="append")
    args = parser.parse_args()
    print(f"JAX {jax.__version__} on Python {sys.version.split()[0]}")
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for kernel in args.kernel or kernel_table.KERNELS:
            rows.append((kernel, check_kernel(args, kernel, pathlib.Path(out))))
    columns = ["tpu interpret", "tpu export", "gpu interpret", "gpu export"]
    lib.print_matrix(f"jax {jax.__version__}", rows, columns)
    red = [(k, c, cell) for k, cells in rows for c, cell in cells.items() if cell.status == "FAIL"]
    for kernel, column, cell in red:
        print(f"  {kernel} / {column}: {cell.detail}")
    passed = sum(cell.status == "pass" for _, cells in rows for cell in cells.values())
    print(f"{passed} passed, {len(red)} failed")
    return 1 if red else 0


if __name__ == "__main__":
    sys.exit(main())
