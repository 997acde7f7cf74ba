"""Conformance of the atomic-accumulator pass: numerically checks kernels with
hl.atomic_add / atomic_max / atomic_min compiled with the pipeline
ssa, outline, atomic-accumulator under every launcher.

usage: run_suite.py --family NAME --tessera PATH --source-dir DIR --work-dir DIR

One family per process (its modules are all compiled first, then checked).
Each case runs under unroll, emit_pipeline and fori_loop; the cells are
  compile        tessera compile kernels/K.py --config <temp toml> --arg ...
  interpret      interpret=True, compared to a float64 NumPy reference
  tpu_interpret  interpret=pltpu.InterpretParams(), compared likewise
  export         jax.export for platforms=["tpu"]
  pyflakes       pyflakes on the generated module
and the number of grid dims the module marks "arbitrary" is printed per case.
Exits 1 on any failing cell.
"""
import argparse
import dataclasses
import pathlib
import re
import shutil
import subprocess
import sys
import time

import jax.numpy as jnp
import numpy as np

SUITE_DIR = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(SUITE_DIR.parent))
import conformance_lib as lib  # noqa: E402

LAUNCHERS = ("unroll", "emit_pipeline", "fori_loop")
CHECKS = ("compile", *lib.RUN_CHECKS, "pyflakes")
PASSES = ("ssa", "outline", "atomic-accumulator")

# The error bound of f32 accumulation rounded once to bf16: half an ulp of
# bf16 (2^-9 relative; 2^-8 leaves room for the f32 sum's own error) plus an
# f32-sized absolute term.
BF16_F32_ACCUMULATION = {"atol": 1e-4, "rtol": 2.0 ** -8}


@dataclasses.dataclass
class Case:
    label: str
    kernel: str  # kernels/<kernel>.py, function <kernel>
    args: list  # (name, shape, dtype)
    block_sizes: list
    reference: object  # float64 arrays -> output(s)
    make_inputs: object = None  # optional: (seed) -> (arrays, exact)
    tolerance: dict = None  # overrides conformance_lib.TOLERANCES
    expected_arbitrary: int = 1
    launchers: tuple = LAUNCHERS
    passes: tuple = PASSES


def spelling(dtype):
    return {"float32": "f32", "bfloat16": "bf16"}[dtype]


def split_k_reference(x, y):
    return x @ y


def split_k_case(label, m, k, n, k_chunk, dtype="float32", **extra):
    return Case(label, "split_k_matmul_out",
                [("x", (m, k), dtype), ("y", (k, n), dtype)],
                # Helion order: k_chunk (register_block_size), the grid tiles
                # m, n, (k), then the inner k loop.
                [k_chunk, 64, 128, 128], split_k_reference, **extra)


def batch_reference(reduce):
    return lambda x: reduce(x, axis=0)


def sum_max_scale_reference(x):
    return x.sum(axis=0), x.max(axis=0), x * 2.0


def accumulate_into_inputs(seed):
    rng = np.random.default_rng(seed)
    acc = rng.standard_normal((64, 256)) * 10.0 + 3.0  # non-zero initial values
    x = rng.standard_normal((4, 64, 256))
    arrays = [jnp.asarray(acc, jnp.float32), jnp.asarray(x, jnp.float32)]
    exact = [np.asarray(a, np.float64) for a in arrays]
    return arrays, exact


def families():
    batch = [("x", (4, 64, 256), "float32")]
    return {
        "split_k": [
            # One k chunk: the pass needs no condition and declares no dim, but the
            # backend still calls the (single-cell) k dim arbitrary: 1.
            split_k_case("split_k split=1 K=128", 64, 128, 128, 128),
            split_k_case("split_k split=2 K=256", 64, 256, 128, 128),
            split_k_case("split_k split=3 K=384", 64, 384, 128, 128),
            split_k_case("split_k split=4 K=512", 64, 512, 128, 128),
            split_k_case("split_k split=8 K=1024", 64, 1024, 128, 128),
            split_k_case("split_k split=3 K=320 (ragged)", 64, 320, 128, 128),
        ],
        "bf16": [
            split_k_case("split_k bf16 split=8 K=1024", 64, 1024, 128, 128, dtype="bfloat16",
                         tolerance=BF16_F32_ACCUMULATION),
        ],
        "max_min": [
            Case("batch_max", "batch_max", batch, [1, 64, 128], batch_reference(np.max)),
            Case("batch_min", "batch_min", batch, [1, 64, 128], batch_reference(np.min)),
        ],
        "two_atomic_outputs": [
            Case("sum_max_scale", "sum_max_scale", batch, [1, 64, 128],
                 sum_max_scale_reference),
        ],
        "caller_init": [
            Case("accumulate_into", "accumulate_into",
                 [("acc", (64, 256), "float32"), ("x", (4, 64, 256), "float32")],
                 [1, 64, 128], lambda acc, x: acc + x.sum(axis=0),
                 make_inputs=accumulate_into_inputs),
        ],
    }


def write_config(path, launcher, kernel, block_sizes, passes):
    passes_text = ", ".join(f'"{p}"' for p in passes)
    sizes = ", ".join(str(b) for b in block_sizes)
    path.write_text(
        "[pipeline]\n"
        'frontend = "helion-py"\n'
        f"passes   = [{passes_text}]\n"
        'backend  = "pallas-tpu"\n\n'
        "[backend.pallas-tpu]\n"
        f'launcher = "{launcher}"\n'
        'tpu      = "v6e"\n\n'
        f"[kernels.{kernel}]\n"
        f"block_sizes = [{sizes}]\n")


def compile_case(args, case, launcher, out_dir):
    """Returns (Cell, module path or None)."""
    start = time.perf_counter()
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    config = out_dir / "pipeline.toml"
    write_config(config, launcher, case.kernel, case.block_sizes, case.passes)
    command = [args.tessera, "compile", str(SUITE_DIR / "kernels" / f"{case.kernel}.py"),
               f"--config={config}", "--emit=code", f"--output={out_dir}/"]
    command += [f"--arg={name}={spelling(dtype)}[{','.join(map(str, shape))}]"
                for name, shape, dtype in case.args]
    result = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        print(f"$ {' '.join(command)}\n{result.stderr}{result.stdout}", file=sys.stderr)
        lines = (result.stderr or result.stdout).strip().splitlines()
        return lib.Cell("FAIL", lines[0] if lines else f"exit {result.returncode}",
                        seconds), None
    module = out_dir / f"{case.kernel}_pallas.py"
    if not module.exists():
        return lib.Cell("FAIL", f"{module.name} not written", seconds), None
    return lib.Cell("pass", module.name, seconds), module


def arbitrary_dims(module_path):
    """The number of "arbitrary" entries in the module's dimension_semantics."""
    match = re.search(r"dimension_semantics=\(([^)]*)\)", module_path.read_text())
    return match.group(1).count('"arbitrary"') if match else -1


def inputs_of(case, seed):
    if case.make_inputs is not None:
        return case.make_inputs(seed)
    return lib.make_inputs([(shape, jnp.dtype(dtype)) for _, shape, dtype in case.args], seed)


def compare(case, outputs, expected):
    if case.tolerance is None:
        return lib.compare(outputs, expected)
    saved = dict(lib.TOLERANCES)
    try:
        for name in {lib.dtype_name(o.dtype) for o in lib.as_tuple(outputs)}:
            lib.TOLERANCES[name] = case.tolerance
        return lib.compare(outputs, expected)
    finally:
        lib.TOLERANCES.clear()
        lib.TOLERANCES.update(saved)


def check_module(case, module_path, arrays, expected, cells):
    module = lib.load_module(module_path, "generated_" + module_path.parent.name.replace(".", "_"))
    function = getattr(module, case.kernel)
    lib.check_function(function, arrays, expected, cells,
                       lambda outputs, want: compare(case, outputs, want))
    cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(module_path))


def per_cell_bf16_rounding(x, y, k_chunk):
    """x @ y as a bf16 read-modify-write per k chunk would give it: each
    chunk's f32 partial product is rounded to bf16 and added to the bf16
    output, rounding again (what the output block held without the pass)."""
    out = jnp.zeros((x.shape[0], y.shape[1]), jnp.bfloat16)
    for begin in range(0, x.shape[1], k_chunk):
        partial = np.asarray(x[:, begin:begin + k_chunk] @ y[begin:begin + k_chunk, :],
                             np.float32)
        value = jnp.asarray(partial, jnp.bfloat16).astype(jnp.float32)
        out = (out.astype(jnp.float32) + value).astype(jnp.bfloat16)
    return out


def bf16_rounding_demonstration(args, case, arrays, exact, expected):
    """The tolerance the bf16 case passes must be one per-cell rounding fails:
    in NumPy, and with the kernel compiled without the pass."""
    emulated = per_cell_bf16_rounding(*exact, case.block_sizes[0])
    ok, detail = compare(case, emulated, expected)
    numpy_cell = lib.Cell("FAIL" if ok else "pass",
                          f"per-cell bf16 rounding (NumPy) {'passes' if ok else 'fails'} "
                          f"the tolerance: {detail}")
    without = dataclasses.replace(case, passes=("ssa", "outline"))
    out_dir = args.work_dir / "bf16_without_pass"
    compile_cell, module_path = compile_case(args, without, "unroll", out_dir)
    if module_path is None:
        pass_off_cell = compile_cell
    else:
        def run_without_pass():
            module = lib.load_module(module_path, "generated_bf16_without_pass")
            outputs = lib.run_interpret(getattr(module, case.kernel), arrays, "interpret",
                                        provide_tpu=False)
            ok, detail = compare(case, outputs, expected)
            return not ok, (f"compiled without the pass (unroll, interpret): "
                            f"{'passes' if ok else 'fails'} the tolerance: {detail}")
        pass_off_cell = lib.timed(run_without_pass)
    print(f"  bf16 per-cell rounding, NumPy: {numpy_cell.detail}")
    print(f"  bf16 per-cell rounding, pass off: {pass_off_cell.detail}")
    cells = {"numpy_per_cell": numpy_cell, "compiled_without_pass": pass_off_cell}
    lib.print_matrix("per-cell bf16 rounding must fail the tolerance",
                     [("split_k bf16 split=8 K=1024", cells)], tuple(cells))
    return not any(lib.is_red(c) for c in cells.values())


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", required=True, choices=sorted(families()))
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--work-dir", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    args.work_dir = args.work_dir.resolve() / args.family
    start = time.perf_counter()
    cases = families()[args.family]

    # Compile every variant first.
    compiled = []
    for index, case in enumerate(cases):
        for launcher in case.launchers:
            out_dir = args.work_dir / f"{index}.{launcher}"
            cell, module = compile_case(args, case, launcher, out_dir)
            compiled.append((index, case, launcher, cell, module))

    rows, arbitrary_counts, inputs = [], {}, {}
    for index, case, launcher, compile_cell, module in compiled:
        if index not in inputs:
            arrays, exact = inputs_of(case, seed=index)
            inputs[index] = (arrays, exact, case.reference(*exact))
        arrays, exact, expected = inputs[index]
        cells = {"compile": compile_cell}
        label = f"{case.label} {launcher}"
        if module is not None:
            count = arbitrary_dims(module)
            arbitrary_counts[label] = count
            try:
                check_module(case, module, arrays, expected, cells)
            except Exception as error:  # An unimportable module is a red row.
                for check in (*lib.RUN_CHECKS, "pyflakes"):
                    cells.setdefault(check, lib.Cell("FAIL", lib.short_error(error)))
            if count != case.expected_arbitrary:
                cells["compile"] = lib.Cell(
                    "FAIL", f"{count} arbitrary grid dims, expected {case.expected_arbitrary}")
        for check in CHECKS:
            cells.setdefault(check, lib.Cell("blocked", "not compiled"))
        rows.append((label, cells))
        print(f"  {label}: arbitrary dims {arbitrary_counts.get(label, '-')}; " + ", ".join(
            f"{c} {cells[c].status} {cells[c].seconds:.1f}s" for c in CHECKS)
            + f" ({cells['interpret'].detail})", flush=True)

    print()
    lib.print_matrix(f"atomic-accumulator {args.family}", rows, CHECKS)
    demonstration_ok = True
    if args.family == "bf16":
        arrays, exact, expected = inputs[0]
        demonstration_ok = bf16_rounding_demonstration(args, cases[0], arrays, exact,
                                                       expected)
    print("grid dims marked arbitrary:")
    for label, count in arbitrary_counts.items():
        print(f"  {label}: {count}")
    red = [label for label, cells in rows if any(lib.is_red(c) for c in cells.values())]
    print(f"{len(rows) - len(red)}/{len(rows)} rows green, "
          f"{time.perf_counter() - start:.1f}s")
    return 1 if red or not demonstration_ok else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
