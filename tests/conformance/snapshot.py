"""Snapshot tests: generated code compared byte-for-byte with a stored copy.

  snapshot.py --tessera BIN --source-dir DIR KERNEL.LAUNCHER [...]   check
  snapshot.py --tessera BIN --source-dir DIR --update [KERNEL.LAUNCHER ...]
  TESSERA_UPDATE_SNAPSHOTS=1 ctest -R conformance_snapshot   (same as --update)

A snapshot is tests/conformance/snapshots/<kernel>.<launcher>.py: the module
`tessera compile examples/<kernel>.py --config configs/pallas_<launcher>.toml`
emits for the kernel's float32 "even" shapes (kernel_table.py), compiled from
the source dir with a relative path so the output does not depend on where
the tree lives. --update with no names writes DEFAULT_SNAPSHOTS.
"""
import argparse
import difflib
import os
import pathlib
import subprocess
import sys
import tempfile

import kernel_table

SNAPSHOT_DIR = pathlib.Path(__file__).resolve().parent / "snapshots"
# At least one kernel with an inner loop per launcher, and the atomic one.
DEFAULT_SNAPSHOTS = (
    "matmul.unroll", "matmul.emit_pipeline", "matmul.fori_loop",
    "attention.unroll", "attention.emit_pipeline", "attention.fori_loop",
    "split_k_matmul.emit_pipeline",
)


def generate(tessera, source_dir, kernel, launcher):
    """Returns (generated text or None, error text)."""
    example = source_dir / "examples" / f"{kernel}.py"
    names = kernel_table.kernel_parameters(example, kernel)
    shapes = kernel_table.SPECS[kernel].shapes["even"]
    with tempfile.TemporaryDirectory() as out_dir:
        command = [tessera, "compile", f"examples/{kernel}.py",
                   f"--config=configs/pallas_{launcher}.toml", "--emit=code",
                   *kernel_table.arg_flags(names, shapes, "float32", kernel_table.SPECS[kernel]),
                   f"--output={out_dir}/"]
        result = subprocess.run(command, cwd=source_dir, capture_output=True, text=True)
        if result.returncode != 0:
            return None, f"$ {' '.join(command)}\n{result.stderr}{result.stdout}"
        modules = sorted(pathlib.Path(out_dir).glob("*.py"))
        if len(modules) != 1:
            return None, f"expected one module, got {[m.name for m in modules]}"
        return modules[0].read_bytes().decode("utf-8"), ""


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("snapshots", nargs="*", help="KERNEL.LAUNCHER")
    args = parser.parse_args(argv)
    update = args.update or os.environ.get("TESSERA_UPDATE_SNAPSHOTS") == "1"
    names = args.snapshots or (list(DEFAULT_SNAPSHOTS) if update else [])
    if not names:
        parser.error("name the snapshots to check")
    failures = 0
    for name in names:
        kernel, _, launcher = name.partition(".")
        if kernel not in kernel_table.KERNELS or launcher not in kernel_table.LAUNCHERS:
            print(f"{name}: not KERNEL.LAUNCHER with a known kernel and launcher")
            failures += 1
            continue
        text, error = generate(args.tessera, args.source_dir.resolve(), kernel, launcher)
        path = SNAPSHOT_DIR / f"{name}.py"
        if text is None:
            print(f"{name}: compile failed\n{error}")
            failures += 1
        elif update:
            SNAPSHOT_DIR.mkdir(exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
            print(f"{name}: wrote {path}")
        elif not path.exists():
            print(f"{name}: no snapshot {path} (run with --update)")
            failures += 1
        elif path.read_bytes() != text.encode("utf-8"):
            stored = path.read_bytes().decode("utf-8")
            diff = difflib.unified_diff(stored.splitlines(True), text.splitlines(True),
                                        f"snapshots/{name}.py", "generated")
            print(f"{name}: generated code differs from the snapshot "
                  f"(TESSERA_UPDATE_SNAPSHOTS=1 to accept):")
            sys.stdout.writelines(diff)
            failures += 1
        else:
            print(f"{name}: identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
