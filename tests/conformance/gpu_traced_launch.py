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
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
