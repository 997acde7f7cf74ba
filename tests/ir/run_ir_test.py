#!/usr/bin/env python3
"""Runs one IR-file test: `tessera compile INPUT <RUN args> --verify-roundtrip`
and compares its output with INPUT's .expected file (see IrTests.cmake for
the file conventions). Prints a unified diff on mismatch; exit 0 on pass."""

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys

DIRECTIVE = re.compile(r"^# (EXIT|STREAM):\s*(\S+)\s*$")


def run_args(input_path):
    """The arguments of every `# RUN:` line, in order."""
    args = []
    with open(input_path, encoding="utf-8") as f:
        for line in f:
            marker = line.find("# RUN:")
            if marker >= 0:
                args += shlex.split(line[marker + len("# RUN:"):])
    return args


def read_expected(path):
    """(exit code, stream, text, directive lines) of an .expected file."""
    if not os.path.exists(path):
        return 0, None, None, []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    exit_code, stream, directives = 0, None, []
    while lines:
        match = DIRECTIVE.match(lines[0])
        if not match:
            break
        directives.append(lines.pop(0))
        if match.group(1) == "EXIT":
            exit_code = int(match.group(2))
        else:
            stream = match.group(2)
    return exit_code, stream, "".join(lines), directives


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--expected", required=True)
    parser.add_argument("--plugin-path", action="append", default=[])
    options = parser.parse_args()

    directory, name = os.path.split(os.path.abspath(options.input))
    command = [options.tessera, "compile", name] + run_args(options.input)
    for path in options.plugin_path:
        command += ["--plugin-path", os.path.abspath(path)]
    command.append("--verify-roundtrip")

    env = dict(os.environ)
    env.pop("TESSERA_PLUGIN_PATH", None)  # only what the test names
    result = subprocess.run(command, cwd=directory, env=env,
                            capture_output=True, text=True, timeout=100)

    exit_code, stream, expected, directives = read_expected(options.expected)
    if stream is None:
        stream = "stdout" if exit_code == 0 else "stderr"
    actual = {"stdout": result.stdout, "stderr": result.stderr,
              "both": result.stdout + result.stderr}.get(stream)
    if actual is None:
        print(f"{options.expected}: unknown STREAM '{stream}'")
        return 1

    if os.environ.get("TESSERA_UPDATE_EXPECTED") == "1":
        if not directives and result.returncode != 0:
            directives = [f"# EXIT: {result.returncode}\n"]
            actual = result.stderr
        with open(options.expected, "w", encoding="utf-8") as f:
            f.write("".join(directives) + actual)
        print(f"updated {options.expected}")
        return 0

    shown = " ".join(shlex.quote(part) for part in command)
    if expected is None:
        print(f"missing expected file {options.expected}\n"
              f"command (in {directory}): {shown}\n"
              f"exit code {result.returncode}\n--- stdout\n{result.stdout}"
              f"--- stderr\n{result.stderr}")
        return 1
    failures = []
    if result.returncode != exit_code:
        failures.append(f"exit code {result.returncode}, expected {exit_code}")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=options.expected, tofile=f"actual {stream}")
        failures.append("output differs:\n" + "".join(diff))
    if failures:
        print(f"FAIL: {options.input}\ncommand (in {directory}): {shown}")
        for failure in failures:
            print(failure)
        other = result.stderr if stream == "stdout" else result.stdout
        if other:
            print(f"--- {'stderr' if stream == 'stdout' else 'stdout'}\n{other}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
