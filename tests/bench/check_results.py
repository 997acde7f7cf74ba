"""Runs `tessera bench` on a small matrix and checks what it wrote.

usage: check_results.py --tessera BIN --matrix FILE --out DIR [--ray local]

Checks: every cell the matrix expands to is in results.json with every
column filled (compile time, modeled time, bound, roofline share, VMEM, the
real compiler's verdict and code size, interpret-mode correctness, `no TPU`
in the measured column on a host without one); every example kernel compiles,
passes the real compiler and its interpret check; results.csv has a row per
cell; matrix.md has a table per kernel with a best launcher marked; the PNGs
are pictures; baseline rows carry the compiler's static schedule and VMEM;
`--compare` of the run against itself reports no change.
"""
import argparse
import csv
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "bench" / "matrix"))
import spec  # noqa: E402

REQUIRED = ("compile_time_s", "modeled_s", "bound", "roofline_fraction", "vmem_peak_bytes",
            "tpu_compile", "code_bytes", "correct", "measured", "block_sizes",
            "arithmetic_intensity")


def check_cells(cells, matrix, failures):
    expected = set()
    for job in spec.expand(matrix):
        if job.kind == "cells":
            expected |= {(job.kernel, job.shape, job.dtype, job.launcher, job.variant.label, t)
                         for t in job.tpus}
    ours = {(c["kernel"], c["shape"], c["dtype"], c["launcher"], c["variant"], c["tpu"]): c
            for c in cells if not c["launcher"].startswith("baseline:")}
    if set(ours) != expected:
        failures.append(f"cells: missing {sorted(expected - set(ours))[:5]}, "
                        f"unexpected {sorted(set(ours) - expected)[:5]}")
    for key, cell in ours.items():
        missing = [f for f in REQUIRED if cell.get(f) in (None, "")]
        if missing:
            failures.append(f"{key}: no {missing}")
        for field, want in (("compile", "pass"), ("tpu_compile", "pass"), ("correct", "pass")):
            if cell.get(field) != want:
                failures.append(f"{key}: {field} is {cell.get(field)!r}: "
                                f"{cell.get(field + '_detail') or cell.get(field + '_error')}")
        if cell.get("measured") != "no TPU":
            failures.append(f"{key}: measured is {cell.get('measured')!r}, want 'no TPU'")
        if not 0 < (cell.get("compile_time_s") or 0) < 1:
            failures.append(f"{key}: compile time {cell.get('compile_time_s')}")


def check_baselines(doc, matrix, failures):
    wanted = [j for j in spec.expand(matrix) if j.kind == "baseline"]
    rows = [c for c in doc["cells"] if c["launcher"].startswith("baseline:")]
    if len(rows) != sum(len(j.tpus) for j in wanted):
        failures.append(f"{len(rows)} baseline cells for {len(wanted)} baseline jobs")
    for row in rows:
        for field in ("static_s", "bundles_per_step", "compiler_vmem_bytes", "code_bytes"):
            if not row.get(field):
                failures.append(f"baseline {row['kernel']} {row['tpu']}: no {field} "
                                f"({row.get('tpu_compile_detail')})")
        if row.get("correct") != "pass":
            failures.append(f"baseline {row['kernel']} {row['tpu']}: correct "
                            f"{row.get('correct')}: {row.get('correct_detail')}")
    if wanted and not doc["baselines"]:
        failures.append("results.json has no baseline comparison")


def check_files(out, doc, matrix, failures):
    with (out / "results.csv").open() as stream:
        rows = list(csv.DictReader(stream))
    if len(rows) != len(doc["cells"]):
        failures.append(f"results.csv has {len(rows)} rows, results.json {len(doc['cells'])} cells")
    markdown = (out / "matrix.md").read_text()
    for kernel in matrix.kernels:
        if f"## {kernel}" not in markdown:
            failures.append(f"matrix.md has no table for {kernel}")
    if "★" not in markdown:
        failures.append("matrix.md marks no best launcher")
    pictures = [f"heatmap_{t}.png" for t in matrix.tpus] + ["roofline.png", "launchers.png"]
    for name in pictures:
        path = out / name
        if not path.exists() or path.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            failures.append(f"{name} is not a PNG")
    for field in ("machine", "versions", "git", "elapsed_s"):
        if field not in doc:
            failures.append(f"results.json has no {field}")


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--matrix", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--ray")
    args = parser.parse_args(argv)
    command = [args.tessera, "bench", str(args.matrix), f"--out={args.out}", "--quiet"]
    command += [f"--ray={args.ray}"] if args.ray else ["--jobs=2"]
    print("$", " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        print("FAIL: tessera bench exited non-zero")
        return 1
    doc = json.loads((args.out / "results.json").read_text())
    matrix = spec.load_matrix(args.matrix)
    failures = []
    check_cells(doc["cells"], matrix, failures)
    check_baselines(doc, matrix, failures)
    check_files(args.out, doc, matrix, failures)
    if args.ray and not doc["executor"].startswith("ray"):
        failures.append(f"executor is {doc['executor']}, want ray")
    same = subprocess.run([args.tessera, "bench", f"--compare={args.out / 'results.json'}",
                           f"--new={args.out / 'results.json'}", f"--out={args.out / 'self'}"],
                          capture_output=True, text=True)
    if same.returncode != 0 or "No cell changed" not in same.stdout:
        failures.append(f"--compare against itself: {same.stdout[-300:]}{same.stderr[-300:]}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(doc['cells'])} cells checked in {doc['elapsed_s']:.0f} s, "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
