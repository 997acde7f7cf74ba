"""The ``tessera`` command of an installed package: runs the CLI binary
that ``pip install .`` put in the package (tessera/bin/tessera)."""

from __future__ import annotations

import os
import pathlib
import sys


def main() -> None:
    binary = pathlib.Path(__file__).resolve().parent / "bin" / "tessera"
    if not binary.is_file():
        sys.exit(f"tessera: the CLI is not installed with this package ({binary})")
    os.execv(binary, [str(binary), *sys.argv[1:]])


if __name__ == "__main__":
    main()
