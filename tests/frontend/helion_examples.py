"""Compiles every example file of a Helion checkout with `tessera compile FILE`
(no flags, as a new user would) and prints a Markdown table, file by file:
whether it compiles and, if not, the first error.

usage: helion_examples.py HELION_EXAMPLES_DIR [--tessera build/bin/tessera]
                          [--jobs N]

Helion's examples are read in place and never copied into this repository
(get them with the fetch tool and `git archive HEAD examples`). Only the
top-level `*.py` files count (not `__init__.py`, nor the sub-folders), which is
the set issue 14 measures.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
ERROR_LINE = re.compile(r"^(?P<loc>[^:\n]+:\d+:\d+): error: (?P<msg>.*)$", re.M)


def compile_one(tessera: pathlib.Path, source: pathlib.Path,
                out_dir: pathlib.Path) -> tuple[str, str]:
    """Returns (verdict, first error or note) for one file."""
    out = out_dir / (source.stem + "_pallas.py")
    proc = subprocess.run([str(tessera), "compile", str(source), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    text = proc.stderr + proc.stdout
    if proc.returncode == 0:
        if out.exists():
            return ("yes", "")
        lines = text.strip().splitlines()
        return ("yes (no kernel)", lines[0] if lines else "")
    match = ERROR_LINE.search(text)
    if match:
        loc = match.group("loc").rsplit("/", 1)[-1]
        return ("no", f"{loc}: {match.group('msg')}")
    first = text.strip().splitlines()[0] if text.strip() else f"exit {proc.returncode}"
    return ("no", f"exit {proc.returncode}: {first}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", type=pathlib.Path)
    parser.add_argument("--tessera", type=pathlib.Path,
                        default=ROOT / "build" / "bin" / "tessera")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    files = sorted(p for p in args.examples.glob("*.py") if p.name != "__init__.py")
    if not files:
        print(f"no example files in {args.examples}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda f: compile_one(args.tessera, f, pathlib.Path(tmp)), files))
    print("| file | compiles | first error |")
    print("|---|---|---|")
    for source, (verdict, detail) in zip(files, results):
        detail = detail.replace("|", "\\|")
        print(f"| {source.name} | {verdict} | {detail} |")
    compiled = sum(1 for verdict, _ in results if verdict.startswith("yes"))
    print(f"\n{compiled} of {len(files)} files compile.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
