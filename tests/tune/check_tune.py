"""`tessera tune` through the CLI, and conformance of what it chooses.

  check_tune.py --tessera BIN --source-dir DIR --work-dir DIR [--kernel K ...]

1. The command: a small matmul is tuned (table, `why:` line, the real
   compiler's verdict on the top candidates, --measure's no-TPU note) and the
   tuned TOML is honoured by `tessera compile --config`: the generated module
   uses its launcher and block sizes; another generation or other --arg
   shapes leave the kernel's own blocks (the entry is keyed); a misspelt key
   is a located error; no --arg is a clear error.
2. Conformance of tuned configs (matmul, attention, layer_norm at realistic
   bf16 shapes): tune (its top candidates pass the real compiler), then the
   winner's launcher and block sizes at the kernel table's small shape
   (blocks clamped to the dims where the shape is smaller) run in both
   interpret modes against the float64 reference, export for TPU, compile
   with libtpu for v5e / v6e / v7x, and pass pyflakes.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tomllib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "conformance"))
import conformance_lib as lib  # noqa: E402
import kernel_table  # noqa: E402

import jax.numpy as jnp  # noqa: E402

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
REALISTIC = {
    "matmul": [(1024, 1024), (1024, 1024)],
    "attention": [(1, 4, 1024, 128)] * 3,
    "layer_norm": [(2048, 1024), (1024,), (1024,)],
}


def run(args, *command, check=True):
    result = subprocess.run([args.tessera, *command], cwd=args.source_dir,
                            capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"$ tessera {' '.join(command)}\n{result.stdout}{result.stderr}")
    return result


def flags(kernel, shapes, dtype):
    names = kernel_table.kernel_parameters(SOURCE_DIR / "examples" / f"{kernel}.py", kernel)
    return kernel_table.arg_flags(names, shapes, dtype)


def check_command(args):
    out = args.work_dir / "matmul_tuned.toml"
    small = flags("matmul", [(256, 512), (512, 256)], "float32")
    result = run(args, "tune", "examples/matmul.py", *small, "--tpu=v6e", "--top=3",
                 "--measure=2", f"--output={out}")
    text = result.stdout
    for needle in ("kernel matmul on v6e: block slots tile_m", "rank  launcher",
                   "real TPU compiler (libtpu, deviceless) on the top 3",
                   "why: ", "--measure: jax.devices() has no TPU here"):
        assert needle in text, f"{needle!r} not in:\n{text}"
    rows = [line for line in text.splitlines() if re.match(r"\s+[123]\s{2}\w", line)]
    assert len(rows) == 3 and all(row.endswith("compiles") for row in rows), text
    tuned = tomllib.loads(out.read_text())
    entry = tuned["kernels"]["matmul"]
    assert entry["tpu"] == "v6e" and entry["args"]["x"] == "f32[256, 512]", entry
    launcher, blocks = entry["launcher"], entry["block_sizes"]
    assert tuned["backend"]["pallas-tpu"]["launcher"] == launcher, tuned

    code = run(args, "compile", "examples/matmul.py", f"--config={out}", "-o", "-").stdout
    assert f"launcher {launcher}, tpu v6e" in code, code[:300]
    grid = f"grid=(pl.cdiv(256, {blocks[0]}), pl.cdiv(256, {blocks[1]})),"
    assert grid in code, (grid, code)
    # Same result with the shapes given on the command line.
    assert run(args, "compile", "examples/matmul.py", f"--config={out}", *small,
               "-o", "-").stdout == code
    # Keyed: another generation or other shapes keep the kernel's own blocks.
    own = "grid=(pl.cdiv(256, 128), pl.cdiv(256, 128)),"
    for extra in (["--tpu=v5e", *small], flags("matmul", [(256, 256), (256, 256)], "float32")):
        other = run(args, "compile", "examples/matmul.py", f"--config={out}", *extra,
                    "--verbose", "-o", "-")
        if blocks[:2] != [128, 128]:
            assert own in other.stdout, other.stdout
        assert "does not apply (it is keyed by" in other.stderr, other.stderr
    bad = args.work_dir / "bad.toml"
    bad.write_text(out.read_text().replace('tpu = "v6e"\nlauncher', 'tpu = "v6e"\nlauncer'))
    result = run(args, "compile", "examples/matmul.py", f"--config={bad}", "-o", "-",
                 check=False)
    assert result.returncode == 1 and re.search(
        r"bad\.toml:\d+:\d+: error: unknown key 'launcer' in \[kernels\.matmul\]: .*"
        r"did you mean 'launcher'\?", result.stderr), result.stderr
    result = run(args, "tune", "examples/matmul.py", check=False)
    assert result.returncode == 1 and "tessera tune needs the argument shapes" \
        in result.stderr, result.stderr
    print(f"tune CLI: ok (winner {launcher} {blocks})")


def check_conformance(args, kernel):
    tuned_path = args.work_dir / f"{kernel}_tuned.toml"
    run(args, "tune", f"examples/{kernel}.py", *flags(kernel, REALISTIC[kernel], "bfloat16"),
        "--tpu=v6e", "--top=2", f"--output={tuned_path}")
    entry = tomllib.loads(tuned_path.read_text())["kernels"][kernel]
    # The winner's blocks and launcher, not keyed, at the small shape.
    config = args.work_dir / f"{kernel}_small.toml"
    base = (args.source_dir / "configs" / f"pallas_{entry['launcher']}.toml").read_text()
    config.write_text(base + f"\n[kernels.{kernel}]\nblock_sizes = {entry['block_sizes']}\n")
    shapes = kernel_table.SPECS[kernel].shapes["even"]
    module_path = args.work_dir / f"{kernel}_tuned_small.py"
    run(args, "compile", f"examples/{kernel}.py", f"--config={config}",
        *flags(kernel, shapes, "bfloat16"), "-o", str(module_path))
    reference = lib.load_module(args.source_dir / "examples" / "references.py",
                                "tune_references")
    arrays, exact = lib.make_inputs([(s, jnp.bfloat16) for s in shapes], seed=7)
    function = getattr(lib.load_module(module_path, f"tuned_{kernel}"), kernel)
    cells = {}
    lib.check_function(function, arrays, getattr(reference, kernel)(*exact), cells)
    cells["pyflakes"] = lib.timed(lambda: lib.pyflakes(module_path))
    red = {name: cell for name, cell in cells.items() if cell.status != "pass"}
    assert not red, (kernel, entry, red)
    print(f"{kernel}: tuned {entry['launcher']} {entry['block_sizes']} passes "
          f"{', '.join(cells)}")


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work-dir", required=True, type=pathlib.Path)
    parser.add_argument("--kernel", action="append", choices=sorted(REALISTIC))
    args = parser.parse_args(argv)
    args.tessera = str(pathlib.Path(args.tessera).resolve())
    args.work_dir = args.work_dir.resolve()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    if not args.kernel:
        check_command(args)
    for kernel in args.kernel or sorted(REALISTIC):
        check_conformance(args, kernel)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
