"""Every example kernel, tuned at its realistic shape for every TPU
generation, passes the conformance checks with the config the tuner chose.

  check_tuned_examples.py --tessera BIN --source-dir DIR --work-dir DIR
                          [--kernel K ...] [--tpu GEN ...]

1. `tessera tune --top=1 --no-verify-tpu` per kernel (tests/tune/realistic.py's
   shapes, kernel_table.KERNELS) and generation writes the winner's launcher
   and block sizes (the ranking is the cost model's; the real compiler checks
   the winner below).
2. Each distinct winner is compiled at the kernel table's small "even" shape
   with the same launcher and blocks (the frontend clamps a block to a
   smaller dim), runs one interpret mode against the float64 reference
   (the modes alternate from module to module, as the random kernels'
   do; the conformance matrix runs both on every default config), exports
   for TPU, compiles with libtpu for each generation that chose it, and
   passes pyflakes. Winners that give the same small module are checked
   once.

Kernels whose loops have data-dependent extents (the jagged ones) have no
cost estimate, so the tuner has nothing to rank: the test asserts that it
says so, and fails if it ever tunes them (then they belong in the check).
"""
import argparse
import concurrent.futures
import hashlib
import pathlib
import re
import subprocess
import sys
import time
import tomllib
import types

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "conformance"))
sys.path.insert(0, str(HERE))
import conformance_lib as lib  # noqa: E402
import harness  # noqa: E402
import kernel_table  # noqa: E402
import realistic  # noqa: E402

GENERATIONS = ("v5e", "v6e", "v7x")
# No cost estimate: a loop extent read from memory (docs/cost_model.md).
UNTIMED = {"jagged_sum", "jagged_mean", "jagged_softmax", "jagged_rows_sum",
           "jagged_rows_mean", "jagged_rows_layer_norm", "jagged_rows_bmm",
           "jagged_prefix_add", "jagged_dense_add", "jagged_softmax_flat"}
UNTIMED_REASON = "is not a sum, product or quotient of sizes and constants"
SLOTS = re.compile(r"block slots (.*)")
WHOLE_DIM = 1 << 30  # the frontend clamps a block to the dim it tiles


def tune(args, kernel, tpu):
    """(launcher, block sizes) of the winner, or the error text."""
    out = args.work_dir / f"{kernel}.{tpu}.toml"
    command = [args.tessera, "tune", f"examples/{kernel}.py",
               *realistic.tune_flags(args.source_dir, kernel), f"--tpu={tpu}",
               "--top=1", "--no-verify-tpu", f"--output={out}"]
    result = subprocess.run(command, cwd=args.source_dir, capture_output=True, text=True)
    if result.returncode != 0:
        return None, f"$ {' '.join(command)}\n{result.stderr}{result.stdout}"
    entry = tomllib.loads(out.read_text())["kernels"][kernel]
    # A block equal to its slot's whole dim (the largest value the tuner
    # enumerates for the slot) stays the whole dim at the small shape.
    slots = SLOTS.search(result.stdout)
    dims = [max(map(int, values.split(","))) for values in
            re.findall(r"\[([\d, ]+)\]", slots.group(1))] if slots else []
    blocks = tuple(WHOLE_DIM if i < len(dims) and block == dims[i] else block
                   for i, block in enumerate(entry.get("block_sizes", ())))
    return (entry["launcher"], blocks), ""


def small_module(args, kernel, launcher, blocks, tpu):
    """The tuned launcher and blocks at the small shape: (module path, error)."""
    dtype = realistic.REALISTIC[kernel][1]
    shapes = kernel_table.SPECS[kernel].shapes["even"]
    names = kernel_table.kernel_parameters(args.source_dir / "examples" / f"{kernel}.py",
                                           kernel)
    label = "_".join("whole" if b == WHOLE_DIM else str(b) for b in blocks) or "own"
    out_dir = args.work_dir / kernel / f"{tpu}.{launcher}.{label}"
    config = out_dir.parent / f"{out_dir.name}.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    text = (args.source_dir / "configs" / f"pallas_{launcher}.toml").read_text()
    if blocks:
        text += f"\n[kernels.{kernel}]\nblock_sizes = {list(blocks)}\n"
    config.write_text(text)
    hooks = types.SimpleNamespace(tessera=args.tessera, source_dir=args.source_dir,
                                  kernel=kernel)
    ok, detail, path = harness.compile_kernel(hooks, launcher, dtype, names, shapes, out_dir,
                                              config, tpu)
    return (path, "") if ok else (None, detail)


def check_module(args, kernel, path, mode, generations):
    dtype = realistic.REALISTIC[kernel][1]
    shapes = kernel_table.SPECS[kernel].shapes["even"]
    hooks = types.SimpleNamespace(source_dir=args.source_dir, kernel=kernel)
    arrays, exact = harness.make_inputs(hooks, kernel_table.SPECS[kernel], shapes, dtype,
                                        seed=11)
    expected = harness.load_reference(args.source_dir, kernel)(*exact)
    cells = {}
    harness.check_module(kernel, path, arrays, expected, cells, modes=(mode,),
                         generations=generations)
    return {name: cell for name, cell in cells.items() if cell.status != "pass"}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work-dir", required=True, type=pathlib.Path)
    parser.add_argument("--kernel", action="append", choices=kernel_table.KERNELS)
    parser.add_argument("--tpu", action="append", choices=GENERATIONS)
    args = parser.parse_args(argv)
    args.tessera = str(pathlib.Path(args.tessera).resolve())
    args.source_dir = args.source_dir.resolve()
    args.work_dir = args.work_dir.resolve()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    kernels = args.kernel or kernel_table.KERNELS
    generations = args.tpu or GENERATIONS
    failures = []

    start = time.perf_counter()
    jobs = [(kernel, tpu) for kernel in kernels for tpu in generations]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        tuned = dict(zip(jobs, pool.map(lambda job: tune(args, *job), jobs)))
    print(f"tuned {len(jobs)} kernel x generation pairs in "
          f"{time.perf_counter() - start:.1f} s")

    modules = {}  # small module text hash -> (kernel, path, [who], [generations])
    for (kernel, tpu), (winner, error) in tuned.items():
        if kernel in UNTIMED:
            if winner is not None or UNTIMED_REASON not in error:
                failures.append(f"{kernel} {tpu}: expected 'no cost estimate' from tune, got "
                                f"{winner or error}")
            continue
        if winner is None:
            failures.append(f"{kernel} {tpu}: tune failed\n{error}")
            continue
        launcher, blocks = winner
        path, error = small_module(args, kernel, launcher, blocks, tpu)
        if path is None:
            failures.append(f"{kernel} {tpu}: tuned {launcher} {list(blocks)} does not "
                            f"compile at the small shape: {error}")
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        shown = ["whole" if b == WHOLE_DIM else b for b in blocks]
        entry = modules.setdefault(digest, (kernel, path, [], []))
        entry[2].append(f"{tpu} {launcher} {shown}")
        entry[3].append(tpu)

    start = time.perf_counter()
    modes = tuple(lib.INTERPRET_MODES)
    for index, (kernel, path, who, tpus) in enumerate(modules.values()):
        mode = modes[index % len(modes)]
        red = check_module(args, kernel, path, mode, tuple(dict.fromkeys(tpus)))
        status = "ok" if not red else "FAIL " + "; ".join(
            f"{name}: {cell.status} {cell.detail}" for name, cell in red.items())
        print(f"{kernel}: tuned {', '.join(who)} -> {path.name} ({mode}): {status}")
        if red:
            failures.append(f"{kernel} ({', '.join(who)}): {status}")
    print(f"checked {len(modules)} distinct small modules in "
          f"{time.perf_counter() - start:.1f} s")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
