"""`tessera compile --verify-tpu` and scripts/verify_tpu.py, end to end.

usage: check_verify_tpu.py --tessera BIN --source-dir DIR --work-dir DIR

  accepted   a bf16 row_sum (a rank-1 output, carried as a (1, n) row)
             compiles for v5e, v6e and v7x; exit 0
  rejected   verify_tpu/rejected_rank1_bf16_row_sum.py, the form the backend
             emitted before (a rank-1 bf16 block stored at 128 offsets): the
             compiler's E2003 is reported at examples/row_sum.py:22, the line
             that wrote it; exit 1
  no shapes  a shape-generic module without --arg: the error names the
             parameter and --arg; exit 1
  stdout     --verify-tpu with -o -: a usage error; exit 1
"""
import argparse
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def run(command, cwd):
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                            env=dict(os.environ, TESSERA_PYTHON=sys.executable))
    return result.returncode, result.stdout + result.stderr


def expect(name, result, code, *needles):
    got_code, output = result
    problems = [f"exit {got_code}, expected {code}"] if got_code != code else []
    problems += [f"output lacks {needle!r}" for needle in needles if needle not in output]
    print(f"{name}: {'FAIL' if problems else 'pass'}")
    if problems:
        print("  " + "\n  ".join(problems) + "\n  output:\n    "
              + output.replace("\n", "\n    "))
    return not problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work-dir", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    work = args.work_dir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    script = args.source_dir.resolve() / "scripts" / "verify_tpu.py"
    ok = expect("accepted", run(
        [args.tessera, "compile", "examples/row_sum.py", "--arg=x=bf16[256,512]",
         "--launcher=unroll", f"--output={work}/accepted/", "--verify-tpu"], args.source_dir),
        0, "row_sum_pallas.py: compiles for TPU v6e")
    ok &= expect("accepted_all_generations", run(
        [sys.executable, str(script), f"{work}/accepted/row_sum_pallas.py",
         "--arg=x=bf16[256,512]", "--tpu=v5e", "--tpu=v6e", "--tpu=v7x"], args.source_dir),
        0, "compiles for TPU v5e", "compiles for TPU v6e", "compiles for TPU v7x")
    ok &= expect("rejected", run(
        [sys.executable, str(script), str(HERE / "verify_tpu" / "rejected_rank1_bf16_row_sum.py"),
         "--arg=x=bf16[256,256]"], args.source_dir),
        1, "examples/row_sum.py:22:1: error: the real TPU compiler rejects kernel 'row_sum' "
        "for v6e", "E2003")
    ok &= expect("no_shapes", run(
        [args.tessera, "compile", "examples/row_sum.py", f"--output={work}/generic/",
         "--verify-tpu"], args.source_dir),
        1, "give the shapes of x with --arg NAME=TYPE",
        "--verify-tpu: the real TPU compiler did not compile 1 of 1 module(s)")
    ok &= expect("stdout", run(
        [args.tessera, "compile", "examples/row_sum.py", "-o", "-", "--verify-tpu"],
        args.source_dir), 1, "--verify-tpu needs generated code written to a file")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
