"""The pallas-gpu cells of the conformance matrix, on this CPU.

For each kernel of kernel_table.KERNELS x launcher (triton, mosaic) x case:
  compile   tessera compile with configs/pallas_gpu_<launcher>.toml
  interpret K(*arrays, interpret=True) under jax.jit vs the float64 reference
  export    jax.export for platforms=["cuda"] (Pallas's Triton / Mosaic GPU
            lowering; the Triton custom call allowed)
  cubin     triton: the custom call's Triton IR compiled by PyPI's triton for
            sm_90a (GPUTarget("cuda", 90, 32)); ptxas reports registers,
            spills and shared memory; a spill or more than 227 KiB of shared
            memory is a failure
A kernel the backend rejects with a located error (`file:line:col: error:`)
is "rejected" (printed with its message), not a failure. All kernels run in
one process so that JAX and Triton start once.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import conformance_lib as lib  # noqa: E402
import kernel_table  # noqa: E402

SMEM_LIMIT = 227 * 1024  # H100: 227 KiB of shared memory per block
CASES = {  # launcher -> (dtype, shape label, cubin?)
    "triton": (("float32", "even", True), ("bfloat16", "even", True),
               ("float32", "ragged", False)),
    "mosaic": (("float32", "even", False),),
}
COLUMNS = ("compile", "interpret", "export", "cubin", "pyflakes")
LOCATED = re.compile(r"^\S+:\d+:\d+: error: .*", re.MULTILINE)


def compile_kernel(args, kernel, launcher, dtype, names, shapes, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.py"):
        old.unlink()
    command = [args.tessera, "compile", f"examples/{kernel}.py",
               f"--config=configs/pallas_gpu_{launcher}.toml", "--emit=code",
               *kernel_table.arg_flags(names, shapes, dtype, kernel_table.SPECS[kernel]),
               f"--output={out_dir}/"]
    result = subprocess.run(command, cwd=args.source_dir, capture_output=True, text=True)
    if result.returncode != 0:
        located = LOCATED.search(result.stderr + result.stdout)
        if located:
            return lib.Cell("rejected", located.group(0)), None
        return lib.Cell("FAIL", (result.stderr or result.stdout)[:300]), None
    path = out_dir / f"{kernel}_pallas.py"
    return lib.Cell("pass", path.name), path


def export_cuda(function, arrays):
    sds = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays]
    return jax.export.export(
        jax.jit(function), platforms=["cuda"],
        disabled_checks=[jax.export.DisabledSafetyCheck.custom_call("__gpu$xla.gpu.triton")],
    )(*sds)


def triton_kernels(exported):
    """(name, Triton IR text, num_warps, num_stages) per Triton custom call."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
    from jax._src.pallas.triton import lowering as triton_lowering
    calls = []
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(exported.mlir_module())

        def walk(operation):
            for region in operation.regions:
                for block in region:
                    for op in block.operations:
                        if op.operation.name == "stablehlo.custom_call":
                            config = op.attributes["mhlo.backend_config"]
                            if "ir" in config:
                                calls.append((ir.StringAttr(config["name"]).value,
                                              ir.StringAttr(config["ir"]).value_bytes,
                                              ir.IntegerAttr(config["num_warps"]).value,
                                              ir.IntegerAttr(config["num_stages"]).value))
                        walk(op.operation)
        walk(module.operation)
    kernels = []
    with triton_lowering._new_ir_context():
        for name, bytecode, warps, stages in calls:
            text = ir.Module.parse(bytecode).operation.get_asm(enable_debug_info=False)
            kernels.append((name, text, warps, stages))
    return kernels


def cubin_check(exported, work_dir):
    import triton
    from triton.backends.compiler import GPUTarget
    cuobjdump = pathlib.Path(triton.__file__).parent / "backends/nvidia/bin/cuobjdump"
    kernels = triton_kernels(exported)
    if not kernels:
        return False, "no Triton custom call in the export"
    reports = []
    ok = True
    for name, text, warps, stages in kernels:
        path = work_dir / f"{name}.ttir"
        path.write_text(text)
        compiled = triton.compile(str(path), target=GPUTarget("cuda", 90, 32),
                                  options={"num_warps": warps, "num_stages": stages})
        cubin = work_dir / f"{name}.cubin"
        cubin.write_bytes(compiled.asm["cubin"])
        usage = subprocess.run([str(cuobjdump), "-res-usage", str(cubin)],
                               capture_output=True, text=True, check=True).stdout
        resources = dict(re.findall(r"(REG|STACK|SHARED|LOCAL):(\d+)", usage))
        spilled = int(resources.get("LOCAL", 0)) + int(resources.get("STACK", 0))
        smem = compiled.metadata.shared
        reports.append(f"{name}: {resources.get('REG', '?')} regs, {spilled} B local/spills, "
                       f"{smem / 1024:.1f} KiB smem")
        ok = ok and spilled == 0 and smem <= SMEM_LIMIT
    return ok, "; ".join(reports)


def run_row(args, kernel, launcher, dtype, label, cubin, reference, work):
    names = kernel_table.kernel_parameters(args.source_dir / "examples" / f"{kernel}.py", kernel)
    shapes = kernel_table.SPECS[kernel].shapes[label]
    names = names[:len(shapes)]
    out_dir = work / f"{kernel}.{launcher}.{dtype}.{label}"
    cells = {}
    cells["compile"], path = compile_kernel(args, kernel, launcher, dtype, names, shapes, out_dir)
    if path is None:
        return cells
    arrays, exact = lib.make_inputs([(s, jnp.dtype(dtype)) for s in shapes], seed=0)
    function = getattr(lib.load_module(path, f"gpu_{kernel}_{launcher}_{dtype}_{label}"), kernel)
    expected = reference(*exact)
    cells["interpret"] = lib.timed(lambda: lib.compare(
        jax.jit(lambda *a: function(*a, interpret=True))(*arrays), expected))
    exported = {}

    def export():
        exported["module"] = export_cuda(function, arrays)
        return True, "cuda"
    cells["export"] = lib.timed(export)
    if cubin:
        if "module" in exported:
            cells["cubin"] = lib.timed(lambda: cubin_check(exported["module"], out_dir))
        else:
            cells["cubin"] = lib.Cell("blocked", "export failed")
    cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(path))
    return cells


def tessera_parser(description):
    """The arguments every GPU check script takes: the driver and the tree."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", type=pathlib.Path, required=True)
    parser.add_argument("--work-dir", type=pathlib.Path)
    return parser


def main(argv):
    parser = tessera_parser(__doc__)
    parser.add_argument("--kernel", action="append", help="default: every kernel")
    parser.add_argument("--launcher", action="append", choices=sorted(CASES))
    parser.add_argument("--skip", action="append", default=[], metavar="ROW",
                        help="a row not to run, e.g. 'attention triton float32 even' "
                             "(a known red row; listed in the output)")
    args = parser.parse_args(argv)
    args.source_dir = args.source_dir.resolve()
    work = args.work_dir or pathlib.Path(tempfile.mkdtemp(prefix="tessera_gpu_"))
    sys.path.insert(0, str(args.source_dir / "examples"))
    import references
    rows = []
    for kernel in args.kernel or kernel_table.KERNELS:
        for launcher in args.launcher or sorted(CASES, reverse=True):
            for dtype, label, cubin in CASES[launcher]:
                if dtype not in kernel_table.SPECS[kernel].dtypes:
                    continue
                if f"{kernel} {launcher} {dtype} {label}" in args.skip:
                    continue
                cells = run_row(args, kernel, launcher, dtype, label, cubin,
                                getattr(references, kernel), work)
                rows.append((f"{kernel} {launcher} {dtype} {label}", cells))
    lib.print_matrix("pallas-gpu", rows, COLUMNS)
    rejected = sum(1 for _, cells in rows if cells["compile"].status == "rejected")
    red = [label for label, cells in rows if any(lib.is_red(c) for c in cells.values())]
    print(f"{len(rows)} rows, {rejected} rejected with a located error, {len(red)} red")
    for row in args.skip:
        print(f"not run (--skip): {row}")
    return 1 if red else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
