"""The one list of expected-failure cells of the conformance matrix.

Key: (kernel, launcher, dtype, shape, check); "*" matches anything. dtype is
"float32" or "bfloat16", shape "even" or "ragged", check one of harness.CHECKS
("compile", "interpret", "tpu_interpret", "export", "pyflakes").
Value: a one-line reason that names the JAX limitation (tests/conformance/
README.md quotes this list). A matched cell that fails is "xfail"; one that
passes is "XPASS" and turns the matrix red, so stale entries get removed.
"""

EXPECTED_FAILURES = {
}


def expected_failure(kernel, launcher, dtype, shape, check):
    """Returns the reason if this cell is expected to fail, else None."""
    cell = (kernel, launcher, dtype, shape, check)
    for key, reason in EXPECTED_FAILURES.items():
        if all(k == "*" or k == c for k, c in zip(key, cell)):
            return reason
    return None


def validate():
    """Every entry: a 5-tuple key and a non-empty one-line reason."""
    problems = []
    for key, reason in EXPECTED_FAILURES.items():
        if len(key) != 5:
            problems.append(f"{key}: key must be (kernel, launcher, dtype, shape, check)")
        if not reason.strip() or "\n" in reason:
            problems.append(f"{key}: reason must be one non-empty line")
    return problems
