"""Differential runner for random kernels (generator.py).

Each kernel is compiled with `tessera compile` under every chosen launcher
(configs/pallas_<launcher>.toml) and each generated module is
  * run with interpret=True and with interpret=pltpu.InterpretParams() and
    compared to the generator's float64 reference (conformance_lib
    tolerances), and the launchers' outputs are compared with each other;
  * exported for TPU (jax.export, platforms=["tpu"]);
  * compiled by the real TPU compiler (libtpu, no TPU needed);
  * checked with pyflakes.
A failing kernel is shrunk (shrink.py) and saved under --save-failures as
<name>.json (the program: replay it with replay.py) and <name>.py.

usage: runner.py --tessera BIN --source-dir DIR --work-dir DIR
                 (--seeds A:B | --seed N ... | --program FILE ...) [--family NAME]
                 [--launchers all|rotate] [--modes all|rotate]
                 [--no-tpu-compile] [--shrink] [--save-failures DIR]
"rotate" picks one launcher (mode) per kernel by seed, so a fixed seed
set still covers all of them (CI). Exit 1 on any unexpected failure.
"""
import argparse
import collections
import functools
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "conformance"))
# libtpu takes a lock file per process; ctest runs several runners at once.
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")

import jax.numpy as jnp  # noqa: E402

import conformance_lib as lib  # noqa: E402
import generator  # noqa: E402

LAUNCHERS = ("unroll", "emit_pipeline", "fori_loop")
MODES = ("interpret", "tpu_interpret")
TPU_GENERATION = "v6e"


def compile_tpu(function, arrays):
    """The real TPU compiler (scripts/verify_tpu.py, deviceless libtpu)."""
    return lib.verify_tpu.compile_tpu(function, arrays, TPU_GENERATION)


class Failure(Exception):
    """A check that failed: check name, launcher, mode and one line."""

    def __init__(self, check, launcher, detail, mode=""):
        super().__init__(f"{check}[{launcher}{'/' + mode if mode else ''}]: {detail}")
        self.check, self.launcher, self.mode, self.detail = check, launcher, mode, detail

    def signature(self):
        # What must still fail while shrinking: same check, launcher, mode
        # and the same kind of message (its first word).
        return (self.check, self.launcher, self.mode, self.detail.split(" ")[0])


def compile_kernel(args, program, launcher, work):
    out_dir = work / launcher
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    kernel_path = work / "kernel.py"
    command = [str(args.tessera), "compile", str(kernel_path),
               f"--config={args.source_dir}/configs/pallas_{launcher}.toml", "--emit=code",
               *generator.arg_flags(program), f"--output={out_dir}/"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines()
        first = next((line for line in lines if "error" in line), lines[0] if lines else "")
        check = "compile" if result.returncode == 1 else "internal"
        raise Failure(check, launcher, f"exit {result.returncode}: {first}")
    modules = sorted(out_dir.glob("*.py"))
    if len(modules) != 1:
        raise Failure("compile", launcher, f"{len(modules)} modules written")
    return modules[0]


def make_inputs(program):
    """Standard-normal float arguments (conformance_lib.make_inputs, in
    order) and valid integer ones (generator.integer_inputs: indices in
    range, offsets, modes) as int32 arrays."""
    specs = generator.arg_specs(program)
    ints = generator.integer_inputs(program)
    floats = [(shape, jnp.dtype(dtype)) for name, shape, dtype in specs if name not in ints]
    float_arrays, float_exact = lib.make_inputs(floats, program["seed"])
    arrays, exact = [], []
    for name, _, dtype in specs:
        if name in ints:
            arrays.append(jnp.asarray(ints[name], dtype=jnp.dtype(dtype)))
            exact.append(ints[name])
        else:
            arrays.append(float_arrays.pop(0))
            exact.append(float_exact.pop(0))
    return arrays, exact


# Seconds spent per check, over the whole run (printed at the end).
TIMINGS = collections.Counter()


def run_check(check, launcher, mode, function):
    start = time.perf_counter()
    try:
        return function()
    except Failure:
        raise
    except Exception as error:  # the kernel's failure is the finding
        if os.environ.get("RANDOM_KERNELS_TRACEBACK"):
            traceback.print_exc()
        raise Failure(check, launcher, lib.short_error(error), mode) from error
    finally:
        TIMINGS[check] += time.perf_counter() - start


def check_launcher(args, program, launcher, modes, tpu_compile, inputs, outputs):
    """Every check of one launcher; raises Failure on the first failing one.
    Appends (launcher, outputs) per mode to outputs[mode]. Returns the
    number of checks that passed."""
    arrays, expected = inputs
    work = args.work_dir / program["name"]
    module_path = run_check("compile", launcher, "", lambda: compile_kernel(
        args, program, launcher, work))
    module = run_check("load", launcher, "", lambda: lib.load_module(
        module_path, f"rk_{program['seed']}_{launcher}"))
    function = getattr(module, program["name"])
    kwargs = generator.call_kwargs(program)
    if kwargs:  # scalar parameters: Python values of the call, never traced
        function = functools.partial(function, **kwargs)
    checks = 0
    for mode in modes:
        got = run_check("run", launcher, mode, lambda: lib.run_interpret(function, arrays, mode))
        got = tuple(jnp.asarray(out).astype(dtype) for out, dtype in zip(
            lib.as_tuple(got), generator.compare_dtypes(program)))
        ok, detail = lib.compare(got, expected)
        if not ok:
            raise Failure("reference", launcher, detail, mode)
        outputs.setdefault(mode, []).append((launcher, got))
        checks += 1
    run_check("export", launcher, "", lambda: lib.export_tpu(function, arrays))
    checks += 1
    if tpu_compile:
        run_check("tpu_compile", launcher, "", lambda: compile_tpu(function, arrays))
        checks += 1
    ok, text = lib.pyflakes(module_path)
    if not ok:
        raise Failure("pyflakes", launcher, text.splitlines()[0])
    return checks + 1


def check_all(args, program, launchers, modes, tpu_compile=True):
    """Checks every launcher (a failing one does not stop the others), then
    that the launchers agree. Returns (checks passed, [Failure])."""
    work = args.work_dir / program["name"]
    work.mkdir(parents=True, exist_ok=True)
    (work / "kernel.py").write_text(generator.source(program))
    arrays, exact = make_inputs(program)
    inputs = (arrays, generator.reference(program, exact))
    checks, outputs, failures = 0, {}, []
    for launcher in launchers:
        try:
            checks += check_launcher(args, program, launcher, modes, tpu_compile, inputs, outputs)
        except Failure as failure:
            failures.append(failure)
    for mode, runs in outputs.items():
        first_launcher, first = runs[0]
        for launcher, got in runs[1:]:
            as_f32 = tuple(jnp.asarray(o).astype(jnp.float32) for o in lib.as_tuple(first))
            ok, detail = lib.compare(got, as_f32)
            if not ok:
                failures.append(Failure("agree", f"{launcher} vs {first_launcher}", detail, mode))
            checks += ok
    return checks, failures


def check_program(args, program, launchers, modes, tpu_compile=True):
    """check_all, raising the first Failure (for the shrinker)."""
    checks, failures = check_all(args, program, launchers, modes, tpu_compile)
    if failures:
        raise failures[0]
    return checks


def pick(options, how, seed):
    return list(options) if how == "all" else [options[seed % len(options)]]


def load_known_failures(source_dir):
    """known_failures.json: open bugs, each {"id", "check", "match" (a regex
    on the failure line), optional "family", "dtype", "source" (a regex on
    the kernel's text), "reason", "example"}."""
    path = source_dir / "tests" / "random_kernels" / "known_failures.json"
    return json.loads(path.read_text()) if path.exists() else []


def known_failure(known, failure, program):
    """The id of the open bug a failure matches (check, message and, when
    the entry names them, the program's family, dtype and source), or None."""
    for entry in known:
        if (entry["check"] == failure.check and re.search(entry["match"], str(failure))
                and entry.get("family", program["family"]) == program["family"]
                and entry.get("dtype", program["dtype"]) == program["dtype"]
                and re.search(entry.get("source", ""), generator.source(program))):
            return entry["id"]
    return None


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True, type=pathlib.Path)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work-dir", required=True, type=pathlib.Path)
    parser.add_argument("--seeds", help="A:B, the half-open range of seeds")
    parser.add_argument("--seed", type=int, action="append", default=[])
    parser.add_argument("--family", choices=sorted(generator.FAMILIES),
                        help="generate every seed in this family (default: the weighted mix)")
    parser.add_argument("--program", type=pathlib.Path, action="append", default=[],
                        help="a saved program (.json) to replay")
    parser.add_argument("--launchers", choices=("all", "rotate"), default="all")
    parser.add_argument("--modes", choices=("all", "rotate"), default="all")
    parser.add_argument("--no-tpu-compile", action="store_true")
    parser.add_argument("--shrink", action="store_true")
    parser.add_argument("--save-failures", type=pathlib.Path)
    parser.add_argument("--ignore-known", action="store_true",
                        help="treat known failures as failures (to shrink one)")
    parser.add_argument("--keep-going", action="store_true",
                        help="count failures and go on (campaigns)")
    return parser.parse_args(argv)


def programs(args):
    seeds = list(args.seed)
    if args.seeds:
        first, last = (int(s) for s in args.seeds.split(":"))
        seeds += list(range(first, last))
    for seed in seeds:
        yield generator.generate(seed, args.family)
    for path in args.program:
        yield json.loads(path.read_text())


def main(argv):
    args = parse_args(argv)
    args.source_dir = args.source_dir.resolve()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    known = [] if args.ignore_known else load_known_failures(args.source_dir)
    start = time.time()
    kernels = combos = checks = failures = expected_failures = 0
    for program in programs(args):
        launchers = pick(LAUNCHERS, args.launchers, program["seed"])
        modes = pick(MODES, args.modes, program["seed"] // len(LAUNCHERS))
        kernels += 1
        combos += len(launchers)
        passed, found = check_all(args, program, launchers, modes, not args.no_tpu_compile)
        checks += passed
        lines = []
        for failure in found:
            bug = known_failure(known, failure, program)
            if bug:
                expected_failures += 1
                lines.append(f"known failure [{bug}]: {failure}")
            else:
                failures += 1
                lines.append(f"FAIL {failure}")
        print(f"{program['name']}: {'; '.join(lines) or 'ok'}", flush=True)
        unexpected = [f for f in found if not known_failure(known, f, program)]
        if unexpected and (args.shrink or args.save_failures):
            save_failure(args, program, unexpected[0])
        if unexpected and not args.keep_going:
            break
    elapsed = time.time() - start
    print(f"random kernels: {kernels} kernels, {combos} kernel x launcher compilations, "
          f"{checks} checks passed, {failures} failures, {expected_failures} known failures, "
          f"{elapsed:.1f}s", flush=True)
    print("seconds per check: " + ", ".join(
        f"{name} {seconds:.1f}" for name, seconds in TIMINGS.most_common()), flush=True)
    return 1 if failures else 0


def save_failure(args, program, failure):
    import shrink  # only failures need it
    small = shrink.shrink(args, program, failure) if args.shrink else program
    if args.save_failures:
        args.save_failures.mkdir(parents=True, exist_ok=True)
        small = dict(small, failure=str(failure))
        base = args.save_failures / small["name"]
        base.with_suffix(".json").write_text(json.dumps(small, indent=1, sort_keys=True) + "\n")
        base.with_suffix(".py").write_text(generator.source(small))
        print(f"  saved {base}.json ({failure})", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
