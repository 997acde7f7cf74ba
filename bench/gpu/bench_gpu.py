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
  helion   Helion's own Triton output for the same kernel source
           (examples/<kernel>.py), compiled by Helion with the same block
           sizes, num_warps and num_stages as each tessera module (needs
           PyTorch with CUDA and the helion package; skipped otherwise),
and, for the memory-bound kernels, a device copy of the same bytes (the
bandwidth the issue's targets are relative to). At --size target a kernel
is compiled in several launch variants (VARIANTS: blocks, warps, stages), so
that the report can name each launcher's best. Each candidate is checked
against xla first and warmed up; then every candidate of the kernel is timed
in turn over --runs runs, and that --rounds times (interleaved, so that a
drift of the GPU's clocks falls on all candidates alike). A run is calls
back to back (as many as last --min-run-us) ended by block_until_ready
(torch.cuda.synchronize for helion); the report is the median and the
interquartile range of the time per call over all runs, in microseconds,
with TFLOP/s or GB/s, and whether issue 17's targets are met.

Writes JSON (--json) and a Markdown table (--markdown). Runs wherever JAX runs:
on a GPU for the real numbers (JAX 0.10.2 or 0.11.x), or on the CPU with
--interpret --size tiny, which checks the whole script end to end (the ctest
bench_gpu_interpret).
"""
import argparse
import dataclasses
import importlib.util
import json
import math
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import helion_column  # noqa: E402

LAUNCHERS = ("triton", "mosaic")


@dataclasses.dataclass(frozen=True)
class Variant:
    """One launch configuration of a kernel: its [kernels.NAME] block_sizes
    (None: the frontend's defaults) and the backend's num_warps / num_stages
    (0: the launch policy's choice)."""
    block_sizes: tuple = None
    num_warps: int = 0
    num_stages: int = 0

    @property
    def name(self):
        parts = ["b" + "x".join(map(str, self.block_sizes)) if self.block_sizes else "default"]
        parts += [f"w{self.num_warps}"] if self.num_warps else []
        parts += [f"s{self.num_stages}"] if self.num_stages else []
        return "-".join(parts)


@dataclasses.dataclass
class Benchmark:
    shapes: dict  # size -> list of argument shapes
    dtype: str
    xla: object  # the jnp reference, same arguments as the kernel
    flops: object = None  # shapes -> floating-point operations (compute-bound)
    pallas: object = None  # (arrays, interpret) -> jax.experimental.pallas.ops.gpu result
    pallas_blocks: tuple = None  # the ops.gpu kernel's block sizes, where it has some
    pallas_config: str = "ops.gpu default"  # the report's name for that kernel's launch
    pallas_interprets: bool = True  # False: a GPU-only kernel (skipped in interpret mode)
    bytes_moved: object = None  # shapes, itemsize -> bytes read + written
    # size -> launcher -> the launch variants compiled and timed; a size or
    # launcher not named compiles one Variant() (triton only).
    variants: dict = dataclasses.field(default_factory=dict)

    def launch_variants(self, size):
        return self.variants.get(size, {"triton": [Variant()]})


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


def _pallas_hopper_matmul(arrays, interpret):
    # JAX's hand-written Mosaic GPU matmul (warp-specialized, persistent, two
    # consumer warpgroups over a 128 x 256 CTA tile): what Mosaic GPU reaches
    # when every trick is spelled out by hand, next to the generated kernel.
    del interpret  # GPU only (pallas_interprets=False)
    from jax.experimental.pallas.ops.gpu import hopper_matmul_mgpu as hopper
    config = hopper.TuningConfig(tile_m=128, tile_n=128, tile_k=64, max_concurrent_steps=4,
                                 grid_minor_dim=hopper.MatmulDimension.N, grid_tile_width=8,
                                 wg_dimension=hopper.MatmulDimension.N)
    return hopper.matmul(arrays[0], arrays[1], None, config)


def _pallas_norm(name):
    def run(arrays, interpret):
        x, weight, *rest = arrays
        bias = rest[0] if rest else jnp.zeros_like(weight)
        # ops.gpu's norms are vmapped twice: x is [batch, seq, features].
        return _ops_gpu(name)(x[None], weight, bias, interpret=interpret)[0]
    return run


def _variants(triton, mosaic=()):
    by_launcher = {"triton": [Variant(*v) for v in triton]}
    if mosaic:
        by_launcher["mosaic"] = [Variant(*v) for v in mosaic]
    return {"target": by_launcher}


# One 8192-wide row per program (128 rows would be a million-element tile),
# with the policy's warps and with more.
_ONE_ROW = _variants([((1,),), ((1,), 8), ((1,), 16)])

BENCHMARKS = {
    "add": Benchmark({"tiny": [(64, 64)] * 2, "target": [(8192, 8192)] * 2}, "bfloat16",
                     lambda x, y: x + y, bytes_moved=_rows_bytes(3),
                     variants=_variants([((128, 128),), ((64, 512), 8), ((32, 1024), 8)])),
    "softmax": Benchmark({"tiny": [(64, 64)], "target": [(8192, 8192)]}, "bfloat16",
                         lambda x: jax.nn.softmax(x.astype(jnp.float32), axis=-1).astype(x.dtype),
                         pallas=lambda a, interpret: _ops_gpu("softmax")(a[0], interpret=interpret),
                         bytes_moved=_rows_bytes(2), variants=_ONE_ROW),
    "layer_norm": Benchmark({"tiny": [(64, 64), (64,), (64,)],
                             "target": [(8192, 8192), (8192,), (8192,)]}, "bfloat16",
                            _layer_norm, pallas=_pallas_norm("layer_norm"),
                            bytes_moved=_rows_bytes(2), variants=_ONE_ROW),
    "rms_norm": Benchmark({"tiny": [(64, 64), (64,)], "target": [(8192, 8192), (8192,)]},
                          "bfloat16", _rms_norm, pallas=_pallas_norm("rms_norm"),
                          bytes_moved=_rows_bytes(2), variants=_ONE_ROW),
    # "At its best blocks": a sweep of the blocks and pipelines that Triton's
    # and Mosaic GPU's own Hopper matmuls use.
    "matmul": Benchmark({"tiny": [(64, 64)] * 2, "target": [(4096, 4096)] * 2}, "bfloat16",
                        # cuBLAS's bf16 GEMM (f32 accumulation inside).
                        lambda x, y: jnp.dot(x, y),
                        flops=lambda s: 2 * s[0][0] * s[0][1] * s[1][1],
                        pallas=_pallas_hopper_matmul, pallas_interprets=False,
                        pallas_config="ops.gpu hopper_matmul_mgpu 2x128x128x64-s4",
                        variants=_variants(
                            [((128, 128, 128),), ((128, 128, 64), 4, 4), ((128, 128, 64), 8, 4),
                             ((128, 256, 64), 8, 3), ((128, 256, 64), 8, 4),
                             ((64, 256, 64), 4, 4), ((256, 128, 64), 8, 3)],
                            [((128, 128, 128),), ((128, 128, 128), 0, 3),
                             ((128, 128, 64), 0, 3), ((128, 128, 64), 0, 4),
                             ((128, 128, 64), 0, 6), ((64, 256, 64), 0, 4),
                             ((64, 256, 64), 0, 3), ((128, 128, 64), 0, 5)])),
    "attention": Benchmark({"tiny": [(2, 64, 64)] * 3, "target": [(32, 4096, 128)] * 3},
                           "bfloat16", _attention, pallas=_pallas_attention,
                           pallas_blocks=(1, 128, 128),
                           flops=lambda s: 4 * s[0][0] * s[0][1] * s[1][1] * s[0][2],
                           # ops.gpu's blocks (128 x 128) under the policy's
                           # launch (8 warps, 2 stages, as ops.gpu) and 4 warps;
                           # 3 stages of them do not fit shared memory.
                           variants=_variants([((1, 128, 128),), ((1, 128, 128), 4, 2),
                                               ((1, 128, 64), 4, 3), ((1, 128, 64), 8, 3)])),
}


def load_kernel(path, name):
    spec = importlib.util.spec_from_file_location(f"bench_{path.parent.name}_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def module_path(modules, launcher, variant, name):
    return modules / launcher / variant.name / f"{name}_pallas.py"


def variant_config(config_text, name, variant):
    """The launcher's config with the variant's warps, stages and blocks."""
    settings = {"num_warps": variant.num_warps, "num_stages": variant.num_stages}
    lines = [line for line in config_text.splitlines()
             if not re.match(r"\s*(num_warps|num_stages)\s*=", line)]
    at = lines.index("[backend.pallas-gpu]") + 1
    lines[at:at] = [f"{key} = {value}" for key, value in settings.items()]
    text = "\n".join(lines) + "\n"
    if variant.block_sizes:
        text += (f"\n[kernels.{name}]\nblock_sizes = "
                 f"[{', '.join(map(str, variant.block_sizes))}]\n")
    return text


def compile_modules(tessera, source_dir, kernels, size, modules):
    """Writes <modules>/<launcher>/<variant>/<kernel>_pallas.py; a variant
    the backend rejects (a located error) is reported and left out."""
    rejected = []
    for name in kernels:
        bench = BENCHMARKS[name]
        params = _parameters(source_dir / "examples" / f"{name}.py", name)
        spelling = {"bfloat16": "bf16", "float32": "f32"}[bench.dtype]
        flags = [f"--arg={p}={spelling}[{', '.join(map(str, s))}]"
                 for p, s in zip(params, bench.shapes[size])]
        for launcher, variants in bench.launch_variants(size).items():
            config_text = (source_dir / f"configs/pallas_gpu_{launcher}.toml").read_text()
            for variant in variants:
                out_dir = module_path(modules, launcher, variant, name).parent
                out_dir.mkdir(parents=True, exist_ok=True)
                config_path = out_dir / f"{name}.toml"
                config_path.write_text(variant_config(config_text, name, variant))
                run = subprocess.run([tessera, "compile", f"examples/{name}.py",
                                      f"--config={config_path}", "--emit=code", *flags,
                                      f"--output={out_dir}/"], cwd=source_dir,
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    rejected.append(f"{name} {launcher} {variant.name}: "
                                    f"{run.stderr.strip().splitlines()[0]}")
    for line in rejected:
        print(f"rejected by the backend: {line}")
    return rejected


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


class Timer:
    """The time of one call of `call()`, in microseconds, sampled in runs.
    A run is `calls` calls issued back to back and ended by
    synchronize(result): as many as make a run last min_run_us, so that the
    host's dispatch time (tens of microseconds a call for jax.jit and for
    PyTorch, seen on an H200) overlaps the device's work instead of adding
    to it. The runs of a kernel's candidates are taken in interleaved
    rounds (run_benchmark), so that a drift of the GPU's clocks while the
    candidates are timed one after the other falls on all of them alike."""

    def __init__(self, call, synchronize, warmup, min_run_us):
        self.call, self.synchronize = call, synchronize
        for _ in range(warmup):
            synchronize(call())
        start = time.perf_counter()
        synchronize(call())
        single_us = (time.perf_counter() - start) * 1e6
        self.calls = max(1, math.ceil(min_run_us / max(single_us, 1.0)))
        self.samples = []

    def sample(self, runs):
        for _ in range(runs):
            start = time.perf_counter()
            for _ in range(self.calls):
                result = self.call()
            self.synchronize(result)
            self.samples.append((time.perf_counter() - start) * 1e6 / self.calls)

    def summary(self):
        """Median and interquartile range over every run taken."""
        quartiles = statistics.quantiles(self.samples, n=4)
        return {"median_us": statistics.median(self.samples),
                "iqr_us": quartiles[2] - quartiles[0],
                "runs": len(self.samples), "calls_per_run": self.calls}


def max_error(result, expected):
    """Largest |result - expected|, relative to max(1, max |expected|)."""
    expected = np.asarray(expected, np.float32)
    diff = np.abs(np.asarray(result, np.float32) - expected)
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    return float(diff.max()) / scale if diff.size else 0.0


def launch_of(path):
    """The num_warps / num_stages a generated module's header names (the
    policy's choice where the variant left them at 0)."""
    header = path.read_text().splitlines()[0]
    found = {key: re.search(rf"{key} (\d+)", header) for key in ("num_warps", "num_stages")}
    return {key: int(m.group(1)) if m else 0 for key, m in found.items()}


class Candidates:
    """What one kernel's report times: (label, config, call, synchronize,
    result-to-numpy), and the candidates skipped with why."""

    def __init__(self):
        self.timed, self.skipped = [], []

    def add(self, label, config, call, synchronize=jax.block_until_ready, to_numpy=np.asarray):
        self.timed.append((label, config, call, synchronize, to_numpy))

    def skip(self, label, config, why):
        self.skipped.append({"candidate": label, "config": config, "skipped": why})


def gather_candidates(name, arrays, args):
    bench = BENCHMARKS[name]
    found = Candidates()
    xla = jax.jit(bench.xla)
    found.add("xla", "", lambda: xla(*arrays))
    helion, helion_why = None, helion_column.unavailable_reason()
    for launcher, variants in bench.launch_variants(args.size).items():
        label = "tessera" if launcher == "triton" else f"tessera_{launcher}"
        for variant in variants:
            path = module_path(args.modules, launcher, variant, name)
            if not path.exists():
                found.skip(label, variant.name, "not generated (rejected by the backend)")
                continue
            if launcher == "mosaic" and args.interpret:
                found.skip(label, variant.name, "Mosaic GPU's interpreter holds no wgmma accumulator")
                continue
            kernel = jax.jit(load_kernel(path, name), static_argnames="interpret")
            found.add(label, variant.name,
                      lambda kernel=kernel: kernel(*arrays, interpret=args.interpret))
            if launcher != "triton":
                continue
            if helion_why is not None:
                found.skip("helion", variant.name, helion_why)
                continue
            try:
                if helion is None:
                    helion = helion_column.HelionKernel(
                        args.source_dir / "examples" / f"{name}.py", name, arrays)
                launch = launch_of(path)
                found.add("helion", variant.name,
                          helion.compile(variant.block_sizes, launch["num_warps"],
                                         launch["num_stages"]),
                          helion.synchronize, helion_column.result_as_numpy)
            except Exception as error:  # Helion's own limits are a result too
                found.skip("helion", variant.name, _error_text(error))
    if bench.pallas is not None and args.interpret and not bench.pallas_interprets:
        found.skip("pallas", bench.pallas_config, "a GPU-only kernel (no interpret mode)")
    elif bench.pallas is not None:
        pallas = jax.jit(lambda *a: bench.pallas(a, args.interpret))
        found.add("pallas", bench.pallas_config, lambda: pallas(*arrays))
    if bench.bytes_moved is not None:
        copy = jax.jit(lambda x: x * jnp.asarray(1, x.dtype))
        found.add("copy", "", lambda: copy(arrays[0]))
    return found


def _error_text(error):
    lines = str(error).strip().splitlines() or [""]
    return f"{type(error).__name__}: {lines[0][:200]}"


def run_benchmark(name, args):
    bench = BENCHMARKS[name]
    shapes = bench.shapes[args.size]
    arrays = make_arrays(shapes, bench.dtype)
    found = gather_candidates(name, arrays, args)
    expected = None
    itemsize = jnp.dtype(bench.dtype).itemsize
    entry = {"kernel": name, "shapes": shapes, "dtype": bench.dtype, "results": []}
    timers = []  # (result, timer) of the candidates that ran and were checked
    for label, config, call, synchronize, to_numpy in found.timed:
        result = {"candidate": label, "config": config}
        try:
            value = call()
            if label == "xla":
                expected = value
            elif label != "copy":
                result["max_rel_error_vs_xla"] = max_error(to_numpy(value), expected)
            timers.append((result, Timer(call, synchronize, args.warmup, args.min_run_us)))
        except Exception as error:  # one failing candidate must not hide the others
            result["error"] = _error_text(error)
            print(f"  {name} {label} {config}: {result['error']}", flush=True)
        entry["results"].append(result)
    for _ in range(args.rounds):
        for result, timer in timers:
            try:
                timer.sample(args.runs)
            except Exception as error:
                result["error"] = _error_text(error)
    for result, timer in timers:
        if "error" in result:
            print(f"  {name} {result['candidate']} {result['config']}: {result['error']}")
            continue
        result.update(timer.summary())
        seconds = result["median_us"] * 1e-6
        if bench.flops is not None:
            result["tflops"] = bench.flops(shapes) / seconds / 1e12
        if bench.bytes_moved is not None:
            moved = (_rows_bytes(2)(shapes, itemsize) if result["candidate"] == "copy"
                     else bench.bytes_moved(shapes, itemsize))
            result["gb_per_s"] = moved / seconds / 1e9
        print(f"  {name} {result['candidate']} {result['config']}: "
              f"{result['median_us']:.1f} us", flush=True)
    entry["results"] += found.skipped
    entry["targets"] = judge_targets(name, entry["results"])
    return entry


def _best(results, label, key, blocks=None):
    """The result of `label` with the highest `key`, optionally among the
    configs whose blocks are `blocks`."""
    ok = [r for r in results if r["candidate"] == label and key in r
          and r.get("max_rel_error_vs_xla", 0.0) <= 0.05
          and (blocks is None or r["config"].startswith(Variant(blocks).name))]
    return max(ok, key=lambda r: r[key]) if ok else None


def judge_targets(name, results):
    """Issue 17's targets for this kernel: [{target, met, detail}]."""
    bench = BENCHMARKS[name]
    targets = []

    def judge(target, best, reference, key, threshold):
        """best's `key` against reference's: met at `threshold` or more."""
        if best is None or reference is None:
            targets.append({"target": target, "met": False, "detail": "no result"})
            return
        ratio = best[key] / reference[key]
        unit = "TFLOP/s" if key == "tflops" else "GB/s"
        targets.append({"target": target, "met": ratio >= threshold,
                        "detail": f"{ratio:.1%} at {best['config']} ({best[key]:.0f} "
                                  f"vs {reference[key]:.0f} {unit})"})

    if name == "matmul":
        for label in ("tessera", "tessera_mosaic"):
            judge(f"{label} >= 80% of xla", _best(results, label, "tflops"),
                  _best(results, "xla", "tflops"), "tflops", 0.8)
    elif name == "attention":
        judge("tessera >= pallas.ops.gpu at its blocks",
              _best(results, "tessera", "tflops", bench.pallas_blocks),
              _best(results, "pallas", "tflops"), "tflops", 1.0)
    elif bench.bytes_moved is not None:
        judge("tessera >= 85% of copy bandwidth", _best(results, "tessera", "gb_per_s"),
              _best(results, "copy", "gb_per_s"), "gb_per_s", 0.85)
    return targets


def markdown(report):
    lines = [f"# pallas-gpu benchmark ({report['device']}, jax {report['jax']}, "
             f"size {report['size']}{', interpret' if report['interpret'] else ''})", "",
             "| kernel | candidate | config | median us | IQR us | TFLOP/s | GB/s | "
             "max rel err vs xla |",
             "|---|---|---|---|---|---|---|---|"]
    for entry in report["entries"]:
        for result in entry["results"]:
            head = f"| {entry['kernel']} | {result['candidate']} | {result['config']} |"
            if "error" in result or "skipped" in result:
                why = result.get("error") or f"skipped: {result['skipped']}"
                lines.append(f"{head} {why} | | | | |")
                continue

            def cell(key, fmt):
                return format(result[key], fmt) if key in result else ""
            lines.append(f"{head} {cell('median_us', '.1f')} | {cell('iqr_us', '.1f')} | "
                         f"{cell('tflops', '.1f')} | {cell('gb_per_s', '.1f')} | "
                         f"{cell('max_rel_error_vs_xla', '.2e')} |")
    lines += ["", "## Targets" + (" (not judged in interpret mode)" if report["interpret"]
                                  else ""), "",
              "| kernel | target | met | best |", "|---|---|---|---|"]
    for entry in report["entries"]:
        for target in entry["targets"]:
            met = "-" if report["interpret"] else ("yes" if target["met"] else "**no**")
            lines.append(f"| {entry['kernel']} | {target['target']} | {met} | "
                         f"{target['detail']} |")
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", type=pathlib.Path, required=True,
                        help="folder of <launcher>/<variant>/<kernel>_pallas.py "
                             "(written there with --compile)")
    parser.add_argument("--compile", metavar="TESSERA", help="tessera binary: generate first")
    parser.add_argument("--compile-only", action="store_true",
                        help="generate the modules and stop (to carry them to a GPU)")
    parser.add_argument("--source-dir", type=pathlib.Path, default=pathlib.Path("."),
                        help="the checkout (examples/ and configs/; default .)")
    parser.add_argument("--kernel", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--size", choices=("tiny", "target"), default="target")
    parser.add_argument("--interpret", action="store_true", help="Pallas interpret mode (CPU)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20,
                        help="timed runs of each candidate per round")
    parser.add_argument("--rounds", type=int, default=5,
                        help="interleaved rounds: each round times every candidate of a "
                             "kernel once (--runs runs), in turn")
    parser.add_argument("--min-run-us", type=float, default=2000.0,
                        help="calls per timed run: enough to last this long (1: one "
                             "call a run, each timed with its launch)")
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--markdown", type=pathlib.Path)
    args = parser.parse_args(argv)
    if args.runs < 20:
        parser.error("--runs must be at least 20")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    args.source_dir = args.source_dir.resolve()
    kernels = args.kernel or list(BENCHMARKS)
    if args.compile:
        compile_modules(args.compile, args.source_dir, kernels, args.size, args.modules)
        if args.compile_only:
            return 0
    report = {"device": str(jax.devices()[0].device_kind), "jax": jax.__version__,
              "python": platform.python_version(), "size": args.size,
              "interpret": args.interpret, "entries": []}
    for name in kernels:
        print(f"{name}:", flush=True)
        report["entries"].append(run_benchmark(name, args))
        # Written after every kernel: a run cut short still reports.
        if args.json:
            args.json.write_text(json.dumps(report, indent=2) + "\n")
        if args.markdown:
            args.markdown.write_text(markdown(report))
    print(markdown(report))
    failed = [f"{e['kernel']} {r['candidate']} {r['config']}" for e in report["entries"]
              for r in e["results"] if r["candidate"] != "helion"
              if r.get("max_rel_error_vs_xla", 0.0) > 0.05
              or ("error" in r and (r["config"] in ("", "ops.gpu default")
                                    or r["config"] == _default_name(e["kernel"], args.size)))]
    if failed:
        print("failed or wrong: " + ", ".join(failed))
    return 1 if failed else 0


def _default_name(kernel, size):
    """The first triton variant: an error there fails the run; other
    variants' errors are results of the sweep."""
    return BENCHMARKS[kernel].launch_variants(size)["triton"][0].name


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
