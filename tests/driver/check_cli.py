#!/usr/bin/env python3
"""Runs one `tessera` command line and checks its exit code and output.

  check_cli.py --exit N [--stdout-has TEXT]... [--stderr-has TEXT]...
               [--stdout-lacks TEXT]... [--stderr-lacks TEXT]...
               [--file-has PATH=TEXT]... [--cwd DIR] [--env NAME=VALUE]...
               [--fresh-dir DIR] -- COMMAND...
"""

import argparse
import os
import shutil
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int, required=True)
    parser.add_argument("--stdout-has", action="append", default=[])
    parser.add_argument("--stderr-has", action="append", default=[])
    parser.add_argument("--stdout-lacks", action="append", default=[])
    parser.add_argument("--stderr-lacks", action="append", default=[])
    parser.add_argument("--file-has", action="append", default=[])
    parser.add_argument("--cwd")
    parser.add_argument("--fresh-dir", help="emptied before the run")
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command

    if options.fresh_dir:
        shutil.rmtree(options.fresh_dir, ignore_errors=True)
        os.makedirs(options.fresh_dir)
    env = dict(os.environ)
    env.pop("TESSERA_PLUGIN_PATH", None)
    for item in options.env:
        name, _, value = item.partition("=")
        env[name] = value
    result = subprocess.run(command, cwd=options.cwd, env=env,
                            capture_output=True, text=True, timeout=100)

    failures = []
    if result.returncode != options.exit:
        failures.append(f"exit code {result.returncode}, expected {options.exit}")
    for text in options.stdout_has:
        if text not in result.stdout:
            failures.append(f"stdout lacks {text!r}")
    for text in options.stderr_has:
        if text not in result.stderr:
            failures.append(f"stderr lacks {text!r}")
    for text in options.stdout_lacks:
        if text in result.stdout:
            failures.append(f"stdout has {text!r}")
    for text in options.stderr_lacks:
        if text in result.stderr:
            failures.append(f"stderr has {text!r}")
    for item in options.file_has:
        path, _, text = item.partition("=")
        path = os.path.join(options.cwd or ".", path)
        try:
            with open(path, encoding="utf-8") as f:
                contents = f.read()
        except OSError as error:
            failures.append(f"cannot read {path}: {error}")
            continue
        if text not in contents:
            failures.append(f"{path} lacks {text!r}")
    if failures:
        print("command:", " ".join(command))
        print("\n".join(failures))
        print(f"--- stdout\n{result.stdout}--- stderr\n{result.stderr}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
