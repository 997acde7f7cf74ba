"""Shape-generic modules check at trace time what the kernel assumes.

Compiles examples/scaled_epilogue.py once, with no --arg, and checks the
generated host function: it runs for several shapes (interpret mode, against
the NumPy reference), raises a ValueError naming the kernel's source line
when w.size(0) != x.size(1) (forced equal by a broadcast), and raises when a
compile-time argument differs from the compiled value. Compiles
examples/attention.py once per launcher, with no --arg, and runs the module
for q/k/v of rank 2, 3 and 4 (its host body is rank-generic).

usage: shape_checks_test.py TESSERA_BINARY SOURCE_DIR WORK_DIR
"""
import pathlib
import subprocess
import sys

import numpy as np


def main(tessera, source_dir, work_dir):
    source_dir, work_dir = pathlib.Path(source_dir), pathlib.Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    out = work_dir / "scaled_epilogue_generic.py"
    subprocess.run([tessera, "compile", "examples/scaled_epilogue.py", "-o", str(out)],
                   cwd=source_dir, check=True)
    sys.path.insert(0, str(source_dir / "examples"))
    sys.path.insert(0, str(source_dir / "tests" / "conformance"))
    import conformance_lib
    import references
    module = conformance_lib.load_module(out, "scaled_epilogue_generic")
    rng = np.random.default_rng(0)
    failures = []
    for m, n in ((256, 256), (200, 300), (8, 128)):
        x = rng.standard_normal((m, n), dtype=np.float32)
        w = rng.standard_normal((n,), dtype=np.float32)
        got = np.asarray(module.scaled_epilogue(x, w, interpret=True), np.float64)
        error = float(np.max(np.abs(got - references.scaled_epilogue(x, w))))
        print(f"[{m}, {n}] x [{n}]: max |error| {error:.2e}")
        if error > 1e-4:
            failures.append(f"wrong result for [{m}, {n}]")
    x = rng.standard_normal((256, 256), dtype=np.float32)
    for call, expected in (
            (lambda: module.scaled_epilogue(x, x[0, :128], interpret=True),
             "scaled_epilogue.py:39: kernel 'scaled_epilogue' needs w.size(0) == x.size(1)"),
            (lambda: module.scaled_epilogue(x, x[0], squared=False, interpret=True),
             "compiled for squared=True")):
        try:
            call()
            failures.append(f"no error, expected {expected!r}")
        except ValueError as error:
            print(f"ValueError: {error}")
            if expected not in str(error):
                failures.append(f"message {error!s} lacks {expected!r}")
    for launcher in ("unroll", "emit_pipeline", "fori_loop"):
        path = work_dir / f"attention_generic_{launcher}.py"
        subprocess.run([tessera, "compile", "examples/attention.py", "--launcher", launcher,
                        "-o", str(path)], cwd=source_dir, check=True)
        attention = conformance_lib.load_module(path, path.stem).attention
        for shape in ((256, 128), (2, 256, 128), (1, 2, 200, 64)):
            q, k, v = (rng.standard_normal(shape, dtype=np.float32) for _ in range(3))
            with conformance_lib.on_abstract_tpu():
                got = np.asarray(attention(q, k, v, interpret=True), np.float64)
            error = float(np.max(np.abs(got - references.attention(q, k, v))))
            print(f"attention {launcher} {list(shape)}: shape {list(got.shape)}, "
                  f"max |error| {error:.2e}")
            if got.shape != shape or error > 1e-4:
                failures.append(f"attention {launcher} wrong for {shape}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
