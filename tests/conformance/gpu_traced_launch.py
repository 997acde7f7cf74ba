"""pallas-gpu's launch policy for tiles whose size is known only when traced.

A shape-generic module (compiled without --arg) sizes its tiles with
call-time whole dims when its host function is traced: num_warps from the
traced tile (the compile-time policy's rule), or a ValueError located at the
kernel's tile loop past the policy's limits (backends/pallas_gpu/README.md).
shifted_views at its default 128 x 128 blocks holds a 128 x 128 x vocab tile
(vocab rounded up to a power of two):
  vocab 300 (512)  more than Triton's 2^20 elements per tensor: an error
  vocab 4          65536 elements need 32 warps, more than 16: an error
  vocab 2          32768 elements: 16 warps, runs (interpret mode vs NumPy;
                   the exported Triton call asks for 16 warps)
and k_grid_matmul, whose streamed and stored dot blocks are 64 x n: at
n = 200 (256) three stages would take 304 KiB of shared memory, the traced
policy picks two (as the compile-time one does at --arg w=f32[136,200]).
"""
import pathlib
import subprocess
import sys
import tempfile

import jax
import numpy as np

import conformance_lib as lib
import gpu_matrix

KERNEL = "shifted_views"
WHERE = f"examples/{KERNEL}.py:28:5: error: the tile cur f32[128, 128, logits_d2] is "
ADVICE = f"choose smaller blocks (block_sizes in [kernels.{KERNEL}] of the config"
REJECTED = {  # logits shape -> what the message says of the size and the limit
    (2, 3, 300): ("128 x 128 x 512 = 8388608 elements when traced",
                  "more than Triton's 1048576 elements per tensor"),
    (2, 3, 4): ("128 x 128 x 4 = 65536 elements when traced",
                "which needs 32 warps to stay within 64 values per thread "
                "(at most 16 per program)"),
}
RUNS = (3, 5, 2)  # 16 warps
RUNS_WARPS = 16


def check_traced_stages(args, work):
    """k_grid_matmul generic at x [200, 136], w [136, 200]: num_stages 2."""
    kernel = "k_grid_matmul"
    subprocess.run([args.tessera, "compile", f"examples/{kernel}.py",
                    "--config=configs/pallas_gpu_triton.toml", "--emit=code",
                    f"--output={work}/"], cwd=args.source_dir, check=True)
    function = getattr(lib.load_module(work / f"{kernel}_pallas.py", f"traced_{kernel}"), kernel)
    arrays = [np.ones((200, 136), np.float32), np.ones((136, 200), np.float32)]
    launch = [kernel[2:] for kernel in gpu_matrix.triton_kernels(
        gpu_matrix.export_cuda(function, arrays))]
    print(f"{kernel} (200, 136) x (136, 200): exported (num_warps, num_stages) {launch}")
    failures = [] if launch == [(8, 2)] else [f"{kernel}: {launch}, expected [(8, 2)]"]
    # Asked for 3 stages (helion.Config(num_stages=3)), n = 256: its located error.
    module = lib.load_module(work / f"{kernel}_pallas.py", f"traced_{kernel}_helper")
    try:
        module._triton_num_stages(
            streamed=16384 + 256 * 256, converted=0, resident=256 * 256,
            unpipelined=16384 + 256 * 256, pipelined=True, stages=3, fixed=True,
            where=f"examples/{kernel}.py:29:5", kernel=kernel)
        failures.append(f"{kernel}: 3 stages of 80 KiB accepted")
    except ValueError as error:
        expected = (f"examples/{kernel}.py:29:5: error: the dots need 304.0 KiB of shared "
                    "memory with num_stages 3 (80.0 KiB of operands per stage) when traced: "
                    "more than the GPU's 227.0 KiB per program; choose smaller blocks")
        if not str(error).startswith(expected) or not str(error).endswith("or fewer stages"):
            failures.append(f"{kernel}: {error}")
        print(f"{kernel} asked for 3 stages: {error}")
    return failures


def main(argv):
    args = gpu_matrix.tessera_parser(__doc__).parse_args(argv)
    work = args.work_dir or pathlib.Path(tempfile.mkdtemp(prefix="tessera_traced_"))
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([args.tessera, "compile", f"examples/{KERNEL}.py",
                    "--config=configs/pallas_gpu_triton.toml", "--emit=code",
                    f"--output={work}/"], cwd=args.source_dir, check=True)
    path = work / f"{KERNEL}_pallas.py"
    function = getattr(lib.load_module(path, f"traced_{KERNEL}"), KERNEL)
    failures = []
    for shape, parts in REJECTED.items():
        try:
            jax.eval_shape(function, jax.ShapeDtypeStruct(shape, np.float32))
            failures.append(f"{shape}: traced without an error")
        except ValueError as error:
            message = str(error)
            missing = [part for part in (WHERE, *parts, ADVICE) if part not in message]
            if missing:
                failures.append(f"{shape}: {message!r} lacks {missing}")
            print(f"{shape}: {message}")
    sys.path.insert(0, str(args.source_dir / "examples"))
    import references
    logits = np.random.default_rng(0).standard_normal(RUNS).astype(np.float32)
    ok, detail = lib.compare(jax.jit(lambda x: function(x, interpret=True))(logits),
                             references.shifted_views(logits))
    print(f"{RUNS}: interpret {detail}")
    if not ok:
        failures.append(f"{RUNS}: {detail}")
    exported = gpu_matrix.export_cuda(function, [logits])
    warps = [kernel[2] for kernel in gpu_matrix.triton_kernels(exported)]
    print(f"{RUNS}: exported num_warps {warps}")
    if warps != [RUNS_WARPS]:
        failures.append(f"{RUNS}: num_warps {warps}, expected [{RUNS_WARPS}]")
    failures += check_traced_stages(args, work)
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
