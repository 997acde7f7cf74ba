"""Does pallas-gpu's launch policy agree with the compiler? A sweep on the CPU.

For each case (a kernel, its arguments and block sizes), tessera compiles it
twice with configs/pallas_gpu_triton.toml:
  checked    as users get it: the policy picks num_warps / num_stages, or
             rejects the blocks with a located error;
  unchecked  `check_legality = false`: emitted as asked.
An accepted case must export for cuda and compile to an sm_90a cubin with
PyPI's triton without spilling and within 227 KiB of shared memory (the
policy is sufficient). A rejected case's unchecked module must fail that
cubin check (the policy is not needlessly strict); a rejection the compiler
would have taken is reported as "over-strict", a failure.
"""
import pathlib
import subprocess
import sys
import tempfile

import jax
import jax.numpy as jnp

import conformance_lib
import gpu_matrix
import kernel_table

SPELLING = {"float32": "f32", "bfloat16": "bf16"}


def cases(quick):
    """(kernel, shapes, dtype, block sizes) of the sweep."""
    blocks = [(64, 64, 32), (128, 128, 64), (128, 128, 128), (128, 128, 256),
              (256, 128, 64), (256, 256, 64)]
    if quick:
        blocks = [(128, 128, 128), (128, 128, 256), (256, 128, 64)]
    for dtype in ("bfloat16", "float32"):
        for block in blocks:
            yield "matmul", [(512, 512), (512, 512)], dtype, block
    # Two f32 (FMA) dots in a loop with carried tiles: the live-set rule, and
    # shared memory with operands loaded before the loop (q) and in it (k, v).
    attention = [(1, 2, 256, 128)] * 3
    for block in ((1, 128, 128), (1, 128, 64)) if quick else \
            ((1, 128, 128), (1, 128, 64), (1, 64, 128), (1, 64, 64)):
        yield "attention", attention, "float32", block
    yield "k_grid_matmul", [(256, 384), (384, 128)], "bfloat16", (128, 128)
    rows = (1, 8, 32) if not quick else (8, 32)
    for dtype in ("float32",):
        for rows_per_program in rows:
            yield "softmax", [(256, 2048)], dtype, (rows_per_program,)
    # Rows of 300 are blocks of 512 on the GPU (rounded up, tail masked).
    for rows_per_program in (32, 128) if not quick else (128,):
        yield "softmax", [(200, 300)], "float32", (rows_per_program,)


def compile_case(args, kernel, shapes, dtype, block, checked, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    config = (args.source_dir / "configs/pallas_gpu_triton.toml").read_text()
    if not checked:
        config = config.replace("[backend.pallas-gpu]",
                                "[backend.pallas-gpu]\ncheck_legality = false")
    config += f"\n[kernels.{kernel}]\nblock_sizes = [{', '.join(map(str, block))}]\n"
    config_path = out_dir / "sweep.toml"
    config_path.write_text(config)
    names = kernel_table.kernel_parameters(args.source_dir / "examples" / f"{kernel}.py",
                                           kernel)[:len(shapes)]
    flags = [f"--arg={n}={SPELLING[dtype]}[{', '.join(map(str, s))}]"
             for n, s in zip(names, shapes)]
    result = subprocess.run([args.tessera, "compile", f"examples/{kernel}.py",
                             f"--config={config_path}", "--emit=code", *flags,
                             f"--output={out_dir}/"],
                            cwd=args.source_dir, capture_output=True, text=True)
    if result.returncode != 0:
        located = gpu_matrix.LOCATED.search(result.stderr + result.stdout)
        return None, (located.group(0) if located else result.stderr[:300])
    return out_dir / f"{kernel}_pallas.py", None


def cubin(path, kernel, shapes, dtype, out_dir):
    module = conformance_lib.load_module(path, f"sweep_{out_dir.name}")
    structs = [jax.ShapeDtypeStruct(s, jnp.dtype(dtype)) for s in shapes]
    try:
        return gpu_matrix.cubin_check(gpu_matrix.export_cuda(getattr(module, kernel), structs),
                                      out_dir)
    except Exception as error:  # a lowering failure counts as "does not compile"
        return False, f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"


def main(argv):
    parser = gpu_matrix.tessera_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="a few cases (the ctest)")
    args = parser.parse_args(argv)
    args.source_dir = args.source_dir.resolve()
    work = args.work_dir or pathlib.Path(tempfile.mkdtemp(prefix="tessera_gpu_sweep_"))
    failures = 0
    for index, (kernel, shapes, dtype, block) in enumerate(cases(args.quick)):
        label = f"{kernel} {dtype} blocks {block}"
        out_dir = work / f"case{index}"
        path, rejection = compile_case(args, kernel, shapes, dtype, block, True, out_dir)
        if path is not None:
            ok, report = cubin(path, kernel, shapes, dtype, out_dir)
            verdict = "accepted, compiles" if ok else "UNSOUND: accepted, does not compile"
        else:
            path, error = compile_case(args, kernel, shapes, dtype, block, False,
                                       out_dir / "unchecked")
            if path is None:
                ok, report = True, f"rejected; unchecked does not emit either: {error}"
                verdict = "rejected"
            else:
                fits, report = cubin(path, kernel, shapes, dtype, out_dir / "unchecked")
                ok = not fits
                verdict = ("rejected, compiler agrees" if ok
                           else "OVER-STRICT: rejected, compiles") + f" ({rejection})"
        failures += 0 if ok else 1
        print(f"{label}: {verdict}; {report}", flush=True)
    print(f"{failures} disagreement(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
