"""Tessera's TPU legality verdicts against the real TPU compiler's.

usage: legality_sweep.py --tessera BIN --work-dir DIR [--tpu GEN ...] [--dtype D ...]

Each cell is one kernel with explicit block sizes, one dtype and one TPU
generation. Tessera compiles it (`--tpu GEN`): either it emits a module, or it
rejects the blocks with a located error. The real compiler (libtpu, deviceless;
scripts/verify_tpu.py) then judges the same blocks:
  * Tessera accepted: its module must compile;
  * Tessera rejected: the module emitted with `check_legality = false` (the
    blocks exactly as asked, no VMEM limit raised) must fail to compile, and
    Tessera's error must be located at the `hl.tile` line that chose the
    blocks and name the rule.
A cell is green when both verdicts agree. The blocks cover the (8 x packing,
128) rule for f32 / bf16 / int8 (legal, sublane-misaligned, lane-misaligned,
full-dim), rank-1 blocks (carried as (1, n) rows), and VMEM footprints below
the default scoped limit, between it and the capacity (Tessera raises
vmem_limit_bytes) and above the capacity (rejected).
"""
import argparse
import dataclasses
import importlib.util
import pathlib
import re
import subprocess
import sys
import time

import conformance_lib as lib
import verify_tpu

DTYPES = {"float32": "f32", "bfloat16": "bf16", "int8": "i8"}
TORCH_DTYPES = {"float32": "torch.float32", "bfloat16": "torch.bfloat16",
                "int8": "torch.int8"}

ELEMENTWISE_2D = '''
import torch
import helion
import helion.language as hl


@helion.kernel()
def sweep(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n], block_size=[{bm}, {bn}]):
        out[tile_m, tile_n] = x[tile_m, tile_n] + x[tile_m, tile_n]
    return out
'''

ELEMENTWISE_1D = '''
import torch
import helion
import helion.language as hl


@helion.kernel()
def sweep(x: torch.Tensor) -> torch.Tensor:
    n = x.size(0)
    out = torch.empty_like(x)
    for tile in hl.tile(n, block_size={b}):
        out[tile] = x[tile] + x[tile]
    return out
'''
TILE_LINE = 11  # the hl.tile line of both templates (1-based)


@dataclasses.dataclass(frozen=True)
class Case:
    label: str
    source: str
    shape: tuple


def cases():
    """Blocks per dtype: (label, template, shape)."""
    result = []
    two_d = [
        # (bm, bn) on a 1024 x 2048 array: legal for every dtype, sublane
        # multiples of 8 / 16 / 32, lane misalignment, full dims.
        (8, 128), (16, 128), (32, 128), (32, 256), (256, 512), (12, 128),
        (8, 100), (64, 64), (1024, 128), (8, 2048), (24, 384),
    ]
    for bm, bn in two_d:
        result.append(Case(f"2d {bm}x{bn}", ELEMENTWISE_2D.format(bm=bm, bn=bn),
                           (1024, 2048)))
    # VMEM: (4 x block) for x and out, double-buffered. f32 blocks of
    # 2048 x 2048 (16 MiB: 64 MiB in all) pass the default scoped limit but fit
    # v5e / v6e; 4096 x 4096 (64 MiB each, 256 MiB in all) fit nowhere.
    for bm, bn in ((512, 2048), (2048, 2048), (4096, 4096)):
        result.append(Case(f"vmem {bm}x{bn}", ELEMENTWISE_2D.format(bm=bm, bn=bn),
                           (8192, 4096)))
    for b in (128, 256, 512, 1024, 64, 384):
        result.append(Case(f"1d {b}", ELEMENTWISE_1D.format(b=b), (4096,)))
    return result


def tessera_compile(args, case, dtype, generation, out_dir, check_legality=True):
    """Returns (module path or None, stderr)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    source = out_dir / "sweep.py"
    source.write_text(case.source)
    config = out_dir / "pipeline.toml"
    config.write_text(
        "[pipeline]\nfrontend = \"helion-py\"\npasses = [\"ssa\", \"outline\"]\n"
        "backend = \"pallas-tpu\"\n\n[backend.pallas-tpu]\nlauncher = \"unroll\"\n"
        f"tpu = \"{generation}\"\ncheck_legality = {str(check_legality).lower()}\n")
    shape = ",".join(map(str, case.shape))
    result = subprocess.run(
        [args.tessera, "compile", str(source), f"--config={config}",
         f"--arg=x={DTYPES[dtype]}[{shape}]", f"--output={out_dir}/"],
        capture_output=True, text=True)
    module = out_dir / "sweep_pallas.py"
    if result.returncode == 0 and module.exists():
        return module, result.stderr
    return None, result.stderr


def real_compile(module_path, case, dtype, generation):
    """(ok, detail) of the real compiler on the module."""
    spec = importlib.util.spec_from_file_location(
        "sweep_" + re.sub(r"\W", "_", str(module_path)), module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return lib.check_tpu_compile(module.sweep, [(case.shape, dtype)], generation)


def run_cell(args, case, dtype, generation):
    """Returns (tessera verdict, compiler verdict, agree, detail)."""
    out_dir = (args.work_dir / generation / dtype / re.sub(r"\W+", "_", case.label))
    module, stderr = tessera_compile(args, case, dtype, generation, out_dir)
    if module is not None:
        ok, detail = real_compile(module, case, dtype, generation)
        verdict = "vmem_limit" if "vmem_limit_bytes" in module.read_text() else "legal"
        return verdict, "compiles" if ok else "rejects", ok, detail
    errors = [line for line in stderr.splitlines() if ": error: " in line]
    located = any(re.search(rf"sweep\.py:{TILE_LINE}:\d+: error: ", line) for line in errors)
    first = errors[0] if errors else stderr.strip()[:200]
    unchecked, unchecked_stderr = tessera_compile(
        args, case, dtype, generation, out_dir / "unchecked", check_legality=False)
    if unchecked is None:
        return "rejects", "-", False, f"check_legality=false failed too: {unchecked_stderr}"
    ok, detail = real_compile(unchecked, case, dtype, generation)
    agree = not ok and located
    why = "" if located else f" (error not located at sweep.py:{TILE_LINE}: {first})"
    return "rejects", "compiles" if ok else "rejects", agree, f"{first}; compiler: {detail}{why}"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--work-dir", required=True, type=pathlib.Path)
    parser.add_argument("--tpu", action="append", choices=verify_tpu.GENERATIONS)
    parser.add_argument("--dtype", action="append", choices=tuple(DTYPES))
    parser.add_argument("--case", action="append", help="only cases with this label")
    args = parser.parse_args(argv)
    args.work_dir = args.work_dir.resolve()
    start = time.perf_counter()
    rows = []
    for generation in args.tpu or verify_tpu.GENERATIONS:
        for dtype in args.dtype or DTYPES:
            for case in cases():
                if args.case and case.label not in args.case:
                    continue
                tessera, compiler, agree, detail = run_cell(args, case, dtype, generation)
                rows.append((generation, dtype, case, tessera, compiler, agree, detail))
                print(f"  {generation} {dtype:8} {case.label:16} tessera {tessera:10} "
                      f"compiler {compiler:8} {'agree' if agree else 'DISAGREE'}", flush=True)
    disagree = [row for row in rows if not row[5]]
    print()
    for generation, dtype, case, tessera, compiler, _, detail in disagree:
        print(f"DISAGREE {generation} {dtype} {case.label}: tessera {tessera}, "
              f"compiler {compiler}: {detail}")
    print(f"{len(rows) - len(disagree)}/{len(rows)} cells agree "
          f"({sum(r[3] == 'rejects' for r in rows)} rejected by Tessera, "
          f"{sum(r[3] == 'vmem_limit' for r in rows)} with a raised vmem_limit_bytes), "
          f"{time.perf_counter() - start:.1f}s")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
