"""tessera bench: the per-launcher benchmark matrix.

usage: bench.py [MATRIX.toml] [--out DIR] [--jobs N | --ray ADDRESS] [--quiet]
                [--kernel NAME ...] [--compare OLD/results.json [--new NEW/results.json]]
                [--measure auto|off] [--tessera PATH] [--no-plots]

Compiles every cell of the matrix (default bench/matrix.toml: every example
kernel x shapes x dtypes x launchers x TPU generations x block variants) and
writes DIR/results.json, results.csv, matrix.md and PNG plots. `tessera
bench` runs this script with the project's Python; it also runs directly.
See docs/benchmarking.md for the columns.
"""
import argparse
import os
import pathlib
import shutil
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[1]
sys.path[:0] = [str(HERE), str(SOURCE_DIR / "scripts"),
                str(SOURCE_DIR / "tests" / "conformance"), str(SOURCE_DIR / "tests" / "cost_model")]
import compare  # noqa: E402
import executor  # noqa: E402
import gpu_column  # noqa: E402
import report  # noqa: E402
import spec  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="tessera bench", description=__doc__.splitlines()[0])
    parser.add_argument("matrix", nargs="?", type=pathlib.Path,
                        default=SOURCE_DIR / "bench" / "matrix.toml")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("bench-results"),
                        help="output folder (default: ./bench-results)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="local worker processes (default: min(2, CPUs))")
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="run the cells as tasks of this Ray cluster ('auto', "
                             "'ray://HOST:10001', or 'local' to start one here)")
    parser.add_argument("--kernel", action="append", help="only these kernels (repeatable)")
    parser.add_argument("--compare", type=pathlib.Path, metavar="OLD/results.json",
                        help="print and plot the change per cell against an earlier run")
    parser.add_argument("--new", type=pathlib.Path, metavar="NEW/results.json",
                        help="with --compare: compare this run instead of running the matrix")
    parser.add_argument("--measure", choices=("auto", "off"), default="auto",
                        help="time kernels on this host's TPU when it has one (default)")
    parser.add_argument("--tessera", default=os.environ.get("TESSERA_BIN"),
                        help="the tessera driver (default: $TESSERA_BIN, else build/bin/tessera)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (CI)")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG pictures")
    parser.add_argument("--gpu-results", default="auto", metavar="BENCH_GPU.json",
                        help="bench/gpu/bench_gpu.py's JSON for the GPU column (default: "
                             "the newest in bench/gpu/results/; 'none': no GPU column)")
    args = parser.parse_args(argv)
    if args.new and not args.compare:
        parser.error("--new needs --compare")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


class Progress:
    """A rich progress bar (current cell, done/total, elapsed, ETA), or
    nothing with --quiet."""

    def __init__(self, total, quiet):
        self.bar = None
        if quiet:
            return
        from rich import progress
        self.bar = progress.Progress(
            progress.TextColumn("{task.description}", style="cyan"), progress.BarColumn(),
            progress.MofNCompleteColumn(), progress.TimeElapsedColumn(),
            progress.TextColumn("ETA"), progress.TimeRemainingColumn())
        self.task = self.bar.add_task("starting", total=total)

    def __enter__(self):
        if self.bar:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        if self.bar:
            self.bar.__exit__(*exc)

    def advance(self, job):
        if self.bar:
            self.bar.update(self.task, advance=1, description=job.key[:60])


def find_tessera(args):
    candidates = [args.tessera] if args.tessera else [
        SOURCE_DIR / "build" / "bin" / "tessera", shutil.which("tessera")]
    for candidate in candidates:
        if candidate and pathlib.Path(candidate).is_file():
            return str(pathlib.Path(candidate).resolve())
    return None


def job_order(job):
    """Slow jobs first, so that the pool's last minutes are not one long job."""
    return {"baseline": 0, "cells": 1, "correctness": 2}[job.kind], job.shape != "realistic"


def run_matrix(args, tessera):
    matrix = spec.load_matrix(args.matrix)
    unknown = [k for k in args.kernel or [] if k not in matrix.kernels]
    if unknown:
        raise spec.MatrixError(f"{args.matrix}: no kernel {', '.join(unknown)}")
    job_list = sorted(spec.expand(matrix, args.kernel), key=job_order)
    work_dir = pathlib.Path(tempfile.mkdtemp(prefix="tessera-bench-"))
    import jobs
    context = {"tessera": tessera, "source_dir": str(SOURCE_DIR), "work_dir": str(work_dir),
               "tuned_config": str(matrix.tuned_config) if matrix.tuned_config else None,
               "compile_repeats": matrix.compile_repeats, "measure": args.measure,
               "measure_warmup": matrix.measure_warmup,
               "measure_repeats": matrix.measure_repeats,
               "local_tpu": None if args.ray else (", ".join(jobs.tpu_device_files()) or None)}
    records, start = [], time.perf_counter()
    try:
        with Progress(len(job_list), args.quiet) as progress:
            def on_done(job, job_records):
                records.extend(job_records)
                progress.advance(job)
            executor.run_all(job_list, context, workers=args.jobs, ray_address=args.ray,
                             on_done=on_done)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    elapsed = time.perf_counter() - start
    cells = report.merge(records)
    env = report.environment(context)
    extra = {"matrix": str(args.matrix), "jobs": len(job_list),
             "executor": f"ray {args.ray}" if args.ray else f"{args.jobs} process(es)",
             "elapsed_s": elapsed}
    return cells, env, extra


def gpu_results(args):
    """The GPU column's bench_gpu.py report, or None."""
    if args.gpu_results == "none":
        return None
    path = gpu_column.default_results() if args.gpu_results == "auto" else args.gpu_results
    return gpu_column.load(path) if path else None


def write_outputs(args, cells, env, extra):
    args.out.mkdir(parents=True, exist_ok=True)
    gpu = gpu_results(args)
    if gpu is not None:
        extra = dict(extra, gpu=gpu)
    report.write_json(args.out / "results.json", cells, env, extra)
    report.write_csv(args.out / "results.csv", cells)
    report.write_markdown(args.out / "matrix.md", cells, env, report.baseline_summary(cells),
                          gpu_column.markdown_lines(gpu) if gpu is not None else [])
    if not args.no_plots:
        import plots
        plots.write_all(cells, args.out, SOURCE_DIR)


def summary_line(cells, elapsed):
    ours = [c for c in cells if not report.is_baseline(c)]
    rejected = sum(1 for c in ours if c.get("tpu_compile") not in ("pass",))
    wrong = sum(1 for c in ours if c.get("correct") not in ("pass", "n/a", None))
    return (f"{len(cells)} cells ({len(cells) - len(ours)} baseline) in {elapsed:.0f} s: "
            f"{rejected} not compiled by the real compiler, {wrong} with a failing "
            "interpret-mode check")


def main(argv):
    args = parse_args(argv)
    if args.new:
        doc = compare.load(args.new)
        compare.compare(args.compare, doc, args.out, args.quiet)
        return 0
    tessera = find_tessera(args)
    if tessera is None:
        print("tessera bench: error: no tessera driver (build it, or pass --tessera PATH)",
              file=sys.stderr)
        return 1
    try:
        cells, env, extra = run_matrix(args, tessera)
    except spec.MatrixError as error:
        print(f"tessera bench: error: {error}", file=sys.stderr)
        return 1
    write_outputs(args, cells, env, extra)
    print(summary_line(cells, extra["elapsed_s"]))
    print(f"wrote {args.out}/results.json, results.csv, matrix.md"
          + ("" if args.no_plots else " and PNG plots"))
    if args.compare:
        compare.compare(args.compare, dict(env, cells=cells), args.out, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
