"""Runs a module emitted by the numpy-reference backend and compares it with
the example's float64 NumPy reference (examples/references.py).

  check_numpy_output.py GENERATED.py REFERENCES.py KERNEL \
      --arg x=f32[256,512] --arg eps=1e-5 ...

Arguments are given in the kernel's order: tensors as DTYPE[dims] (random
normal data, fixed seed), scalars as numbers. Without --arg the inputs are
the example's own (references.make_inputs); missing trailing scalars take the
reference's defaults. Exit status 0 when every output
matches within the dtype's tolerance.
"""
import argparse
import importlib.util
import inspect
import re
import sys

import numpy as np

NUMPY_DTYPES = {
    "f32": np.float32, "bf16": np.float32, "f16": np.float16,
    "i32": np.int32, "i64": np.int64, "i16": np.int16, "i8": np.int8, "bool": np.bool_,
}
TOLERANCES = {"f32": 2e-3, "bf16": 3e-2, "f16": 1e-2}


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_args(specs, rng):
    names, values, dtypes = [], [], []
    for spec in specs:
        name, _, text = spec.partition("=")
        match = re.fullmatch(r"(\w+)\[([\d,\s]*)\]", text.strip())
        if match:
            dtype = match.group(1)
            shape = tuple(int(d) for d in match.group(2).split(",") if d.strip())
            data = rng.standard_normal(shape)
            values.append(data.astype(NUMPY_DTYPES[dtype]))
            dtypes.append(dtype)
        else:
            values.append(float(text) if "." in text or "e" in text else int(text))
            dtypes.append(None)
        names.append(name)
    return names, values, dtypes


def as_tuple(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("generated")
    parser.add_argument("references")
    parser.add_argument("kernel")
    parser.add_argument("--arg", action="append", default=[])
    options = parser.parse_args()

    generated = load_module(options.generated, "generated_" + options.kernel)
    references = load_module(options.references, "references")
    if options.arg:
        _, values, dtypes = make_args(options.arg, np.random.default_rng(0))
    else:
        values = references.make_inputs(options.kernel)
        dtypes = [references.EXAMPLES[options.kernel]["dtype"]] * len(values)

    # Scalar parameters with defaults (eps) are not in the example inputs:
    # give the generated function the reference's defaults.
    parameters = list(inspect.signature(getattr(references, options.kernel)).parameters.values())
    for parameter in parameters[len(values):]:
        if parameter.default is inspect.Parameter.empty:
            print(f"{options.kernel}: no value for argument '{parameter.name}'")
            return 1
        values.append(parameter.default)
        dtypes.append(None)

    got = as_tuple(getattr(generated, options.kernel)(*[
        v.copy() if isinstance(v, np.ndarray) else v for v in values]))
    want = as_tuple(getattr(references, options.kernel)(*[
        v.astype(np.float64) if isinstance(v, np.ndarray) else v for v in values]))
    if len(got) != len(want):
        print(f"{options.kernel}: {len(got)} outputs, reference has {len(want)}")
        return 1
    tolerance = max((TOLERANCES.get(d, 0.0) for d in dtypes if d), default=2e-3)
    failed = False
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64)
        if g.shape != w.shape:
            print(f"{options.kernel} output {i}: shape {g.shape}, reference {w.shape}")
            failed = True
            continue
        error = np.abs(g - w)
        bound = tolerance * (1.0 + np.abs(w))
        if not np.all(error <= bound):  # NaN (an unwritten cell) fails too
            worst = np.nanargmax(np.where(np.isnan(error), np.inf, error / bound))
            index = np.unravel_index(worst, g.shape)
            print(f"{options.kernel} output {i}: mismatch at {index}: "
                  f"got {g[index]}, reference {w[index]} (tolerance {tolerance})")
            failed = True
        else:
            print(f"{options.kernel} output {i}: {g.shape} matches "
                  f"(max abs error {error.max() if error.size else 0:.3g})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
