"""pytest plugin of the Helion suite runner (``-p tessera.helion._pytest_plugin``).

Installs the drop-in before the tests import Helion's examples, runs the
tests that Helion marks as skipped or expected to fail on its own Pallas
backend (their marks say what Helion's backend does, not what Tessera
does; the mark is kept in the report), and writes one JSON line per test to
$TESSERA_SUITE_RECORDS.
"""

from __future__ import annotations

import json
import os
import time

import pytest

_PALLAS_MARKERS = ("skipIfPallas", "xfailIfPallas", "xfailIfPallasTpu",
                   "xfailIfPallasInterpret", "skipIfPallasInterpret")
_MARK_ATTRIBUTE = "__tessera_helion_pallas_mark__"


def _recording_marker(marker: str):
    def factory(reason: str = ""):
        def decorate(item):
            marks = dict(getattr(item, _MARK_ATTRIBUTE, {}))
            marks[marker] = reason
            try:
                setattr(item, _MARK_ATTRIBUTE, marks)
            except (AttributeError, TypeError):
                pass
            return item

        return decorate

    return factory


def pytest_configure(config):
    import tessera.helion

    tessera.helion.install()
    try:
        import helion._testing as testing
    except ImportError:
        return
    for marker in _PALLAS_MARKERS:
        if hasattr(testing, marker):
            setattr(testing, marker, _recording_marker(marker))


def _classify(report, call) -> tuple[str, str]:
    if report.passed:
        return "pass", ""
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(
            report.longrepr)
        return "skipped", str(reason).removeprefix("Skipped: ")
    error = call.excinfo.value if call is not None and call.excinfo is not None else None
    text = f"{type(error).__name__}: {error}" if error is not None else str(report.longrepr)
    first_line = text.strip().splitlines()[0] if text.strip() else ""
    name = type(error).__name__ if error is not None else ""
    if name == "Failed" and "Timeout" in text:
        return "timeout", first_line
    if name == "CompileError":
        located = [d for d in getattr(error, "diagnostics", ()) if d.severity == "error"]
        if located:
            return "compile error", f"{located[0].location}: {located[0].message}"
        return "compile error", first_line
    if name == "AssertionError" and any(
            word in text for word in ("not close", "Mismatch", "mismatch", "NaN", "nan")):
        return "wrong result", first_line
    if name == "AssertionError":
        return "failed assertion", first_line
    return "runtime error", first_line


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    # One record per test: its call, or the setup that skipped or failed it.
    if report.when == "call" or (report.when == "setup" and not report.passed):
        path = os.environ.get("TESSERA_SUITE_RECORDS")
        if not path:
            return
        status, detail = _classify(report, call)
        function = getattr(item, "function", None)
        marks = getattr(function, _MARK_ATTRIBUTE, {}) or getattr(
            getattr(item, "cls", None), _MARK_ATTRIBUTE, {})
        record = {
            "test": item.nodeid.split("::", 1)[-1],
            "status": status,
            "detail": detail[:400],
            "seconds": round(report.duration, 2),
            "helion_pallas_mark": marks,
            "finished": time.time(),
        }
        with open(path, "a") as stream:
            stream.write(json.dumps(record) + "\n")
