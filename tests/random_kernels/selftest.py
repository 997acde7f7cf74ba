"""Checks of the generator itself (no compiler): every seed of a range gives
a well-formed, deterministic program whose reference is finite, and the
reference's bf16 rounding and op meanings are right on known values."""
import math
import sys

import numpy as np

import generator
import ops


def check_rounding():
    values = np.array([1.0, 1.0 + 2 ** -8, 1.0 + 2 ** -8 + 2 ** -10, -3.14159, 1e-3])
    rounded = ops.round_bf16(values)
    assert rounded[0] == 1.0
    assert rounded[1] == 1.0, rounded[1]                 # tie: to even
    assert rounded[2] == 1.0 + 2 ** -7, rounded[2]      # above the tie: up
    assert abs(rounded[3] + 3.140625) < 1e-12, rounded[3]
    assert abs(rounded[4] - 1e-3) < 1e-3 * 2 ** -8


def check_meanings():
    a = np.array([-2.0, 0.0, 0.5, 3.0])
    gelu = ops.UNARY["gelu"][1](a)
    expected = [0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in a]
    assert np.allclose(gelu, expected)
    assert np.allclose(ops.UNARY["rsqrt"][1](np.array([4.0])), [0.5])
    tree = ["where", ["gt", ["leaf", "x"], ["const", 0.0]], ["leaf", "x"], ["neg", ["leaf", "x"]]]
    assert np.allclose(ops.evaluate(tree, {"x": a}, {"x": ops.F32}), np.abs(a))
    assert ops.render(tree, lambda n: n) == "torch.where((x > 0.0), x, -x)"


def check_programs(count):
    families = set()
    for seed in range(count):
        program = generator.generate(seed)
        families.add(program["family"])
        assert generator.source(program) == generator.source(generator.generate(seed))
        compile(generator.source(program), f"seed{seed}.py", "exec")
        rng = np.random.default_rng(seed)
        inputs = [rng.standard_normal(shape) for _, shape, _ in generator.arg_specs(program)]
        for out in generator.reference(program, inputs):
            assert np.all(np.isfinite(out)), (seed, program["family"])
    assert families == set(generator.FAMILIES), families


def main():
    check_rounding()
    check_meanings()
    check_programs(300)
    print("random kernels selftest: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
