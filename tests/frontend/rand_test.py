"""hl.rand: statistics, determinism per seed, and independence of the block.

Compiles examples/dropout.py with no --arg (and once more with other block
sizes, for every launcher) and runs it in interpret mode on ones, so the
output is 0 where hl.rand gave a value <= p and 1 / (1 - p) elsewhere:
- the kept fraction is within 5 sigma of 1 - p for p = 0.1, 0.5, 0.9 (the
  values are uniform), and rows, columns and the two halves of the tensor
  keep alike (no block-periodic pattern);
- the same seed gives the same mask, other seeds give masks that agree on
  about p^2 + (1 - p)^2 of the elements (independent draws);
- the mask does not depend on the block sizes or the launcher, and equals
  the NumPy definition in examples/references.py (rand_uniform);
- a rank-generic flatten (`x.view(-1)`, `hl.rand([tile], seed)`,
  `out.view_as(x)`, as Helion's low_mem_dropout) runs for inputs of rank
  1, 2 and 3 and returns the caller's shape.

usage: rand_test.py TESSERA_BINARY SOURCE_DIR WORK_DIR
"""
import pathlib
import subprocess
import sys

import numpy as np


FLAT_DROPOUT = """
import torch
import helion
import helion.language as hl


@helion.kernel()
def flat_dropout(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    n = x.numel()
    x_flat = x.view(-1)
    out_flat = torch.empty_like(x_flat)
    for t in hl.tile(n):
        r = hl.rand([t], seed=seed)
        out_flat[t] = torch.where(r > p, x_flat[t] / (1.0 - p), 0.0)
    return out_flat.view_as(x)
"""


def compile_dropout(tessera, source_dir, out, extra=()):
    subprocess.run([tessera, "compile", "examples/dropout.py", "-o", str(out), *extra],
                   cwd=source_dir, check=True)


def main(tessera, source_dir, work_dir):
    source_dir, work_dir = pathlib.Path(source_dir), pathlib.Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(source_dir / "examples"))
    sys.path.insert(0, str(source_dir / "tests" / "conformance"))
    import conformance_lib
    import references
    failures = []
    out = work_dir / "dropout_default.py"
    compile_dropout(tessera, source_dir, out)
    dropout = conformance_lib.load_module(out, "dropout_default").dropout
    ones = np.ones((256, 384), np.float32)
    n = ones.size

    def mask(fn, p, seed):
        return np.asarray(fn(ones, p=p, seed=seed, interpret=True)) != 0

    for p in (0.1, 0.5, 0.9):
        kept = mask(dropout, p, 7)
        sigma = np.sqrt(p * (1 - p) / n)
        print(f"p={p}: kept {kept.mean():.4f}, expected {1 - p:.4f} +- {5 * sigma:.4f}")
        if abs(kept.mean() - (1 - p)) > 5 * sigma:
            failures.append(f"p={p}: kept fraction {kept.mean():.4f} is not 1 - p")
        for name, part in (("rows", kept.mean(axis=1)), ("columns", kept.mean(axis=0))):
            spread = np.sqrt(p * (1 - p) / (n / part.size))
            if np.max(np.abs(part - (1 - p))) > 6 * spread:
                failures.append(f"p={p}: some {name} keep far from 1 - p")
        if abs(kept[:128].mean() - kept[128:].mean()) > 10 * sigma:
            failures.append(f"p={p}: the two row halves keep differently")
    p = 0.5
    first, again = mask(dropout, p, 1234), mask(dropout, p, 1234)
    if not np.array_equal(first, again):
        failures.append("the same seed gave different masks")
    for seed in (0, 1, 1235, 2**31 - 1):
        agree = (mask(dropout, p, seed) == first).mean()
        print(f"seed {seed} vs 1234: masks agree on {agree:.4f} (independent: 0.5)")
        if abs(agree - 0.5) > 5 * np.sqrt(0.25 / n):
            failures.append(f"seed {seed}: mask not independent of seed 1234")
    rows, cols = np.arange(256)[:, None], np.arange(384)[None, :]
    expected = references.rand_uniform(1234, rows, cols) > p
    if not np.array_equal(first, expected):
        failures.append("the mask differs from references.rand_uniform")
    for launcher in ("unroll", "emit_pipeline", "fori_loop"):
        config = work_dir / f"blocks_{launcher}.toml"
        base = (source_dir / "configs" / f"pallas_{launcher}.toml").read_text()
        config.write_text(base + "\n[kernels.dropout]\nblock_sizes = [64, 256]\n")
        path = work_dir / f"dropout_{launcher}.py"
        compile_dropout(tessera, source_dir, path,
                        ["--config", str(config)])
        other = conformance_lib.load_module(path, path.stem).dropout
        if not np.array_equal(mask(other, p, 1234), first):
            failures.append(f"{launcher} with blocks 64 x 256: the mask changed")
    flat = work_dir / "flat_dropout.py"
    flat.write_text(FLAT_DROPOUT)
    flat_out = work_dir / "flat_dropout_pallas.py"
    subprocess.run([tessera, "compile", str(flat), "-o", str(flat_out)], check=True)
    flat_dropout = conformance_lib.load_module(flat_out, "flat_dropout_pallas").flat_dropout
    for shape in ((300,), (3, 200), (2, 3, 50)):
        x = np.ones(shape, np.float32)
        got = np.asarray(flat_dropout(x, 0.5, 99, interpret=True))
        want = references.rand_uniform(99, np.arange(x.size)).reshape(shape) > 0.5
        print(f"flatten {shape}: shape {got.shape}")
        if got.shape != shape or not np.array_equal(got != 0, want):
            failures.append(f"flatten {shape}: wrong shape or mask")
    for failure in failures:
        print("FAIL:", failure)
    print("rand: " + ("FAILED" if failures else "all checks passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
