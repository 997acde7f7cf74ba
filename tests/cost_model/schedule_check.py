"""Checks the cost model's compute time per grid step against the static
schedule of the real TPU compiler (libtpu, deviceless; no TPU needed).

  schedule_check.py --tessera BIN --source-dir DIR [--tpu v5e v6e v7x] [--table]

For each generation and CASES row: `tessera compile` emits the kernel (unroll launcher, so
one grid step is straight-line code), JAX lowers it for a TPU topology and
libtpu compiles it with LIBTPU_INIT_ARGS=--xla_jf_dump_to=DIR. The dump's
*final_bundles.txt lists the scheduled VLIW bundles; the bundles of the grid
loop's body (from its "LB:" bundle to the end of its region) at the clock
of backends/pallas_tpu/cost_model/tpu_hardware.def are the compiler's time
per step, compared with the model's (compute + fixed per-step cycles).
"""
import argparse
import glob
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

TOLERANCE = 0.30
TOPOLOGY = {"v5e": "v5e:2x2", "v6e": "v6e:2x2", "v7x": "tpu7x:2x2x1"}
# (kernel, block_sizes, {arg: (dtype, shape)})
CASES = [
    ("matmul", [128, 128, 128], {"x": ("bf16", (1024, 1024)), "y": ("bf16", (1024, 1024))}),
    ("matmul", [256, 256, 512], {"x": ("bf16", (1024, 1024)), "y": ("bf16", (1024, 1024))}),
    ("attention", [1, 128, 128], {n: ("bf16", (1, 2, 512, 128)) for n in ("q_in", "k_in", "v_in")}),
    ("attention", [1, 256, 256], {n: ("bf16", (1, 2, 512, 128)) for n in ("q_in", "k_in", "v_in")}),
    # The blocks the tuner picks: attention's online-softmax steps with 512
    # rows (scores spill to VMEM; co-issue of MXU and vector work).
    ("attention", [1, 512, 512], {n: ("bf16", (1, 2, 1024, 128)) for n in ("q_in", "k_in", "v_in")}),
    ("attention", [1, 512, 1024], {n: ("bf16", (1, 2, 1024, 128)) for n in ("q_in", "k_in", "v_in")}),
    ("layer_norm", [8], {"x": ("f32", (512, 1024)), "weight": ("f32", (1024,)), "bias": ("f32", (1024,))}),
    ("layer_norm", [64], {"x": ("f32", (512, 1024)), "weight": ("f32", (1024,)), "bias": ("f32", (1024,))}),
]

COMPILE = r"""
import importlib.util, os, sys
import jax, jax.numpy as jnp
from jax.experimental import topologies
spec = importlib.util.spec_from_file_location("generated", sys.argv[1])
module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
dev = topologies.get_topology_desc(sys.argv[2], "tpu").devices[0]
sh = jax.sharding.SingleDeviceSharding(dev)
args = []
for item in sys.argv[4:]:
    dtype, dims = item.split(":")
    args.append(jax.ShapeDtypeStruct(tuple(int(d) for d in dims.split(",")),
                                     jnp.dtype({"bf16": "bfloat16", "f32": "float32"}[dtype]),
                                     sharding=sh))
with jax.default_device(dev):
    jax.jit(getattr(module, sys.argv[3])).trace(*args).lower().compile()
"""


def clock_hz(source_dir, tpu):
    text = (source_dir / "backends/pallas_tpu/cost_model/tpu_hardware.def").read_text()
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    for row in re.findall(r"TPU_GENERATION\((.*?)\)\s*(?=TPU_GENERATION|$)", code, re.S):
        fields = [f.strip() for f in row.split(",")]
        if fields[0] == f'"{tpu}"':
            return float(fields[1])
    raise KeyError(tpu)


def loop_body_bundles(dump_dir):
    """Bundles of the outermost loop body of the kernel's final schedule."""
    best = None
    for path in glob.glob(os.path.join(dump_dir, "*final_bundles.txt")):
        if "schedule-analysis" in path:
            continue
        text = pathlib.Path(path).read_text()
        if "vsyncpa" not in text:
            continue
        start = region = None
        for line in text.splitlines():
            m = re.match(r"^\s*(0x[0-9a-f]+|0)\s+(LB)?\s*:", line)
            if not m:
                continue
            address = int(m.group(1), 16)
            if m.group(2) == "LB" and start is None:
                start = address
                region = re.search(r"Start region (\d+)", line).group(1)
            elif start is not None and re.search(rf"End region {region}\b", line):
                count = address - start + 1
                best = count if best is None else max(best, count)
                break
    return best


def model_step(tessera, source_dir, tmp, kernel, blocks, args, tpu):
    config = pathlib.Path(tmp) / f"{kernel}.toml"
    config.write_text((source_dir / "configs/pallas_unroll.toml").read_text()
                      + f"\n[kernels.{kernel}]\nblock_sizes = {blocks}\n")
    flags = [f"--arg={n}={d}[{','.join(map(str, s))}]" for n, (d, s) in args.items()]
    base = [tessera, "compile", f"examples/{kernel}.py", f"--config={config}",
            f"--tpu={tpu}", *flags]
    report = subprocess.run(base + ["--emit=report", "--report-format=json"],
                            cwd=source_dir, capture_output=True, text=True, check=True)
    grid = json.loads(report.stdout)["kernels"][0]["stages"][0]
    module = pathlib.Path(tmp) / f"{kernel}_{'_'.join(map(str, blocks))}.py"
    subprocess.run(base + ["--emit=code", f"--output={module}"], cwd=source_dir,
                   check=True, capture_output=True)
    return (grid["compute_s"] + grid["overhead_s"]) / grid["steps"], module


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--tpu", nargs="+", default=["v5e", "v6e", "v7x"])
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args(argv)
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for tpu, (kernel, blocks, kernel_args) in (
                (tpu, case) for tpu in args.tpu for case in CASES):
            clock = clock_hz(args.source_dir, tpu)
            modeled, module = model_step(args.tessera, args.source_dir, tmp, kernel,
                                         blocks, kernel_args, tpu)
            dump = pathlib.Path(tmp) / f"dump_{tpu}_{module.stem}"
            # Several compiles may run at once on this machine: skip
            # libtpu's one-process lock (no TPU is opened).
            env = dict(os.environ, TPU_SKIP_MDS_QUERY="1",
                       ALLOW_MULTIPLE_LIBTPU_LOAD="1",
                       # Only the final bundles (a fraction of the whole
                       # dump's files and time).
                       LIBTPU_INIT_ARGS=f"--xla_jf_dump_to={dump} "
                       "--xla_jf_dump_llo_pass_label_regex=final "
                       "--xla_jf_dump_hlo_text=false")
            env.pop("JAX_PLATFORMS", None)
            shapes = [f"{d}:{','.join(map(str, s))}" for d, s in kernel_args.values()]
            result = subprocess.run([sys.executable, "-c", COMPILE, str(module),
                                     TOPOLOGY[tpu], kernel, *shapes],
                                    env=env, capture_output=True, text=True)
            if result.returncode != 0:
                failures.append(f"{kernel} {blocks} {tpu}: compile failed:\n"
                                f"{result.stderr[-2000:]}")
                continue
            bundles = loop_body_bundles(str(dump))
            if bundles is None:
                failures.append(f"{kernel} {blocks} {tpu}: no loop body in the dump")
                continue
            compiler = bundles / clock
            ratio = modeled / compiler
            rows.append((tpu, kernel, blocks, bundles, compiler, modeled, ratio))
            if abs(ratio - 1) > TOLERANCE:
                failures.append(f"{kernel} {blocks} {tpu}: model {modeled * 1e6:.3f} us "
                                f"per step, compiler {compiler * 1e6:.3f} us "
                                f"({bundles} bundles), ratio {ratio:.2f}")
    if args.table:
        print("| tpu | kernel | blocks | bundles per step | compiler | model | ratio |")
        print("|---|---|---|---|---|---|---|")
        for tpu, kernel, blocks, bundles, compiler, modeled, ratio in rows:
            print(f"| {tpu} | {kernel} | {blocks} | {bundles} | {compiler * 1e6:.3f} us | "
                  f"{modeled * 1e6:.3f} us | {ratio:.2f} |")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(rows)} kernels compared, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
