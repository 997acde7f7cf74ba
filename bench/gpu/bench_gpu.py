"""Times tessera's pallas-gpu modules next to XLA and JAX's own Pallas GPU kernels.

Given a folder of generated modules (`<kernel>_pallas.py`, from
`tessera compile examples/<kernel>.py --config=configs/pallas_gpu_triton.toml`;
`--compile` makes them with a tessera binary), each kernel of BENCHMARKS runs
at its shapes next to
  xla      XLA's own fused jnp version of the same computation,
  pallas   jax.experimental.pallas.ops.gpu's hand-written kernel, where one
           computes the same thing (attention, layer_norm, rms_norm, softmax),
  tessera_mosaic  matmul's module from the Mosaic GPU launcher
           (configs/pallas_gpu_mosaic.toml, plgpu.wgmma; `<modules>/mosaic/`),
           reported as skipped in interpret mode, which cannot run wgmma,
and, for the memory-bound kernels, a device copy of the same bytes (the
bandwidth the issue's targets are relative to). Each candidate is checked
against xla first, then warmed up and timed over --runs runs of one call
each, ended by block_until_ready; the report is the median and the
interquartile range in microseconds, with TFLOP/s or GB/s.

Writes JSON (--json) and a Markdown table (--markdown). Runs wherever JAX runs:
on a GPU for the real numbers (JAX 0.10.2 or 0.11.x), or on the CPU with
--interpret --size tiny, which checks the whole script end to end (the ctest
bench_gpu_interpret). Helion's own Triton output is not timed by this script
(it needs PyTorch with CUDA; see bench/gpu/README.md).
"""
import argparse
import dataclasses
import importlib.util
import json
import math
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass
class Benchmark:
    shapes: dict  # size -> list of argument shapes
    dtype: str
    xla: object  # the jnp reference, same arguments as the kernel
    flops: object = None  # shapes -> floating-point operations (compute-bound)
    pallas: object = None  # (arrays, interpret) -> jax.experimental.pallas.ops.gpu result
    bytes_moved: object = None  # shapes, itemsize -> bytes read + written
    # size -> the kernel's block sizes ([kernels.NAME] block_sizes), where
    # the frontend's default 128 would not fit the GPU's registers.
    block_sizes: dict = dataclasses.field(default_factory=dict)
    # Also time the Mosaic GPU launcher's module (configs/pallas_gpu_mosaic.toml,
    # plgpu.wgmma); interpret mode cannot run it on a CPU.
    mosaic: bool = False


def _rows_bytes(count):
    # `count` arrays of the first argument's size (inputs + output).
    return lambda shapes, itemsize: count * math.prod(shapes[0]) * itemsize


def _layer_norm(x, weight, bias, eps=1e-5):
    x32 = x.astype(jnp.float32)
    mean = x32.mean(axis=-1, keepdims=True)
    var = ((x32 - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x32 - mean) * jax.lax.rsqrt(var + eps) * weight + bias).astype(x.dtype)


def _rms_norm(x, weight, eps=1e-5):
    x32 = x.astype(jnp.float32)
    inv = jax.lax.rsqrt((x32 * x32).mean(axis=-1, keepdims=True) + eps)
    return (x32 * inv * weight).astype(x.dtype)


def _attention(q, k, v):
    scores = jnp.einsum("bmd,bnd->bmn", q, k, preferred_element_type=jnp.float32)
    probs = jax.nn.softmax(scores / math.sqrt(q.shape[-1]), axis=-1)
    return jnp.einsum("bmn,bnd->bmd", probs.astype(v.dtype), v,
                      preferred_element_type=jnp.float32).astype(q.dtype)


def _ops_gpu(name):
    module = importlib.import_module(f"jax.experimental.pallas.ops.gpu.{name}")
    return getattr(module, name)


def _pallas_attention(arrays, interpret):
    q, k, v = arrays
    # ops.gpu.attention.mha takes [batch, seq, heads, head_dim].
    q4, k4, v4 = (a[:, :, None, :] for a in (q, k, v))
    from jax.experimental.pallas.ops.gpu import attention
    result = attention.mha(q4, k4, v4, None, sm_scale=1.0 / math.sqrt(q.shape[-1]),
                           interpret=interpret)
    return result[:, :, 0, :]


def _pallas_norm(name):
    def run(arrays, interpret):
        x, weight, *rest = arrays
        bias = rest[0] if rest else jnp.zeros_like(weight)
        # ops.gpu's norms are vmapped twice: x is [batch, seq, features].
        return _ops_gpu(name)(x[None], weight, bias, interpret=interpret)[0]
    return run


# One 8192-wide row per program: 128 rows would be a million-element tile.
_ONE_ROW = {"target": [1]}

BENCHMARKS = {
    "add": Benchmark({"tiny": [(64, 64)] * 2, "target": [(8192, 8192)] * 2}, "bfloat16",
                     lambda x, y: x + y, bytes_moved=_rows_bytes(3)),
    "softmax": Benchmark({"tiny": [(64, 64)], "target": [(8192, 8192)]}, "bfloat16",
                         lambda x: jax.nn.softmax(x.astype(jnp.float32), axis=-1).astype(x.dtype),
                         pallas=lambda a, interpret: _ops_gpu("softmax")(a[0], interpret=interpret),
                         bytes_moved=_rows_bytes(2), block_sizes=_ONE_ROW),
    "layer_norm": Benchmark({"tiny": [(64, 64), (64,), (64,)],
                             "target": [(8192, 8192), (8192,), (8192,)]}, "bfloat16",
                            _layer_norm, pallas=_pallas_norm("layer_norm"),
                            bytes_moved=_rows_bytes(2), block_sizes=_ONE_ROW),
    "rms_norm": Benchmark({"tiny": [(64, 64), (64,)], "target": [(8192, 8192), (8192,)]},
                          "bfloat16", _rms_norm, pallas=_pallas_norm("rms_norm"),
                          bytes_moved=_rows_bytes(2), block_sizes=_ONE_ROW),
    "matmul": Benchmark({"tiny": [(64, 64)] * 2, "target": [(4096, 4096)] * 2}, "bfloat16",
                        lambda x, y: jnp.dot(x, y, preferred_element_type=jnp.float32).astype(x.dtype),
                        flops=lambda s: 2 * s[0][0] * s[0][1] * s[1][1], mosaic=True),
    "attention": Benchmark({"tiny": [(2, 64, 64)] * 3, "target": [(32, 4096, 128)] * 3},
                           "bfloat16", _attention, pallas=_pallas_attention,
                           flops=lambda s: 4 * s[0][0] * s[0][1] * s[1][1] * s[0][2]),
}


def load_kernel(path, name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def compile_modules(tessera, source_dir, kernels, size, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in kernels:
        bench = BENCHMARKS[name]
        params = _parameters(source_dir / "examples" / f"{name}.py", name)
        spelling = {"bfloat16": "bf16", "float32": "f32"}[bench.dtype]
        flags = [f"--arg={p}={spelling}[{', '.join(map(str, s))}]"
                 for p, s in zip(params, bench.shapes[size])]
        launchers = [("triton", out_dir)] + ([("mosaic", out_dir / "mosaic")]
                                             if bench.mosaic else [])
        for launcher, launcher_dir in launchers:
            launcher_dir.mkdir(parents=True, exist_ok=True)
            config = (source_dir / f"configs/pallas_gpu_{launcher}.toml").read_text()
            if size in bench.block_sizes:
                config += (f"\n[kernels.{name}]\nblock_sizes = "
                           f"[{', '.join(map(str, bench.block_sizes[size]))}]\n")
            config_path = launcher_dir / f"{name}.toml"
            config_path.write_text(config)
            subprocess.run([tessera, "compile", f"examples/{name}.py",
                            f"--config={config_path}", "--emit=code", *flags,
                            f"--output={launcher_dir}/"], cwd=source_dir, check=True)


def _parameters(example, kernel):
    import ast
    tree = ast.parse(example.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in node.args.args]
    raise ValueError(f"no kernel {kernel} in {example}")


def make_arrays(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [jnp.asarray(rng.standard_normal(s, dtype=np.float32), dtype=jnp.dtype(dtype))
            for s in shapes]


def time_call(function, arrays, warmup, runs):
    """Median and interquartile range of `runs` timed calls, in microseconds."""
    for _ in range(warmup):
        jax.block_until_ready(function(*arrays))
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(function(*arrays))
        samples.append((time.perf_counter() - start) * 1e6)
    quartiles = statistics.quantiles(samples, n=4)
    return {"median_us": statistics.median(samples), "iqr_us": quartiles[2] - quartiles[0],
            "runs": runs}


def max_error(result, expected):
    """Largest |result - expected|, relative to max(1, max |expected|)."""
    expected = np.asarray(expected, np.float32)
    diff = np.abs(np.asarray(result, np.float32) - expected)
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    return float(diff.max()) / scale if diff.size else 0.0


def run_benchmark(name, kernel, args, mosaic_kernel=None):
    bench = BENCHMARKS[name]
    shapes = bench.shapes[args.size]
    arrays = make_arrays(shapes, bench.dtype)
    xla = jax.jit(bench.xla)
    expected = xla(*arrays)
    candidates = {"tessera": jax.jit(lambda *a: kernel(*a, interpret=args.interpret)),
                  "xla": xla}
    skipped = {}
    if mosaic_kernel is not None and args.interpret:
        skipped["tessera_mosaic"] = "interpret mode cannot run plgpu.wgmma on a CPU"
    elif mosaic_kernel is not None:
        candidates["tessera_mosaic"] = jax.jit(lambda *a: mosaic_kernel(*a))
    if bench.pallas is not None:
        candidates["pallas"] = jax.jit(lambda *a: bench.pallas(a, args.interpret))
    if bench.bytes_moved is not None:
        candidates["copy"] = jax.jit(lambda x, *_: x * jnp.asarray(1, x.dtype))
    itemsize = jnp.dtype(bench.dtype).itemsize
    entry = {"kernel": name, "shapes": shapes, "dtype": bench.dtype, "results": {}}
    for label, function in candidates.items():
        result = {}
        try:
            if label not in ("xla", "copy"):
                result["max_rel_error_vs_xla"] = max_error(function(*arrays), expected)
            result.update(time_call(function, arrays, args.warmup, args.runs))
            seconds = result["median_us"] * 1e-6
            if bench.flops is not None:
                result["tflops"] = bench.flops(shapes) / seconds / 1e12
            if bench.bytes_moved is not None:
                moved = (_rows_bytes(2)(shapes, itemsize) if label == "copy"
                         else bench.bytes_moved(shapes, itemsize))
                result["gb_per_s"] = moved / seconds / 1e9
        except Exception as error:  # one failing candidate must not hide the others
            result = {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"}
        entry["results"][label] = result
    entry["results"].update({label: {"skipped": why} for label, why in skipped.items()})
    return entry


def markdown(report):
    lines = [f"# pallas-gpu benchmark ({report['device']}, jax {report['jax']}, "
             f"size {report['size']}{', interpret' if report['interpret'] else ''})", "",
             "| kernel | candidate | median us | IQR us | TFLOP/s | GB/s | max rel err vs xla |",
             "|---|---|---|---|---|---|---|"]
    for entry in report["entries"]:
        for label, result in entry["results"].items():
            if "error" in result or "skipped" in result:
                why = result.get("error") or f"skipped: {result['skipped']}"
                lines.append(f"| {entry['kernel']} | {label} | {why} | | | | |")
                continue

            def cell(key, fmt):
                return format(result[key], fmt) if key in result else ""
            lines.append(f"| {entry['kernel']} | {label} | {cell('median_us', '.1f')} | "
                         f"{cell('iqr_us', '.1f')} | {cell('tflops', '.1f')} | "
                         f"{cell('gb_per_s', '.1f')} | {cell('max_rel_error_vs_xla', '.2e')} |")
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", type=pathlib.Path, required=True,
                        help="folder of <kernel>_pallas.py (written there with --compile)")
    parser.add_argument("--compile", metavar="TESSERA", help="tessera binary: generate first")
    parser.add_argument("--compile-only", action="store_true",
                        help="generate the modules and stop (to carry them to a GPU)")
    parser.add_argument("--source-dir", type=pathlib.Path, default=pathlib.Path("."))
    parser.add_argument("--kernel", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--size", choices=("tiny", "target"), default="target")
    parser.add_argument("--interpret", action="store_true", help="Pallas interpret mode (CPU)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--markdown", type=pathlib.Path)
    args = parser.parse_args(argv)
    if args.runs < 20:
        parser.error("--runs must be at least 20")
    kernels = args.kernel or list(BENCHMARKS)
    if args.compile:
        compile_modules(args.compile, args.source_dir.resolve(), kernels, args.size,
                        args.modules)
        if args.compile_only:
            return 0
    entries = []
    for name in kernels:
        kernel = load_kernel(args.modules / f"{name}_pallas.py", name)
        mosaic_path = args.modules / "mosaic" / f"{name}_pallas.py"
        mosaic_kernel = (load_kernel(mosaic_path, name)
                         if BENCHMARKS[name].mosaic and mosaic_path.exists() else None)
        entries.append(run_benchmark(name, kernel, args, mosaic_kernel))
        print(f"{name}: " + ", ".join(
            f"{label} {r['median_us']:.1f} us" if "median_us" in r
            else f"{label} {r.get('error') or r.get('skipped')}"
            for label, r in entries[-1]["results"].items()), flush=True)
    report = {"device": str(jax.devices()[0].device_kind), "jax": jax.__version__,
              "python": platform.python_version(), "size": args.size,
              "interpret": args.interpret, "entries": entries}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    table = markdown(report)
    if args.markdown:
        args.markdown.write_text(table)
    print(table)
    failed = [f"{e['kernel']} {label}" for e in entries
              for label, r in e["results"].items()
              if "error" in r or r.get("max_rel_error_vs_xla", 0.0) > 0.05]
    if failed:
        print("failed or wrong: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
