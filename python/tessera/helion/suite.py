"""``python -m tessera.helion.suite HELION_CHECKOUT``: Helion's own example
tests (test/test_examples.py of a pytorch/helion checkout) with every
``@helion.kernel`` compiled by Tessera, as a per-test table.

The checkout is the user's (Tessera does not vendor Helion). The tests run
in a pytest subprocess with the drop-in installed
(``tessera.helion._pytest_plugin``) and Helion's Pallas interpret-mode
settings (tensors on the CPU); each test is recorded as pass, wrong result,
failed assertion, compile error, runtime error, timeout or skipped, with
why. The table is written as Markdown and JSON.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

_STATUSES = ("pass", "wrong result", "failed assertion", "compile error", "runtime error",
             "timeout", "skipped")


def _helion_commit(checkout: pathlib.Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def _has_pytest_timeout() -> bool:
    return importlib.util.find_spec("pytest_timeout") is not None


def run_tests(checkout: pathlib.Path, records: pathlib.Path, arguments) -> int:
    tests = checkout / "test" / arguments.tests
    if not tests.is_file():
        raise SystemExit(f"tessera.helion.suite: {tests} not found; give the root of a "
                         "pytorch/helion checkout")
    environment = dict(os.environ)
    environment.update({
        "HELION_BACKEND": "pallas",
        "HELION_PALLAS_INTERPRET": "0" if arguments.device else "1",
        "TESSERA_SUITE_RECORDS": str(records),
    })
    for name, value in (("TESSERA_BACKEND", arguments.backend),
                        ("TESSERA_LAUNCHER", arguments.launcher),
                        ("TESSERA_CONFIG", arguments.config)):
        if value:
            environment[name] = value
    command = [sys.executable, "-m", "pytest", str(tests), "-p", "tessera.helion._pytest_plugin",
               "-p", "no:cacheprovider", "-q", "-rN", "--no-header", "--tb=line"]
    if arguments.k:
        command += ["-k", arguments.k]
    if arguments.timeout and _has_pytest_timeout():
        command += ["--timeout", str(arguments.timeout)]
    print("tessera.helion.suite:", " ".join(command), flush=True)
    return subprocess.run(command, cwd=checkout, env=environment).returncode


def summarize(records: list[dict]) -> dict[str, int]:
    counts = collections.Counter(record["status"] for record in records)
    return {status: counts.get(status, 0) for status in _STATUSES}


def _markdown(records: list[dict], meta: dict) -> str:
    counts = summarize(records)
    ran = len(records) - counts["skipped"]
    lines = [
        f"# Helion's example tests on Tessera ({meta['pipeline']})",
        "",
        f"- Helion commit: `{meta['helion_commit']}`",
        f"- Command: `{meta['command']}`",
        f"- Date: {meta['date']}",
        "",
        f"**{counts['pass']} of {ran} tests that ran pass**; "
        + ", ".join(f"{counts[s]} {s}" for s in _STATUSES[1:] if counts[s]) + ".",
        "",
        "| test | result | Helion's Pallas backend marks it | detail |",
        "|---|---|---|---|",
    ]
    for record in sorted(records, key=lambda r: r["test"]):
        marks = "; ".join(f"{name}: {reason}" for name, reason in
                          record.get("helion_pallas_mark", {}).items())
        detail = record["detail"].replace("|", "\\|").replace("\n", " ")
        lines.append(f"| `{record['test']}` | {record['status']} | {marks} | {detail} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tessera.helion.suite",
        description="Run Helion's example tests with the kernels compiled by Tessera and "
                    "write a per-test table (Markdown and JSON).")
    parser.add_argument("checkout", type=pathlib.Path,
                        help="the root of a pytorch/helion checkout")
    parser.add_argument("--backend", choices=("pallas-tpu", "pallas-gpu"),
                        help="Tessera's backend (default: the one for JAX's device)")
    parser.add_argument("--launcher", help="the backend's launcher (default: its default)")
    parser.add_argument("--config", help="a pipeline TOML instead of --backend/--launcher")
    parser.add_argument("-k", help="pytest's -k expression: only the tests it matches")
    parser.add_argument("--tests", default="test_examples.py",
                        help="the test file under test/ (default: test_examples.py)")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("helion_suite"),
                        help="where the table goes (default: ./helion_suite)")
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds a test may take (needs pytest-timeout; default 600)")
    parser.add_argument("--device", action="store_true",
                        help="run on the accelerator JAX finds instead of interpret mode")
    arguments = parser.parse_args(argv)
    checkout = arguments.checkout.resolve()
    arguments.out.mkdir(parents=True, exist_ok=True)
    records_path = arguments.out / "records.jsonl"
    records_path.unlink(missing_ok=True)
    returncode = run_tests(checkout, records_path.resolve(), arguments)
    records = []
    if records_path.exists():
        records = [json.loads(line) for line in records_path.read_text().splitlines() if line]
    pipeline = arguments.config or " ".join(
        filter(None, [arguments.backend or "default backend", arguments.launcher]))
    meta = {
        "helion_commit": _helion_commit(checkout),
        "pipeline": pipeline,
        "command": " ".join(["python -m tessera.helion.suite", *(argv or sys.argv[1:])]),
        "date": datetime.date.today().isoformat(),
        "pytest_exit_code": returncode,
    }
    stem = "suite_" + pipeline.replace(" ", "_").replace("/", "_")
    (arguments.out / f"{stem}.json").write_text(json.dumps(
        {**meta, "summary": summarize(records), "tests": records}, indent=1) + "\n")
    (arguments.out / f"{stem}.md").write_text(_markdown(records, meta))
    counts = summarize(records)
    print(f"tessera.helion.suite: {counts['pass']} pass of {len(records) - counts['skipped']} "
          f"run ({', '.join(f'{v} {k}' for k, v in counts.items() if v and k != 'pass')}); "
          f"table: {arguments.out / stem}.md")
    if not records:
        return 2
    return 1 if counts["wrong result"] else 0


if __name__ == "__main__":
    sys.exit(main())
