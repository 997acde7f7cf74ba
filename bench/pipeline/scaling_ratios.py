"""Compile-time scaling: t(2n) / t(n) for kernels, parameters and statements.

Runs `bench_pipeline --benchmark_filter=BM_Scale` (synthetic files of n
kernels, one kernel of n parameters, one of n statements; the default
pipeline, in-process) and prints each axis's times and the ratio of every
doubling. Issue 33's target: no ratio above 2.3 (linear, with room for
noise). Exits 1 when one is.

    python bench/pipeline/scaling_ratios.py [--bench build/bench/pipeline/bench_pipeline]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

LIMIT = 2.3


def run_benchmarks(bench: Path, repetitions: int) -> dict[str, dict[int, float]]:
    """Axis -> n -> the fastest repetition's real time in ms."""
    result = subprocess.run(
        [str(bench), "--benchmark_filter=BM_Scale",
         "--benchmark_format=json",
         f"--benchmark_repetitions={repetitions}",
         "--benchmark_min_time=0.2"],
        check=True, capture_output=True, text=True)
    times: dict[str, dict[int, float]] = defaultdict(dict)
    for entry in json.loads(result.stdout)["benchmarks"]:
        if entry.get("run_type") != "iteration":
            continue
        _, axis, n = entry["run_name"].split("/")
        best = times[axis].get(int(n))
        if best is None or entry["real_time"] < best:
            times[axis][int(n)] = entry["real_time"]
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--bench", type=Path,
                        default=root / "build/bench/pipeline/bench_pipeline")
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()
    times = run_benchmarks(args.bench, args.repetitions)
    table = Table(title=f"compile time per doubling (limit x{LIMIT})")
    for column in ("axis", "n", "ms", "t(n) / t(n/2)"):
        table.add_column(column, justify="right")
    worst = 0.0
    for axis, by_n in times.items():
        previous = None
        for n in sorted(by_n):
            ratio = by_n[n] / by_n[previous] if previous else None
            if ratio is not None:
                worst = max(worst, ratio)
            table.add_row(axis, str(n), f"{by_n[n]:.1f}",
                          f"{ratio:.2f}" if ratio is not None else "")
            previous = n
    Console().print(table)
    print(f"worst ratio: {worst:.2f}")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
