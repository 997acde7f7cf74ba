"""Conformance of the `pre-broadcast` pass: attention with head_dim 64, 128,
256 and 512 and a kernel whose row statistics reach the output indirectly
after the loop, under the emit_pipeline and fori_loop launchers.

usage: run_pre_broadcast.py --tessera PATH --source-dir DIR --work-dir DIR
                            [--case NAME ...] [--launcher L ...]

Each row compiles the kernel with configs/pallas_<launcher>.toml (whose
pipeline runs pre-broadcast) and checks:
  compile        tessera compile succeeds (with --verbose, for the remarks)
  rewrite        the IR and the generated code have the expected shape: the
                 carried statistics have the lane dim (or, for head_dim 64,
                 were left alone and --verbose says why); `[..., None]` is
                 gone from pre-broadcast values; head_dim 256 / 512 use
                 jnp.tile inside the loop and after it
  interpret      interpret=True against the NumPy float64 reference
  tpu_interpret  interpret=pltpu.InterpretParams() against the reference
  export         lowering for TPU (jax.export, platforms=["tpu"])
  pyflakes       pyflakes on the generated module
Exits 1 on any red cell.
"""
import argparse
import dataclasses
import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys
import time

import jax.numpy as jnp

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import conformance_lib as lib  # noqa: E402

LAUNCHERS = ("emit_pipeline", "fori_loop")
CHECKS = ("compile", "rewrite", *lib.RUN_CHECKS, "pyflakes")
LANES = 128


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    kernel: str
    source: str  # relative to the source dir
    head_dim: int
    # Whether m_i / l_i are expected to be carried with the lane dim.
    wide: bool
    dtype: str = "float32"


CASES = (
    Case("attention_d64", "attention", "examples/attention.py", 64, wide=False),
    Case("attention_d128", "attention", "examples/attention.py", 128, wide=True),
    Case("attention_d256", "attention", "examples/attention.py", 256, wide=True),
    Case("attention_d512", "attention", "examples/attention.py", 512, wide=True),
    Case("attention_d256_bf16", "attention", "examples/attention.py", 256, wide=True,
         dtype="bfloat16"),
    Case("attention_rsqrt_d256", "attention_rsqrt",
         "tests/conformance/pre_broadcast/kernels/attention_rsqrt.py", 256, wide=True),
)


def shapes(case):
    # batch 1 x 2 heads, 128 queries (one block), 256 keys (two inner steps).
    return [(1, 2, 128, case.head_dim), (1, 2, 256, case.head_dim),
            (1, 2, 256, case.head_dim)]


def arg_flags(case):
    names = ("q_in", "k_in", "v_in")
    spelling = {"float32": "f32", "bfloat16": "bf16"}[case.dtype]
    return [f"--arg={n}={spelling}[{','.join(map(str, s))}]"
            for n, s in zip(names, shapes(case))]


def load_reference(source_dir, case):
    if case.kernel == "attention":
        path = source_dir / "examples" / "references.py"
    else:
        path = HERE / "references.py"
    spec = importlib.util.spec_from_file_location(f"reference_{case.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, case.kernel)


def run_tessera(args, case, launcher, emit, out):
    command = [args.tessera, "compile", case.source,
               f"--config=configs/pallas_{launcher}.toml", f"--emit={emit}",
               "--verbose", *arg_flags(case), f"--output={out}"]
    return subprocess.run(command, cwd=args.source_dir, capture_output=True, text=True)


def kernel_function_text(code, kernel):
    """The device kernel function(s) of a generated module (everything
    before the host function)."""
    host = code.find(f"\ndef {kernel}(")
    return code[:host] if host >= 0 else code


def check_rewrite(case, ir_text, code, remarks):
    """Returns (ok, detail) for the 'rewrite' cell."""
    device = kernel_function_text(code, case.kernel)
    carried = re.search(r'pre_broadcast = strs\[([^\]]*)\], lanes = (\d+)', ir_text)
    if not case.wide:
        if carried:
            return False, f"expected no pre-broadcast, IR has {carried.group(0)}"
        if "not a multiple of 128" not in remarks:
            return False, "--verbose does not say why the statistics were left alone"
        if "[:, :, None]" not in device or "jnp.tile(" in device:
            return False, "head_dim 64 kernel should keep x[:, :, None] and no jnp.tile"
        return True, "left alone (width 64), remark given"
    if not carried or carried.group(2) != str(LANES):
        return False, "IR has no loop with {pre_broadcast = ..., lanes = 128}"
    names = carried.group(1)
    if "m_i" not in names or "l_i" not in names:
        return False, f"expected m_i and l_i to be carried wide, got [{names}]"
    if "[:, :, None]" in device:
        return False, "generated kernel still has x[:, :, None]"
    if "carrying" not in remarks:
        return False, "--verbose does not report what is carried"
    reps = case.head_dim // LANES
    tiles = device.count("jnp.tile(")
    if reps == 1:
        if tiles:
            return False, "jnp.tile with head_dim == lanes"
        return True, f"carried [{names}], no tile needed"
    pattern = f", (1, 1, {reps}))"
    if device.count(pattern) != tiles:
        return False, f"a jnp.tile with reps other than (1, 1, {reps})"
    # In the loop: `acc * alpha[:, :, None]`; after it: `acc / l_i[:, :, None]`.
    if "* jnp.tile(" not in device or "/ jnp.tile(" not in device:
        return False, "expected jnp.tile both in the loop (acc * ...) and after it (acc / ...)"
    return True, f"carried [{names}], {tiles} x jnp.tile(..., (1, 1, {reps}))"


def run_case(args, case, launcher, arrays, expected):
    cells = {}
    out_dir = args.work_dir / f"{case.name}.{launcher}"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    start = time.perf_counter()
    code_run = run_tessera(args, case, launcher, "code", f"{out_dir}/")
    ir_run = run_tessera(args, case, launcher, "ir", "-")
    modules = sorted(out_dir.glob("*.py"))
    if code_run.returncode != 0 or ir_run.returncode != 0 or len(modules) != 1:
        print(code_run.stderr + ir_run.stderr, file=sys.stderr)
        detail = (code_run.stderr or ir_run.stderr).strip().splitlines()
        cells["compile"] = lib.Cell("FAIL", detail[-1] if detail else "no module")
        for check in CHECKS[1:]:
            cells[check] = lib.Cell("blocked", "not compiled")
        return cells
    cells["compile"] = lib.Cell("pass", modules[0].name, time.perf_counter() - start)
    module_path = modules[0]
    code = module_path.read_text()
    cells["rewrite"] = lib.timed(
        lambda: check_rewrite(case, ir_run.stdout, code, code_run.stderr))
    try:
        function = getattr(lib.load_module(module_path, f"generated_{case.name}_{launcher}"),
                           case.kernel)
    except Exception as error:  # An unimportable module is a red row.
        for check in lib.RUN_CHECKS:
            cells[check] = lib.Cell("FAIL", f"import: {lib.short_error(error)}")
        function = None
    if function is not None:
        lib.check_function(function, arrays, expected, cells)
    cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(module_path))
    return cells


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work-dir", required=True, type=pathlib.Path)
    parser.add_argument("--case", action="append", choices=[c.name for c in CASES])
    parser.add_argument("--launcher", action="append", choices=LAUNCHERS)
    args = parser.parse_args(argv)
    args.source_dir = args.source_dir.resolve()
    args.work_dir = args.work_dir.resolve()
    start = time.perf_counter()
    rows = []
    for case in CASES:
        if args.case and case.name not in args.case:
            continue
        arrays, exact = lib.make_inputs([(s, jnp.dtype(case.dtype)) for s in shapes(case)],
                                        seed=case.head_dim)
        expected = load_reference(args.source_dir, case)(*exact)
        for launcher in args.launcher or LAUNCHERS:
            cells = run_case(args, case, launcher, arrays, expected)
            label = f"{case.name} {launcher}"
            rows.append((label, cells))
            print(f"  {label}: " + ", ".join(
                f"{c} {cells[c].status} {cells[c].seconds:.1f}s" for c in CHECKS), flush=True)
    print()
    lib.print_matrix("pre-broadcast", rows, CHECKS)
    red = [label for label, cells in rows if any(lib.is_red(c) for c in cells.values())]
    print(f"{len(rows) - len(red)}/{len(rows)} rows green, "
          f"{time.perf_counter() - start:.1f}s")
    return 1 if red else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
