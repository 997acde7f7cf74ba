"""Conformance harness: compiles one example kernel with the tessera CLI under
every launcher, dtype and test shape, and checks each generated module.

usage: harness.py --kernel NAME --tessera PATH --source-dir DIR --work-dir DIR
                  [--launcher L ...] [--dtype D ...] [--shape S ...]

Cells (one row per launcher x dtype x shape):
  compile        `tessera compile examples/NAME.py --config
                 configs/pallas_<launcher>.toml --arg ... --emit=code -o DIR/`
  interpret      run with interpret=True, compare to examples/references.py
  tpu_interpret  run with interpret=pltpu.InterpretParams(), compare
  export         jax.export for platforms=["tpu"] (block checks + Mosaic lowering)
  tpu_v5e, tpu_v6e, tpu_v7x
                 the real TPU compiler (libtpu, deviceless) compiles the module
                 for that generation: Mosaic's layouts, alignment and VMEM
  pyflakes       pyflakes on the generated module
The module runs as a user would run it: no abstract mesh around it (it provides
its own TPU for interpret mode and export); the real compiles use a deviceless
TPU topology as the default device. Prints the
matrix and exits 1 on any red cell (FAIL, blocked, XPASS); expected failures
come only from expected_failures.py.
"""
import argparse
import functools
import importlib.util
import pathlib
import shutil
import subprocess
import sys
import time

import jax.numpy as jnp

import conformance_lib as lib
import expected_failures
import kernel_table

CHECKS = ("compile", *lib.RUN_CHECKS, "pyflakes")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", required=True, choices=kernel_table.KERNELS)
    parser.add_argument("--tessera", required=True, help="the tessera driver binary")
    parser.add_argument("--source-dir", required=True, type=pathlib.Path,
                        help="the source tree (examples/, configs/)")
    parser.add_argument("--work-dir", required=True, type=pathlib.Path,
                        help="where generated modules are written")
    parser.add_argument("--launcher", action="append", choices=kernel_table.LAUNCHERS)
    parser.add_argument("--dtype", action="append", choices=kernel_table.DTYPES)
    parser.add_argument("--shape", action="append", choices=("even", "ragged"))
    parser.add_argument("--large-only", action="store_true",
                        help="only the compile-only realistic sizes")
    return parser.parse_args(argv)


def load_reference(source_dir, kernel):
    path = source_dir / "examples" / "references.py"
    spec = importlib.util.spec_from_file_location("tessera_references", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kernel)


def make_inputs(args, spec, shapes, dtype, seed):
    return lib.make_kernel_inputs(args.source_dir, args.kernel, spec, shapes, dtype, seed)


def large_config(args, launcher, case, out_dir):
    """The launcher's config plus the case's block sizes, written to out_dir."""
    text = (args.source_dir / "configs" / f"pallas_{launcher}.toml").read_text()
    if case.block_sizes:
        sizes = ", ".join(str(b) for b in case.block_sizes)
        text += f"\n[kernels.{args.kernel}]\nblock_sizes = [{sizes}]\n"
    path = out_dir.parent / f"{out_dir.name}.toml"
    path.write_text(text)
    return path


def compile_kernel(args, launcher, dtype, names, shapes, out_dir, config=None,
                   generation=None):
    """Runs the tessera CLI; returns (ok, detail, generated module path)."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    command = [args.tessera, "compile", f"examples/{args.kernel}.py",
               f"--config={config or f'configs/pallas_{launcher}.toml'}", "--emit=code",
               *kernel_table.arg_flags(names, shapes, dtype, kernel_table.SPECS[args.kernel]),
               f"--output={out_dir}/"]
    if generation:
        command.append(f"--tpu={generation}")
    result = subprocess.run(command, cwd=args.source_dir, capture_output=True, text=True)
    if result.returncode != 0:
        message = (result.stderr or result.stdout).strip().splitlines()
        first_error = next((line for line in message if "error" in line), message[0] if message else "")
        print(f"$ {' '.join(command)}\n{result.stderr}{result.stdout}", file=sys.stderr)
        return False, f"exit {result.returncode}: {first_error}", None
    modules = sorted(out_dir.glob("*.py"))
    if not modules:
        return False, f"no .py file written to {out_dir}", None
    defining = [m for m in modules if f"def {args.kernel}(" in m.read_text()]
    if len(defining) != 1:
        return False, f"{len(defining)} modules define {args.kernel}() in {out_dir}", None
    return True, defining[0].name, defining[0]


def check_module(kernel, module_path, arrays, expected, cells, **subset):
    """Fills the interpret/tpu_interpret/export/pyflakes cells of one module
    (subset: `modes` / `generations` of lib.check_function)."""
    try:
        module = lib.load_module(
            module_path, "generated_" + module_path.parent.name.replace(".", "_"))
        function = getattr(module, kernel)
        launch = lib.host_sync_launch(module, kernel, arrays)
    except Exception as error:  # An unimportable module is a red row, not a crash.
        detail = f"import: {lib.short_error(error)}"
        for check in lib.RUN_CHECKS:
            cells[check] = lib.Cell("FAIL", detail)
        function = None
    if function is not None:
        lib.check_function(function, arrays, expected, cells, launch=launch, **subset)
    cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(module_path))


def large_function(module, kernel, case):
    """The function a compile-only row exports and compiles: the kernel's
    host function, or for one that reads scalars on the host (a host sync,
    KERNEL_host_reads) its jitted KERNEL_launch with the case's host_reads
    bound; None when the case declares none."""
    if not hasattr(module, f"{kernel}_host_reads"):
        return getattr(module, kernel)
    if case.host_reads is None:
        return None
    return functools.partial(getattr(module, f"{kernel}_launch"), **case.host_reads)


def check_large(args, names, case, launcher):
    """A compile-only row: per generation, `tessera compile --tpu GEN` (so the
    VMEM budget is that generation's) and the real compiler for it; the TPU
    export and pyflakes on the v6e module; no interpret runs."""
    cells = {"interpret": lib.Cell("n/a", "compile-only size"),
             "tpu_interpret": lib.Cell("n/a", "compile-only size")}
    spec = kernel_table.SPECS[args.kernel]
    specs = [(shape, jnp.dtype(spec.dtype_of(i, case.dtype)))
             for i, shape in enumerate(case.shapes)]
    row_dir = args.work_dir / args.kernel / "large" / (
        f"{launcher}.{case.dtype}." + "".join(c if c.isalnum() else "_" for c in case.label))
    row_dir.mkdir(parents=True, exist_ok=True)
    compile_details = []
    for generation in lib.TPU_GENERATIONS:
        out_dir = row_dir / generation
        config = large_config(args, launcher, case, out_dir)
        start = time.perf_counter()
        ok, detail, module_path = compile_kernel(
            args, launcher, case.dtype, names, case.shapes, out_dir, config, generation)
        compile_details.append(f"{generation}: {detail}")
        check = f"tpu_{generation}"
        if not ok:
            cells["compile"] = lib.Cell("FAIL", "; ".join(compile_details),
                                        time.perf_counter() - start)
            cells[check] = lib.Cell("blocked", "not compiled")
            continue
        try:
            module = lib.load_module(
                module_path, f"large_{args.kernel}_{row_dir.name}_{generation}")
            function = large_function(module, args.kernel, case)
        except Exception as error:  # An unimportable module is a red cell.
            cells[check] = lib.Cell("FAIL", f"import: {lib.short_error(error)}")
            continue
        if function is None:
            cells[check] = lib.Cell(
                "FAIL", f"{module_path}: {args.kernel}_host_reads reads scalars from "
                "the inputs (a host sync) and a compile-only row has no data: declare "
                "their values in the LargeCase's host_reads")
            continue
        cells[check] = lib.timed(lambda: lib.check_tpu_compile(function, specs, generation))
        if generation == "v6e":
            cells["export"] = lib.timed(
                lambda: (lib.export_tpu(function, specs, provide_tpu=False) is not None, ""))
            cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(module_path))
    cells.setdefault("compile", lib.Cell("pass", "one module per generation"))
    for check in CHECKS:
        cells.setdefault(check, lib.Cell("blocked", "not compiled"))
    return cells


def apply_expected_failures(kernel, launcher, dtype, shape, cells):
    for check, cell in cells.items():
        reason = expected_failures.expected_failure(kernel, launcher, dtype, shape, check)
        if reason is None:
            continue
        if cell.status in ("FAIL", "blocked"):
            cells[check] = lib.Cell("xfail", f"{reason} (was: {cell.detail})", cell.seconds)
        else:
            cells[check] = lib.Cell("XPASS", f"listed as expected failure: {reason}",
                                    cell.seconds)


def main(argv):
    args = parse_args(argv)
    args.source_dir = args.source_dir.resolve()
    args.work_dir = args.work_dir.resolve()
    problems = expected_failures.validate()
    if problems:
        print("expected_failures.py:\n  " + "\n  ".join(problems))
        return 1
    spec = kernel_table.SPECS[args.kernel]
    launchers = args.launcher or kernel_table.LAUNCHERS
    dtypes = [d for d in (args.dtype or spec.dtypes) if d in spec.dtypes]
    shape_labels = args.shape or list(spec.shapes)
    example = args.source_dir / "examples" / f"{args.kernel}.py"
    start = time.perf_counter()
    try:
        names = kernel_table.kernel_parameters(example, args.kernel)
        reference = load_reference(args.source_dir, args.kernel)
    except Exception as error:
        print(f"conformance_{args.kernel}: cannot set up: {lib.short_error(error)}")
        return 1

    rows = []
    for dtype in ([] if args.large_only else dtypes):
        for shape_label in shape_labels:
            shapes = spec.shapes[shape_label]
            if len(names) < len(shapes):
                print(f"{example}: {args.kernel}() has {len(names)} parameters, "
                      f"the table gives {len(shapes)} tensor shapes")
                return 1
            arrays, exact = make_inputs(args, spec, shapes, dtype, seed=len(rows))
            try:
                expected, reference_error = reference(*exact), None
            except Exception as error:  # A broken reference is red, not a crash.
                expected, reference_error = None, lib.short_error(error)
            for launcher in launchers:
                cells = {}
                out_dir = args.work_dir / args.kernel / f"{launcher}.{dtype}.{shape_label}"
                compile_start = time.perf_counter()
                ok, detail, module_path = compile_kernel(args, launcher, dtype, names,
                                                         shapes, out_dir)
                cells["compile"] = lib.Cell("pass" if ok else "FAIL", detail,
                                            time.perf_counter() - compile_start)
                if reference_error is not None:
                    for check in lib.RUN_CHECKS:
                        cells[check] = lib.Cell("FAIL", f"reference: {reference_error}")
                    if module_path is not None:
                        cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(module_path))
                elif module_path is not None:
                    check_module(args.kernel, module_path, arrays, expected, cells)
                for check in CHECKS:
                    cells.setdefault(check, lib.Cell("blocked", "not compiled"))
                apply_expected_failures(args.kernel, launcher, dtype, shape_label, cells)
                shape_text = " ".join("x".join(map(str, s)) for s in shapes)
                label = f"{args.kernel} {launcher} {dtype} {shape_label} [{shape_text}]"
                rows.append((label, cells))
                print(f"  {label}: " + ", ".join(
                    f"{c} {cells[c].status} {cells[c].seconds:.1f}s" for c in CHECKS),
                    flush=True)

    if not (args.launcher or args.dtype or args.shape) or args.large_only:
        for case in spec.large:
            for launcher in launchers:
                cells = check_large(args, names, case, launcher)
                shape_text = " ".join("x".join(map(str, s)) for s in case.shapes)
                label = f"{args.kernel} {launcher} {case.dtype} {case.label} [{shape_text}]"
                rows.append((label, cells))
                print(f"  {label}: " + ", ".join(
                    f"{c} {cells[c].status} {cells[c].seconds:.1f}s" for c in CHECKS),
                    flush=True)

    print()
    lib.print_matrix(f"conformance {args.kernel}", rows, CHECKS)
    red = [label for label, cells in rows if any(lib.is_red(c) for c in cells.values())]
    elapsed = time.perf_counter() - start
    print(f"{len(rows) - len(red)}/{len(rows)} rows green, {elapsed:.1f}s")
    return 1 if red else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
