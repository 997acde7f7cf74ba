"""GPU kernel times without the host: bench_gpu.py's candidates under Nsight Compute.

bench_gpu.py times a candidate from the host (calls back to back, then a
sync), so its numbers hold whatever the framework does around the kernel:
JAX's dispatch of the jitted function, XLA's launch of the custom call,
PyTorch's launch of Helion's kernel. This script separates the two. For each
kernel it runs tessera's module at one launch variant, Helion's kernel at the
same config, XLA's reference and the hand-written Pallas kernel where
bench_gpu.py has one, --calls times each, in one process under
`ncu --metrics gpu__time_duration.sum` (the GPU's own start-to-end time of
each kernel; `--clock-control none` leaves the clocks as bench_gpu.py sees
them). Between candidates it launches PyTorch's spin kernel as a marker, so
that each GPU kernel is credited to the candidate that launched it.

On the GPU machine (modules from `bench_gpu.py --compile-only`, wheels as for
gpu_machine.sh):

    python3 bench/gpu/kernel_times.py --modules .gpu_carry/modules \\
        --kernel add --kernel matmul=b128x256x64-w8-s4 --json OUT/kernel_times.json \\
        --markdown OUT/kernel_times.md

KERNEL=VARIANT picks the variant (default: the first triton variant, the
launch policy's). Prints one row per candidate and GPU kernel: the kernel's
name, its launches and their median time in microseconds.
"""
import argparse
import csv
import io
import json
import pathlib
import shutil
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
MARKER = "spin_kernel"  # torch.cuda._sleep's kernel


def _child(args):
    import jax
    import torch

    sys.path.insert(0, str(HERE))
    import bench_gpu
    import helion_column

    def mark():
        torch.cuda._sleep(1000)
        torch.cuda.synchronize()

    order = []
    for name, variant_name in args.kernel:
        bench = bench_gpu.BENCHMARKS[name]
        variants = bench.launch_variants(args.size)["triton"]
        variant = next(v for v in variants if v.name == variant_name) if variant_name \
            else variants[0]
        arrays = bench_gpu.make_arrays(bench.shapes[args.size], bench.dtype)
        path = bench_gpu.module_path(args.modules, "triton", variant, name)
        tessera = jax.jit(bench_gpu.load_kernel(path, name))
        xla = jax.jit(bench.xla)
        candidates = [("tessera", lambda: tessera(*arrays), jax.block_until_ready),
                      ("xla", lambda: xla(*arrays), jax.block_until_ready)]
        if bench.pallas is not None:
            pallas = jax.jit(lambda *a: bench.pallas(a, False))
            candidates.append(("pallas", lambda: pallas(*arrays), jax.block_until_ready))
        if helion_column.unavailable_reason() is None:
            launch = bench_gpu.launch_of(path)
            helion = helion_column.HelionKernel(
                args.source_dir / "examples" / f"{name}.py", name, arrays)
            candidates.append(("helion", helion.compile(
                variant.block_sizes, launch["num_warps"], launch["num_stages"]),
                helion.synchronize))
        # Every candidate compiled (XLA autotunes its GEMMs then) before the
        # first marker: a segment holds the timed calls alone.
        for _, call, synchronize in candidates:
            synchronize(call())
        if order:  # the segment since the last kernel's final marker
            order.append({"compiles": name})
        for label, call, synchronize in candidates:
            mark()
            for _ in range(args.calls):
                synchronize(call())
            order.append({"kernel": name, "variant": variant.name, "candidate": label})
        mark()
    args.order.write_text(json.dumps(order))


def _segments(rows):
    """The profiled kernels between two markers, [[(name, ns), ...], ...]:
    a kernel's candidates' timed calls, one segment each, then the next
    kernel's compiles (its first call of each candidate), and so on."""
    segments, current = [], None
    for row in rows:
        if row["Kernel Name"].startswith(MARKER):
            if current is not None:
                segments.append(current)
            current = []
        elif current is not None:
            current.append((row["Kernel Name"], float(row["Metric Value"].replace(",", ""))))
    return segments


def report(order, rows):
    """One entry per candidate: its GPU kernels by name, launches, median us."""
    entries = []
    for who, kernels in zip(order, _segments(rows)):
        if "compiles" in who:
            continue
        by_name = {}
        for name, ns in kernels:
            by_name.setdefault(name, []).append(ns / 1000.0)
        who["gpu_kernels"] = [{"name": name, "launches": len(times),
                               "median_us": statistics.median(times)}
                              for name, times in by_name.items()]
        entries.append(who)
    return entries


def markdown(entries, device):
    lines = [f"# GPU kernel times under Nsight Compute ({device})", "",
             "| kernel | variant | candidate | GPU kernel | launches | median us |",
             "|---|---|---|---|---|---|"]
    for entry in entries:
        for kernel in entry["gpu_kernels"]:
            lines.append(f"| {entry['kernel']} | {entry['variant']} | {entry['candidate']} | "
                         f"`{kernel['name'][:60]}` | {kernel['launches']} | "
                         f"{kernel['median_us']:.1f} |")
    return "\n".join(lines) + "\n"


def _device_name():
    run = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         capture_output=True, text=True)
    return run.stdout.strip() or "unknown GPU"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", type=pathlib.Path, required=True)
    parser.add_argument("--source-dir", type=pathlib.Path, default=pathlib.Path("."))
    parser.add_argument("--kernel", action="append", required=True, metavar="KERNEL[=VARIANT]")
    parser.add_argument("--size", choices=("tiny", "target"), default="target")
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--markdown", type=pathlib.Path)
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--order", type=pathlib.Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.kernel = [tuple(k.split("=", 1)) if "=" in k else (k, None) for k in args.kernel]
    args.source_dir = args.source_dir.resolve()
    if args.child:
        _child(args)
        return 0
    ncu = shutil.which(args.ncu)
    if ncu is None:
        parser.error(f"no {args.ncu} on PATH (Nsight Compute)")
    work = (args.json.parent if args.json else pathlib.Path("."))
    order_path = work / "kernel_times.order.json"
    child = [sys.executable, str(pathlib.Path(__file__).resolve()), "--child",
             "--modules", str(args.modules), "--source-dir", str(args.source_dir),
             "--size", args.size, "--calls", str(args.calls), "--order", str(order_path)]
    for name, variant in args.kernel:
        child += ["--kernel", f"{name}={variant}" if variant else name]
    run = subprocess.run([ncu, "--csv", "--print-units", "base", "--clock-control", "none",
                          "--metrics", "gpu__time_duration.sum", "--target-processes", "all",
                          "--print-kernel-base", "function", *child],
                         capture_output=True, text=True)
    lines = [line for line in run.stdout.splitlines() if line.startswith('"')]
    if run.returncode != 0 or not lines:
        print(run.stdout[-3000:] + run.stderr[-3000:])
        return 1
    entries = report(json.loads(order_path.read_text()),
                     list(csv.DictReader(io.StringIO("\n".join(lines)))))
    for entry in entries:
        for kernel in entry["gpu_kernels"]:
            print(f"{entry['kernel']:<11} {entry['variant']:<20} {entry['candidate']:<8} "
                  f"{kernel['median_us']:9.1f} us x{kernel['launches']:<3} {kernel['name'][:60]}")
    if args.json:
        args.json.write_text(json.dumps(entries, indent=2) + "\n")
    if args.markdown:
        args.markdown.write_text(markdown(entries, _device_name()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
