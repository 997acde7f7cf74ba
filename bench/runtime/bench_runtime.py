"""The runtime's costs (issue 32's targets), each against what JAX itself
costs in the same run:

  first call   compile + load of attention (bf16, 2x1024x128) at a new
               signature, against JAX's tracing and lowering of the module
  cached call  the runtime's own work per call at a known signature (bind,
               key, lookup), 1,000 calls, median
  warm disk    a second process with the disk cache warm: compiles counted
  blocks       bf16 4096^3 matmul on v6e through tessera.load (blocks and
               launcher chosen at the call by the cost model) against the
               best of `tessera tune`'s exhaustive ranking, modeled; and the
               time the choice took

usage: bench_runtime.py [--repeat N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import tessera  # noqa: E402
from tessera._kernel import _block_search_budget  # noqa: E402


def first_call(repeat: int) -> dict:
    """Median over `repeat` fresh signatures (a new sequence length each):
    the compile and load of the module (blocks as the kernel gives them),
    the cost model's choice of blocks for the same signature, and JAX's
    trace and lowering of the loaded module."""
    from tessera._native_loader import compiler

    library = tessera.load(ROOT / "examples" / "attention.py")
    kernel = library.attention
    compile_ms, ranking_ms, trace_ms = [], [], []
    os.environ["TESSERA_BLOCK_CHOICE"] = "0"
    try:
        kernel.bind(*[jax.ShapeDtypeStruct((2, 512, 128), jnp.bfloat16)] * 3)  # warm
        for i in range(repeat):
            seq = 1024 + 128 * (i + 1)  # a signature no earlier call had
            args = [jax.ShapeDtypeStruct((2, seq, 128), jnp.bfloat16)] * 3
            start = time.perf_counter()
            spec = kernel.bind(*args)
            compile_ms.append((time.perf_counter() - start) * 1e3)
            start = time.perf_counter()
            compiler().choose_blocks(kernel.source.path, kernel.source.text,
                                     kernel.pipeline.config, [], "attention",
                                     spec.signature.args(), True, _block_search_budget())
            ranking_ms.append((time.perf_counter() - start) * 1e3)
            start = time.perf_counter()
            jax.jit(lambda q, k, v: spec._function(q, k, v, interpret=True)).trace(*args).lower()
            trace_ms.append((time.perf_counter() - start) * 1e3)
    finally:
        del os.environ["TESSERA_BLOCK_CHOICE"]
    return {"compile_and_load_ms": statistics.median(compile_ms),
            "block_ranking_ms": statistics.median(ranking_ms),
            "jax_trace_and_lower_ms": statistics.median(trace_ms)}


def cached_call(calls: int) -> dict:
    library = tessera.load(ROOT / "examples" / "add.py")
    x = jnp.ones((256, 256), jnp.float32)
    library.add(x, x)  # compiles once
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        library.add._prepare((x, x), {})
        times.append((time.perf_counter() - start) * 1e6)
    return {"runtime_overhead_us_median": statistics.median(times),
            "runtime_overhead_us_p90": sorted(times)[int(0.9 * len(times))]}


def warm_disk_cache() -> dict:
    script = textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(ROOT / 'python')!r})
        import jax.numpy as jnp, tessera
        lib = tessera.load({str(ROOT / 'examples' / 'attention.py')!r})
        q = jnp.ones((2, 256, 128), jnp.bfloat16)
        lib.attention.bind(q, q, q)
        s = tessera.cache_stats()
        print(s.compiles, s.disk_hits)
        """)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TESSERA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                                 capture_output=True, text=True).stdout.split()
            runs.append({"compiles": int(out[-2]), "disk_hits": int(out[-1])})
    return {"cold_process": runs[0], "warm_process": runs[1]}


def block_choice(tessera_cli: pathlib.Path) -> dict:
    sds = jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16)
    library = tessera.load(ROOT / "examples" / "matmul.py", options={"tpu": "v6e"})
    start = time.perf_counter()
    spec = library.matmul.bind(sds, sds)
    bind_ms = (time.perf_counter() - start) * 1e3
    from tessera._native_loader import compiler

    source = library.matmul.source
    search_ms = []
    for _ in range(5):
        start = time.perf_counter()
        compiler().choose_blocks(source.path, source.text, library.matmul.pipeline.config,
                                 [("tpu", "v6e")], "matmul",
                                 {"x": "bf16[4096, 4096]", "y": "bf16[4096, 4096]"}, True,
                                 _block_search_budget())
        search_ms.append((time.perf_counter() - start) * 1e3)
    with tempfile.TemporaryDirectory() as out:
        tuned = subprocess.run(
            [str(tessera_cli), "tune", str(ROOT / "examples" / "matmul.py"),
             "--arg", "x=bf16[4096,4096]", "--arg", "y=bf16[4096,4096]", "--tpu", "v6e",
             "--no-verify-tpu", "-o", f"{out}/tuned.toml"],
            check=True, capture_output=True, text=True).stdout
    row = next(line for line in tuned.splitlines() if line.strip().startswith("1 "))
    value, unit = re.search(r"\]\s+([\d.]+) (us|ms)", row).groups()
    return {"chosen": spec.config, "chosen_us": spec.report()["time_s"] * 1e6,
            "tune_best_us": float(value) * (1e3 if unit == "ms" else 1),
            "tune_best_row": row.strip(), "search_ms_median": statistics.median(search_ms),
            "first_bind_ms": bind_ms}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--tessera", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("TESSERA_BUILD_DIR") or ROOT / "build")
                        / "bin" / "tessera")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TESSERA_CACHE_DIR"] = cache
        results = {"first_call": first_call(args.repeat), "cached_call": cached_call(args.calls),
                   "blocks": block_choice(args.tessera)}
    results["disk_cache"] = warm_disk_cache()
    first, cached = results["first_call"], results["cached_call"]
    print(f"first call (attention bf16 2x~1024x128): compile + load "
          f"{first['compile_and_load_ms']:.2f} ms, block ranking "
          f"{first['block_ranking_ms']:.2f} ms; JAX trace + lower "
          f"{first['jax_trace_and_lower_ms']:.2f} ms")
    print(f"cached call: runtime overhead {cached['runtime_overhead_us_median']:.2f} us median "
          f"(p90 {cached['runtime_overhead_us_p90']:.2f} us) over {args.calls} calls")
    print(f"disk cache: cold process {results['disk_cache']['cold_process']}, "
          f"warm process {results['disk_cache']['warm_process']}")
    blocks = results["blocks"]
    print(f"blocks at the call (bf16 4096^3 matmul, v6e): {blocks['chosen']['launcher']} "
          f"{blocks['chosen']['block_sizes']} models {blocks['chosen_us']:.1f} us; tessera tune's "
          f"best {blocks['tune_best_us']:.1f} us ({blocks['chosen_us'] / blocks['tune_best_us']:.3f}x); "
          f"the choice took {blocks['search_ms_median']:.2f} ms (median of 5)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
