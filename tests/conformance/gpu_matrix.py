"""The pallas-gpu cells of the conformance matrix, on this CPU.

For each kernel of kernel_table.KERNELS x launcher (triton, mosaic) x case:
  compile   tessera compile with configs/pallas_gpu_<launcher>.toml
  interpret K(*arrays, interpret=True) under jax.jit vs the float64 reference
  export    jax.export for platforms=["cuda"] (Pallas's Triton / Mosaic GPU
            lowering; the Triton custom call allowed)
  (label "generic": compiled without --arg, called at the ragged shapes;
  call-time dims are sized when traced, num_warps and num_stages then or
  the launch policy's located error, a "rejected" row; no cubin cell)
  cubin     triton: the custom call's Triton IR compiled by PyPI's triton for
            sm_90a (GPUTarget("cuda", 90, 32)); ptxas reports registers,
            spills and shared memory; a spill or more than 227 KiB of shared
            memory is a failure
  stable    mosaic: compiled twice, byte-identical modules
Mosaic GPU modules (pl.kernel over a plgpu.Mesh) interpret by Mosaic GPU's
own interpreter (InterpretGPUParams: shared memory and the TMA copies of
their emit_pipeline run on the CPU). Rows whose module holds plgpu.wgmma
(the matmul family) are export-only: that interpreter holds no wgmma
accumulator (jax 0.10.2: "Accumulator shape (5,) does not match value
shape (128, 128)"), so their interpret cell says so ("export-only"), and
their export cell also requires the wgmma instruction in the Mosaic GPU
payload.
A row named by --expect-wgmma must be such a row.
On a machine with an NVIDIA GPU and no tessera build, the same rows run for
real: --compile-only here writes every row's module under --work-dir, and
--device there (the work dir carried along) runs each module on the GPU,
jitted, against the float64 reference: the column "device" (the Mosaic GPU
wgmma rows too, which the CPU only exports).
A kernel the backend rejects with a located error (`file:line:col: error:`)
is "rejected" (printed with its message), not a failure; a row named by
--expect-rejected must be rejected with a matching message (the known limits
that ctest pins down), and under a launcher named by --require-compiled
every other row must compile (triton: the launcher takes every kernel). All kernels run in
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

import conformance_lib as lib  # noqa: E402
import kernel_table  # noqa: E402

SMEM_LIMIT = 227 * 1024  # H100: 227 KiB of shared memory per block
CASES = {  # launcher -> (dtype, shape label, cubin?)
    "triton": (("float32", "even", True), ("bfloat16", "even", True),
               ("float32", "ragged", True), ("float32", "generic", False)),
    "mosaic": (("float32", "even", False), ("bfloat16", "even", False)),
}
COLUMNS = ("compile", "interpret", "export", "cubin", "pyflakes", "stable")
DEVICE_COLUMNS = ("compile", "device")
EXPORT_ONLY = "Mosaic GPU's interpreter holds no wgmma accumulator (checked by export)"
# The PTX instruction Mosaic GPU emits for plgpu.wgmma, inside the custom
# call's serialized module.
WGMMA_PTX = "wgmma.mma_async"
# Rows whose default blocks (the frontend's 128 per tile dim) do not fit one
# program once whole dims are rounded up to a power of two (300 -> 512):
# the policy rejects them with a located error ("choose smaller blocks"),
# so the row runs with blocks that fit, as a GPU user would pick them.
# Shapes of the "generic" rows where the ragged ones do not fit the kernel
# compiled without --arg: `hl.tile(x.size())` of an unknown rank compiles
# for rank 1 (a frontend limit: Helion accepts every rank there).
GENERIC_SHAPES = {"exp": [(300,)]}
GPU_BLOCKS = {  # (kernel, dtype, label) -> block_sizes, Helion order
    # 128 rows of 300 -> 512: 32 warps (the generic rows' host functions
    # raise the policy's error when traced at the ragged shapes).
    **{(kernel, "float32", label): (32,) for kernel in
       ("softmax", "layer_norm", "rms_norm", "row_sum", "scaled_epilogue",
        "row_cumsum")
       for label in ("ragged", "generic")},
    ("k_grid_matmul", "float32", "ragged"): (128, 64),
    ("grid_bmm", "float32", "ragged"): (64, 128),
    # Lane selects read whole rows (a vocab of 512, or 1000 -> 1024): 128
    # of them are a 65536-element tile, 32 warps.
    **{(kernel, dtype, label): (32,)
       for kernel in ("cross_entropy_rows", "label_nll")
       for dtype, label in (("float32", "even"), ("bfloat16", "even"),
                            ("float32", "ragged"), ("float32", "generic"))},
    # Every step's whole vocab row (256, or 300 -> 512): 2 x 128 steps of
    # them are a 65536-element tile. Their generic rows keep the default
    # blocks: the vocab is a call-time size, and the host function raises
    # the policy's located error when traced (--expect-rejected in ctest).
    **{(kernel, dtype, label): (4, 16)
       for kernel in ("shifted_views", "shifted_grad")
       for dtype in ("float32", "bfloat16")
       for label in ("even", "ragged")},
}
LOCATED = re.compile(r"^\S+:\d+:\d+: error: .*", re.MULTILINE)


def compile_kernel(args, kernel, launcher, dtype, label, names, shapes, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.py"):
        old.unlink()
    config = args.source_dir / f"configs/pallas_gpu_{launcher}.toml"
    blocks = GPU_BLOCKS.get((kernel, dtype, label)) if launcher == "triton" else None
    if blocks:
        text = config.read_text() + (f"\n[kernels.{kernel}]\n"
                                     f"block_sizes = [{', '.join(map(str, blocks))}]\n")
        config = out_dir / "blocks.toml"
        config.write_text(text)
    # "generic": compiled without --arg (shape-generic, as Helion users do).
    flags = [] if label == "generic" else kernel_table.arg_flags(
        names, shapes, dtype, kernel_table.SPECS[kernel])
    command = [args.tessera, "compile", f"examples/{kernel}.py",
               f"--config={config}", "--emit=code", *flags, f"--output={out_dir}/"]
    result = subprocess.run(command, cwd=args.source_dir, capture_output=True, text=True)
    if result.returncode != 0:
        located = LOCATED.search(result.stderr + result.stdout)
        if located:
            return lib.Cell("rejected", located.group(0)), None
        return lib.Cell("FAIL", (result.stderr or result.stdout)[:300]), None
    path = out_dir / f"{kernel}_pallas.py"
    return lib.Cell("pass", path.name), path


def mosaic_wgmma_export(exported):
    """(ok, detail): the export holds a Mosaic GPU custom call whose kernel
    issues wgmma."""
    text = exported.mlir_module()
    if "mosaic_gpu" not in text:
        return False, "no Mosaic GPU custom call in the export"
    if WGMMA_PTX not in text:
        return False, f"the Mosaic GPU kernel has no {WGMMA_PTX}"
    return True, f"cuda, {WGMMA_PTX} in the Mosaic GPU payload"


def byte_stable(args, kernel, launcher, dtype, label, names, shapes, out_dir, path):
    """(ok, detail): a second compile writes the same bytes."""
    again = out_dir / "again"
    cell, second = compile_kernel(args, kernel, launcher, dtype, label, names, shapes, again)
    if second is None:
        return False, f"second compile: {cell.status}: {cell.detail}"
    if second.read_bytes() != path.read_bytes():
        return False, "two compiles differ"
    return True, "byte-identical"


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
    shapes = GENERIC_SHAPES.get(kernel) if label == "generic" else None
    shapes = shapes or kernel_table.SPECS[kernel].shapes["ragged" if label == "generic" else label]
    names = names[:len(shapes)]
    out_dir = work / f"{kernel}.{launcher}.{dtype}.{label}"
    cells = {}
    if args.device:
        cells["compile"], path = precompiled(out_dir, kernel)
    else:
        cells["compile"], path = compile_kernel(args, kernel, launcher, dtype, label, names,
                                                shapes, out_dir)
        if cells["compile"].status == "rejected":
            (out_dir / REJECTED).write_text(cells["compile"].detail)
    if path is None or args.compile_only:
        return cells
    # Integer parameters (labels, indices, offsets) get valid values, as in
    # the TPU conformance harness.
    arrays, exact = lib.make_kernel_inputs(args.source_dir, kernel, kernel_table.SPECS[kernel],
                                           shapes, dtype, seed=0)
    module = lib.load_module(path, f"gpu_{kernel}_{launcher}_{dtype}_{label}")
    function = getattr(module, kernel)
    # A host function that reads scalars on the host (a sync) runs eagerly;
    # its jitted launch, with the scalars bound, is what is traced.
    launch = lib.host_sync_launch(module, kernel, arrays)
    traced = launch or function
    if label == "generic":
        # Tiles with call-time dims are sized when traced: past the launch
        # policy's limits the host function raises its located error.
        try:
            jax.eval_shape(traced, *arrays)
        except ValueError as error:
            located = LOCATED.search(str(error))
            if located:
                cells["compile"] = lib.Cell("rejected", f"when traced: {located.group(0)}")
                return cells
    if args.device:
        expected = reference(*exact)
        # f32 dots run on TF32 tensor cores unless the module asks for f32.
        text = path.read_text()
        tf32 = ("jax.lax.dot_general(" in text and "Precision.HIGHEST" not in text
                and launcher == "triton")
        cells["device"] = lib.timed(lambda: lib.compare(
            run_on_device(function if launch is None else launch, arrays), expected,
            lib.TF32_TOLERANCE if tf32 else None))
        return cells
    wgmma = launcher == "mosaic" and "plgpu.wgmma(" in path.read_text()
    if wgmma:
        cells["interpret"] = lib.Cell("export-only", EXPORT_ONLY)
    else:
        expected = reference(*exact)
        cells["interpret"] = lib.timed(lambda: lib.compare(
            lib.run_interpret(function, arrays, "interpret", provide_tpu=False,
                              eager=launch is not None), expected))
    exported = {}

    def export():
        exported["module"] = export_cuda(traced, arrays)
        return mosaic_wgmma_export(exported["module"]) if wgmma else (True, "cuda")
    cells["export"] = lib.timed(export)
    if cubin:
        if "module" in exported:
            cells["cubin"] = lib.timed(lambda: cubin_check(exported["module"], out_dir))
        else:
            cells["cubin"] = lib.Cell("blocked", "export failed")
    cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(path))
    if launcher == "mosaic":
        cells["stable"] = lib.timed(lambda: byte_stable(
            args, kernel, launcher, dtype, label, names, shapes, out_dir, path))
    return cells


REJECTED = "rejected.txt"  # a row's located error, kept for --device


def precompiled(out_dir, kernel):
    """The compile cell and module of a row that --compile-only wrote."""
    path = out_dir / f"{kernel}_pallas.py"
    if path.exists():
        return lib.Cell("pass", "compiled by --compile-only"), path
    if (out_dir / REJECTED).exists():
        return lib.Cell("rejected", (out_dir / REJECTED).read_text()), None
    return lib.Cell("FAIL", f"no module in {out_dir} (run --compile-only first)"), None


def run_on_device(function, arrays):
    """The module's kernel on the default device (a GPU), not interpreted.
    A host function that reads scalars on the host is called through its
    bound, jitted launch."""
    return jax.block_until_ready(jax.jit(function)(*arrays))


def expect_rejection(cell, pattern):
    """The compile cell of a row that must be rejected with a matching error."""
    if cell.status == "rejected" and re.search(pattern, cell.detail):
        return lib.Cell("rejected", cell.detail)
    return lib.Cell("FAIL", f"expected a located error matching {pattern!r}, got "
                            f"{cell.status}: {cell.detail}")


def tessera_parser(description, tessera_required=True):
    """The arguments every GPU check script takes: the driver and the tree."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tessera", required=tessera_required)
    parser.add_argument("--source-dir", type=pathlib.Path, required=True)
    parser.add_argument("--work-dir", type=pathlib.Path)
    return parser


def main(argv):
    parser = tessera_parser(__doc__, tessera_required=False)
    parser.add_argument("--kernel", action="append", help="default: every kernel")
    parser.add_argument("--compile-only", action="store_true",
                        help="only compile every row into --work-dir (for --device)")
    parser.add_argument("--device", action="store_true",
                        help="run the rows that --compile-only wrote into --work-dir on "
                             "this machine's GPU, not interpreted (no tessera needed)")
    parser.add_argument("--launcher", action="append", choices=sorted(CASES))
    parser.add_argument("--label", action="append", choices=("even", "ragged", "generic"),
                        help="the shape cases to run (default: both)")
    parser.add_argument("--expect-rejected", action="append", default=[],
                        metavar="ROW=REGEX",
                        help="a row the backend must reject with a located error "
                             "matching REGEX, e.g. 'attention triton float32 even="
                             "f32 dots'; any other outcome is red")
    parser.add_argument("--require-compiled", action="append", default=[],
                        choices=sorted(CASES),
                        help="a launcher whose rows must all compile, except those "
                             "named by --expect-rejected: a located rejection is red")
    parser.add_argument("--expect-wgmma", action="append", default=[], metavar="ROW",
                        help="a Mosaic GPU row that must compile to plgpu.wgmma and "
                             "export with wgmma in its payload, e.g. 'matmul mosaic "
                             "bfloat16 even'; any other outcome is red")
    args = parser.parse_args(argv)
    if args.device and not args.work_dir:
        parser.error("--device runs the modules of --work-dir (from --compile-only)")
    if not args.device and not args.tessera:
        parser.error("--tessera is required (except with --device)")
    expected = dict(item.split("=", 1) for item in args.expect_rejected)
    expected_wgmma = set(args.expect_wgmma)
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
                if args.label and label not in args.label:
                    continue
                row = f"{kernel} {launcher} {dtype} {label}"
                cells = run_row(args, kernel, launcher, dtype, label, cubin,
                                getattr(references, kernel), work)
                if row in expected:
                    cells["compile"] = expect_rejection(cells["compile"], expected.pop(row))
                elif (launcher in args.require_compiled
                      and cells["compile"].status == "rejected"):
                    cells["compile"] = lib.Cell(
                        "FAIL", f"the {launcher} launcher must compile every kernel: "
                                f"{cells['compile'].detail}")
                if row in expected_wgmma:
                    expected_wgmma.discard(row)
                    if cells.get("interpret", lib.Cell("-")).status != "export-only":
                        cells["compile"] = lib.Cell(
                            "FAIL", "expected a plgpu.wgmma module, got "
                                    f"{cells['compile'].status}: {cells['compile'].detail}")
                rows.append((row, cells))
                if args.device:  # a run cut short by its time limit still reports
                    print(f"{row}: " + ", ".join(f"{column} {cell.status}"
                                                 for column, cell in cells.items()),
                          flush=True)
    lib.print_matrix("pallas-gpu" + (" on " + jax.devices()[0].device_kind
                                     if args.device else ""),
                     rows, DEVICE_COLUMNS if args.device else COLUMNS)
    rejected = sum(1 for _, cells in rows if cells["compile"].status == "rejected")
    export_only = sum(1 for _, cells in rows
                      if cells.get("interpret", lib.Cell("-")).status == "export-only")
    red = [label for label, cells in rows if any(lib.is_red(c) for c in cells.values())]
    print(f"{len(rows)} rows, {rejected} rejected with a located error, "
          f"{export_only} export-only (Mosaic GPU wgmma), {len(red)} red")
    for row in expected:
        print(f"FAIL: --expect-rejected names a row that did not run: {row}")
    for row in sorted(expected_wgmma):
        print(f"FAIL: --expect-wgmma names a row that did not run: {row}")
    return 1 if red or expected or expected_wgmma else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
