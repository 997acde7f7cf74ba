"""Calibration of the TPU cost model against published TPU kernel times.

  calibration.py --tessera BIN --source-dir DIR [--table]

Every MEASUREMENTS row is a published wall time of a real TPU kernel (source
named per row). The model's prediction is `tessera compile --emit=report
--report-format=json` of our own equivalent kernel (examples/) with the same
shapes, dtypes and block sizes, plus the source's measurement overhead where
the source says its times include one. The test fails when a prediction is
off by more than TOLERANCE or when the model orders a source's block-size
choices differently from the measurements. --table prints the markdown
table of docs/cost_model.md.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

TOLERANCE = 0.30

# JAX's Pallas TPU guide "Matrix Multiplication" (docs/pallas/tpu/matmul.ipynb
# in jax-ml/jax; https://docs.jax.dev/en/latest/pallas/tpu/matmul.html),
# section "Performance of pipelined kernels": bf16 x bf16 -> bf16 matmul, f32
# accumulator, grid (m/bm, n/bn, k/bk), on a TPU v5e, timed with timeit
# around jax.block_until_ready (100 trials).
MATMUL_GUIDE = "JAX Pallas TPU guide, matmul (v5e)"
# The guide says its times include Python dispatch. Its XLA row for the
# 1024^3 bf16 matmul measures 119.43 us where the v5e roofline is
# max(2*1024^3 / 197e12, 3 * 2 MiB / 819e9) = 10.90 us: 108.5 us of dispatch.
MATMUL_GUIDE_DISPATCH_S = 119.43e-6 - 2 * 1024**3 / 197e12

# Myan17/QuackHacks, benchmark_001 "GPT-2 Small on TPU v5e" (JAX 0.6.2, one
# v5litepod-1 chip, minimum of 30 runs): Pallas matmuls with a (m, n, k)
# grid and bf16 in / out, and a full-row RMSNorm. The times include the
# dispatch of one jitted call too: the source's XLA RMSNorm of 512 x 768
# bf16 takes 104 us where its HBM roofline is 1.6 us.
GPT2_BENCH = "QuackHacks benchmark_001, GPT-2 layers (v5e)"
GPT2_BENCH_DISPATCH_S = 104e-6 - (2 * 512 * 768 * 2) / 819e9


def matmul_args(m, n, k):
    return [f"x=bf16[{m},{k}]", f"y=bf16[{k},{n}]"]


MEASUREMENTS = [
    # (source, kernel, tpu, problem, block_sizes, args, measured seconds)
    (MATMUL_GUIDE, "matmul", "v5e", "1024^3", [128, 128, 128], matmul_args(1024, 1024, 1024), 297.666e-6),
    (MATMUL_GUIDE, "matmul", "v5e", "4096^3", [128, 128, 128], matmul_args(4096, 4096, 4096), 11.771515e-3),
    (MATMUL_GUIDE, "matmul", "v5e", "8192^3", [128, 128, 128], matmul_args(8192, 8192, 8192), 91.835771e-3),
    (MATMUL_GUIDE, "matmul", "v5e", "1024^3", [512, 1024, 1024], matmul_args(1024, 1024, 1024), 127.087e-6),
    (MATMUL_GUIDE, "matmul", "v5e", "4096^3", [512, 1024, 1024], matmul_args(4096, 4096, 4096), 889.088e-6),
    (MATMUL_GUIDE, "matmul", "v5e", "8192^3", [512, 1024, 1024], matmul_args(8192, 8192, 8192), 6.099434e-3),
    (GPT2_BENCH, "matmul", "v5e", "512x768x768", [512, 256, 256], matmul_args(512, 768, 768), 0.121e-3),
    (GPT2_BENCH, "matmul", "v5e", "512x3072x768", [512, 512, 256], matmul_args(512, 3072, 768), 0.138e-3),
    (GPT2_BENCH, "matmul", "v5e", "512x768x3072", [512, 256, 512], matmul_args(512, 768, 3072), 0.124e-3),
    (GPT2_BENCH, "matmul", "v5e", "2048x768x768", [512, 256, 256], matmul_args(2048, 768, 768), 0.132e-3),
    (GPT2_BENCH, "matmul", "v5e", "2048x3072x768", [512, 512, 256], matmul_args(2048, 3072, 768), 0.194e-3),
    (GPT2_BENCH, "matmul", "v5e", "2048^3", [512, 512, 512], matmul_args(2048, 2048, 2048), 0.225e-3),
    (GPT2_BENCH, "rms_norm", "v5e", "512x768", [512], ["x=bf16[512,768]", "weight=bf16[768]"], 0.101e-3),
    (GPT2_BENCH, "rms_norm", "v5e", "2048x768", [512], ["x=bf16[2048,768]", "weight=bf16[768]"], 0.107e-3),
]
OVERHEAD_S = {MATMUL_GUIDE: MATMUL_GUIDE_DISPATCH_S,
              GPT2_BENCH: GPT2_BENCH_DISPATCH_S}


def predict(tessera, source_dir, kernel, tpu, blocks, kernel_args):
    with tempfile.TemporaryDirectory() as tmp:
        config = pathlib.Path(tmp) / "config.toml"
        config.write_text(
            (source_dir / "configs" / "pallas_emit_pipeline.toml").read_text()
            + f"\n[kernels.{kernel}]\nblock_sizes = {list(blocks)}\n")
        command = [tessera, "compile", f"examples/{kernel}.py",
                   f"--config={config}", "--emit=report",
                   "--report-format=json", f"--tpu={tpu}",
                   *[f"--arg={arg}" for arg in kernel_args]]
        result = subprocess.run(command, cwd=source_dir, capture_output=True,
                                text=True)
        if result.returncode != 0:
            raise RuntimeError(f"$ {' '.join(command)}\n{result.stderr}")
        return json.loads(result.stdout)["kernels"][0]["time_s"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args(argv)
    failures = []
    rows = []
    for source, kernel, tpu, size, blocks, kernel_args, measured in MEASUREMENTS:
        modeled = predict(args.tessera, args.source_dir, kernel, tpu, blocks,
                          kernel_args)
        predicted = modeled + OVERHEAD_S.get(source, 0.0)
        ratio = predicted / measured
        rows.append((source, kernel, tpu, size, blocks, measured, modeled,
                     predicted, ratio))
        if abs(ratio - 1) > TOLERANCE:
            failures.append(f"{kernel} {size} blocks {blocks} on {tpu}: "
                            f"predicted {predicted:.4g} s, measured "
                            f"{measured:.4g} s (ratio {ratio:.2f})")
    # Same ordering of block-size choices per source and problem (where a
    # source measured several).
    groups = {}
    for row in rows:
        groups.setdefault((row[0], row[1], row[2], row[3]), []).append(row)
    for key, group in groups.items():
        by_measured = [r[4] for r in sorted(group, key=lambda r: r[5])]
        by_model = [r[4] for r in sorted(group, key=lambda r: r[7])]
        if by_measured != by_model:
            failures.append(f"{key}: measured order {by_measured}, "
                            f"model order {by_model}")
    if args.table:
        print("| source | kernel | tpu | problem | block sizes | measured | "
              "model (kernel) | predicted (+ dispatch) | ratio |")
        print("|---|---|---|---|---|---|---|---|---|")
        for (source, kernel, tpu, size, blocks, measured, modeled, predicted,
             ratio) in rows:
            print(f"| {source} | {kernel} | {tpu} | {size} | {blocks} | "
                  f"{measured * 1e6:.1f} us | {modeled * 1e6:.1f} us | "
                  f"{predicted * 1e6:.1f} us | {ratio:.2f} |")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(rows)} measurements, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
