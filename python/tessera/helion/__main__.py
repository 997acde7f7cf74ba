"""``python -m tessera.helion [--backend B] [--launcher L] [--config TOML]
program.py [args...]``: runs a Helion program with its kernels compiled by
Tessera."""

from __future__ import annotations

import argparse
import runpy
import sys

from . import install


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tessera.helion",
        description="Run a Helion program with its @helion.kernel functions compiled "
                    "by Tessera.")
    parser.add_argument("--backend", choices=("pallas-tpu", "pallas-gpu"),
                        help="the backend (default: the one for JAX's device)")
    parser.add_argument("--launcher", help="the launcher (unroll, emit_pipeline, "
                        "fori_loop for pallas-tpu; triton, mosaic for pallas-gpu)")
    parser.add_argument("--config", help="a pipeline TOML instead of --backend/--launcher")
    parser.add_argument("--interpret", action="store_true", default=None,
                        help="run kernels in Pallas interpret mode (the default on a CPU)")
    parser.add_argument("program", help="the Python file to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    options = parser.parse_args(argv)
    install(backend=options.backend, launcher=options.launcher, config=options.config,
            interpret=options.interpret)
    sys.argv = [options.program, *options.args]
    runpy.run_path(options.program, run_name="__main__")


if __name__ == "__main__":
    main()
