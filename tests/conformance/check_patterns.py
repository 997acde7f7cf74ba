"""Checks one hand-written pattern module (tests/conformance/patterns/).

usage: check_patterns.py PATTERN [PATTERN ...]   (file stem, e.g. matmul_unroll)

For each pattern: f32 and bf16, a shape divisible by the blocks and one that is
not, both interpret modes against a float64 NumPy reference, TPU export, and
pyflakes. Prints a matrix and exits non-zero on any red cell.
"""
import pathlib
import sys

import jax.numpy as jnp
import numpy as np

import conformance_lib as lib

PATTERN_DIR = pathlib.Path(__file__).resolve().parent / "patterns"


def _attention_reference(q, k, v):
    scores = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("bqk,bkd->bqd", weights, v)


def _layer_norm_reference(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _matmul_args(m, k, n):
    return lambda dtype: [((m, k), dtype), ((k, n), dtype)]


def _attention_args(batch_heads, seq_q, seq_k, head_dim):
    return lambda dtype: [((batch_heads, seq_q, head_dim), dtype),
                          ((batch_heads, seq_k, head_dim), dtype),
                          ((batch_heads, seq_k, head_dim), dtype)]


# pattern -> (host function, reference, {shape label: argument specs}).
_MATMUL_SHAPES = {"even": _matmul_args(32, 256, 256), "ragged": _matmul_args(40, 200, 300)}
PATTERNS = {
    "add": ("add", lambda x, y: x + y, {
        "even": lambda dtype: [((32, 256), dtype)] * 2,
        "ragged": lambda dtype: [((40, 200), dtype)] * 2,
    }),
    "matmul_unroll": ("matmul", np.matmul, _MATMUL_SHAPES),
    "matmul_emit_pipeline": ("matmul", np.matmul, _MATMUL_SHAPES),
    "matmul_fori_loop": ("matmul", np.matmul, _MATMUL_SHAPES),
    "nested_emit_pipeline": ("matmul", np.matmul, _MATMUL_SHAPES),
    "nested_fori_loop": ("matmul", np.matmul, _MATMUL_SHAPES),
    "split_k_matmul": ("split_k_matmul", np.matmul, {
        "even": _matmul_args(32, 512, 256), "ragged": _matmul_args(40, 300, 200)}),
    "layer_norm": ("layer_norm", _layer_norm_reference, {
        "even": lambda dtype: [((32, 256), dtype), ((256,), dtype), ((256,), dtype)],
        "ragged": lambda dtype: [((40, 200), dtype), ((200,), dtype), ((200,), dtype)],
    }),
    "long_sum_emit_pipeline": ("long_sum", lambda x: x.sum(axis=-1), {
        "even": lambda dtype: [((32, 1024), dtype)],
        "ragged": lambda dtype: [((40, 1000), dtype)],
    }),
    "attention_unroll": ("attention", _attention_reference, {
        "even": _attention_args(2, 32, 256, 128), "ragged": _attention_args(2, 40, 200, 128)}),
    "attention_emit_pipeline": ("attention", _attention_reference, {
        "even": _attention_args(2, 32, 256, 128), "ragged": _attention_args(2, 40, 200, 128)}),
    "attention_fori_loop": ("attention", _attention_reference, {
        "even": _attention_args(2, 32, 256, 128), "ragged": _attention_args(2, 40, 200, 128)}),
}

CHECKS = lib.RUN_CHECKS


def check_pattern(name):
    function_name, reference, shapes = PATTERNS[name]
    path = PATTERN_DIR / f"{name}.py"
    module = lib.load_module(path, f"pattern_{name}")
    function = getattr(module, function_name)
    rows = []
    for dtype in (jnp.float32, jnp.bfloat16):
        for shape_label, arg_specs in shapes.items():
            specs = arg_specs(dtype)
            arrays, exact = lib.make_inputs(specs, seed=len(rows))
            expected = reference(*exact)
            cells = {}
            lib.check_function(function, arrays, expected, cells, provide_tpu=True)
            shape_text = " ".join("x".join(map(str, shape)) for shape, _ in specs)
            rows.append((f"{name} {lib.dtype_name(dtype)} {shape_label} [{shape_text}]", cells))
    flakes = lib.timed(lambda: lib.pyflakes(path))
    rows.append((f"{name} pyflakes", {"pyflakes": flakes}))
    return rows


def main(argv):
    names = argv[1:] or sorted(PATTERNS)
    unknown = [n for n in names if n not in PATTERNS]
    if unknown:
        print(f"unknown pattern(s): {', '.join(unknown)}; known: {', '.join(sorted(PATTERNS))}")
        return 2
    rows = []
    for name in names:
        rows.extend(check_pattern(name))
    lib.print_matrix("pattern", rows, CHECKS + ("pyflakes",))
    red = [label for label, cells in rows if any(lib.is_red(c) for c in cells.values())]
    print(f"{len(rows) - len(red)}/{len(rows)} rows green")
    return 1 if red else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
