"""Runs one generated kernel module in JAX interpret mode on the CPU and
prints its largest error against the NumPy float64 reference of the example.

usage: run_example.py GENERATED_MODULE.py KERNEL_NAME
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "tests" / "conformance"))

import conformance_lib  # noqa: E402
import references  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    module_path, kernel = pathlib.Path(sys.argv[1]), sys.argv[2]
    inputs = references.make_inputs(kernel, seed=0)
    module = conformance_lib.load_module(module_path, module_path.stem)
    generated = getattr(module, kernel)
    # emit_pipeline asks for the TPU generation while tracing; an abstract
    # TPU device answers on a CPU-only machine.
    with conformance_lib.on_abstract_tpu():
        results = generated(*inputs, interpret=True)
    expected = getattr(references, kernel)(*inputs)
    if not isinstance(results, tuple):
        results, expected = (results,), (expected,)
    shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in inputs)
    print(f"{kernel}({shapes}) in interpret mode:")
    worst = 0.0
    for index, (got, want) in enumerate(zip(results, expected)):
        error = float(np.max(np.abs(np.asarray(got, np.float64) - want)))
        worst = max(worst, error)
        print(f"  output {index}: shape {list(np.shape(got))}, "
              f"max |error| vs NumPy float64 = {error:.3e}")
    return 0 if worst < 1e-2 else 1


if __name__ == "__main__":
    sys.exit(main())
