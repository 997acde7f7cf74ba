"""CLI test of `tessera compile --emit=report`: the table, the JSON (same
numbers as the pl.CostEstimate of the generated code), --tpu and --timing.

  check_report.py --tessera BIN --source-dir DIR
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "conformance"))
import kernel_table  # noqa: E402

ARGS = ["--arg=q_in=bf16[1,2,256,128]", "--arg=k_in=bf16[1,2,256,128]",
        "--arg=v_in=bf16[1,2,256,128]"]


def run(tessera, source_dir, *flags):
    command = [tessera, "compile", "examples/attention.py", *ARGS, *flags]
    result = subprocess.run(command, cwd=source_dir, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"$ {' '.join(command)}\n{result.stderr}")
    return result


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    args = parser.parse_args(argv)
    t, d = args.tessera, args.source_dir

    table = run(t, d, "--emit=report", "--tpu=v5e").stdout
    for needle in ("kernel attention (launcher emit_pipeline, tpu v5e)",
                   "stage", "grid", "loop tile_n", "bound", "roofline",
                   "VMEM peak", "pl.CostEstimate: flops="):
        assert needle in table, f"{needle!r} not in the table:\n{table}"

    report = json.loads(run(t, d, "--emit=report", "--report-format=json",
                            "--tpu=v5e").stdout)
    kernel = report["kernels"][0]
    assert kernel["kernel"] == "attention" and kernel["target"] == "v5e", kernel
    assert [s["kind"] for s in kernel["stages"]] == ["grid", "loop"], kernel
    for stage in kernel["stages"]:
        for key in ("steps", "runs", "bytes", "flops", "transcendentals",
                    "time_s", "bound", "roofline_fraction"):
            assert key in stage, (key, stage)
    assert kernel["time_s"] > 0 and kernel["vmem_peak_bytes"] > 0, kernel
    # q, k, v, out: bf16 blocks of (1, 128, 128); q and out once per grid
    # step (4), k and v twice per inner pipeline run (4 runs).
    block = 128 * 128 * 2
    assert kernel["bytes_accessed"] == 4 * block * 2 + 2 * 4 * 2 * block, kernel
    # Two exp2 of a (128, 128) block per inner step, 8 inner steps.
    assert kernel["transcendentals"] == 2 * 128 * 128 * 8, kernel

    code = run(t, d, "--emit=code", "--tpu=v5e", "-o", "-").stdout
    match = re.search(r"cost_estimate=pl\.CostEstimate\(flops=(\d+), "
                      r"transcendentals=(\d+), bytes_accessed=(\d+)\)", code)
    assert match, code
    assert [int(g) for g in match.groups()] == [
        kernel["flops"], kernel["transcendentals"], kernel["bytes_accessed"]]

    v6e = json.loads(run(t, d, "--emit=report", "--report-format=json").stdout)
    assert v6e["kernels"][0]["target"] == "v6e"
    assert v6e["kernels"][0]["time_s"] < kernel["time_s"], "v6e is faster than v5e"

    timing = run(t, d, "--emit=code", "-o", "-", "--timing").stderr
    assert re.search(r"modeled kernel time: attention [\d.]+ (us|ms) \(v6e\)",
                     timing), timing
    symbolic = subprocess.run([t, "compile", "examples/attention.py", "--emit=code",
                               "-o", "-", "--timing"], cwd=d, capture_output=True,
                              text=True)
    assert symbolic.returncode == 0, symbolic.stderr
    assert "modeled kernel time: unavailable" in symbolic.stderr, symbolic.stderr
    # The report of a shape-generic kernel: a located error naming the
    # parameters to pass with --arg.
    report = subprocess.run([t, "compile", "examples/attention.py", "--emit=report"],
                            cwd=d, capture_output=True, text=True)
    assert report.returncode == 1, report
    assert re.search(r"attention\.py:\d+:\d+: error: no cost estimate for kernel "
                     r"'attention': .*q_in, k_in, v_in are symbolic; pass each with "
                     r"--arg, e\.g\. --arg=q_in=f32\[D0,D1,D2\]", report.stderr), \
        report.stderr
    # Every example under every launcher: a report with positive numbers.
    for kernel in kernel_table.KERNELS:
        names = kernel_table.kernel_parameters(d / "examples" / f"{kernel}.py", kernel)
        spec = kernel_table.SPECS[kernel]
        if spec.arg_dtypes:
            # Loops bounded by offsets read from memory have no static trip
            # count: the model says so instead of estimating (a known limit).
            continue
        dtype = "bfloat16" if "bfloat16" in spec.dtypes else spec.dtypes[0]
        flags = kernel_table.arg_flags(names, spec.shapes["even"], dtype, spec)
        for launcher in ("unroll", "emit_pipeline", "fori_loop"):
            result = subprocess.run(
                [t, "compile", f"examples/{kernel}.py", "--emit=report",
                 "--report-format=json", f"--launcher={launcher}", *flags],
                cwd=d, capture_output=True, text=True)
            assert result.returncode == 0, (kernel, launcher, result.stderr)
            estimate = json.loads(result.stdout)["kernels"][0]
            assert estimate["time_s"] > 0 and estimate["bytes_accessed"] > 0, estimate
            assert estimate["vmem_peak_bytes"] > 0, estimate
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
