"""Random valid Helion kernels (like Csmith / YARPGen for C) with a float64
NumPy reference for each.

    program = generate(seed)          # plain JSON data
    source(program)                   # the kernel file (Helion syntax)
    arg_specs(program)                # [(name, shape, dtype)]
    reference(program, inputs)        # float64 outputs from float64 inputs
    arg_flags(program)                # --arg flags for `tessera compile`

A program is data, not text, so the shrinker (shrink.py) can make it
smaller and a failing one can be saved and replayed (regressions/).
Families and what they exercise are in FAMILIES; every family chooses
ragged or even extents, explicit or default block sizes (always TPU-legal:
lane blocks are multiples of 128, sublane blocks of 8 or 16 for bf16) and
static (--arg) or symbolic shapes.
"""
import copy

import numpy as np

import families
import families_dynamic
import families_edges
import ops

FAMILIES = {
    "elementwise": families.Elementwise,    # 1-3 grid dims, op chains, broadcasts
    "row_reduce": families.RowReduce,       # sum/amax/amin/mean over a full last dim
    "col_reduce": families.ColReduce,       # reductions over a full leading dim
    "loop_reduce": families.LoopReduce,     # inner hl.tile, 1-3 carried stats (online softmax)
    "attention": families.Attention,        # online softmax meeting a wide acc (pre-broadcast)
    "matmul": families.Matmul,              # addmm / matmul / @ / bmm with f32 acc, epilogues
    "atomic": families.Atomic,              # hl.atomic_add/max/min (atomic-accumulator)
    "constexpr": families_dynamic.Constexpr,  # hl.constexpr / str / int / float parameters
    "gather": families_dynamic.Gather,      # table[indices[tile], :] row gathers (f32)
    "jagged": families_dynamic.Jagged,      # hl.tile(offsets[b], offsets[b + 1]) loops (f32)
    "data_if": families_dynamic.DataIf,     # `if` on a value read from memory / a row sum (f32)
    "effect_if": families_edges.EffectIf,   # run-time `if`s with and without effect (issue 33)
    "dead_code": families_edges.DeadCode,   # assignments never used, dead loop-carried values
    "long_chain": families_edges.LongChain,  # 200-term `+` chains, statement / subscript chains
}
FAMILY_WEIGHTS = {"elementwise": 3, "row_reduce": 2, "col_reduce": 1, "loop_reduce": 2,
                  "attention": 1, "matmul": 2, "atomic": 2,
                  "constexpr": 1, "gather": 1, "jagged": 1, "data_if": 1}
# The edge families (families_edges.py) take this share of the mix, drawn
# from a second stream of the seed, so that every other seed keeps the
# program it had before they existed.
EDGE_FAMILIES = ("dead_code", "effect_if", "long_chain")
EDGE_SHARE = 0.1


def generate(seed, family=None):
    """The program of seed: its family drawn by FAMILY_WEIGHTS, or the given
    family (then another program than the mix's seed, named
    rk_<family>_only_<seed>, with "pinned": True)."""
    rng = np.random.default_rng(seed)
    pinned = family is not None
    if family is None:
        edge = np.random.default_rng([seed, 33])
        if edge.random() < EDGE_SHARE:
            family = EDGE_FAMILIES[int(edge.integers(len(EDGE_FAMILIES)))]
    if family is None:
        names = sorted(FAMILY_WEIGHTS)
        weights = np.array([FAMILY_WEIGHTS[n] for n in names], dtype=np.float64)
        family = names[rng.choice(len(names), p=weights / weights.sum())]
    program = FAMILIES[family].generate(rng)
    name = f"rk_{family}_only_{seed}" if pinned else f"rk_{family}_{seed}"
    program.update(family=family, seed=int(seed), name=name)
    if pinned:
        program["pinned"] = True
    return program


def family_of(program):
    return FAMILIES[program["family"]]


def source(program):
    body = family_of(program).source(program)
    header = (f'"""Random kernel: family {program["family"]}, seed {program["seed"]} '
              f'(tests/random_kernels)."""\n\nfrom __future__ import annotations\n\n'
              'import torch\n\nimport helion\nimport helion.language as hl\n\n\n')
    return header + body


def arg_specs(program):
    """[(name, shape, dtype)] with the program's extents."""
    extents = program["extents"]
    return [(name, tuple(extents.get(d, d) for d in shape), dtype)
            for name, shape, dtype in family_of(program).args(program)]


def arg_flags(program):
    """Static programs spell every shape (--arg x=bf16[200,300]); symbolic
    ones leave f32 kernels unspecified, as a Helion user would, and give
    bf16 kernels their dtype with symbolic dims (--arg x=bf16[m,n]).
    Compile-time parameters (hl.constexpr, str) get --arg name=VALUE where
    the family says so (else their default is compiled)."""
    flags = [f"--arg={name}={spell_value(value)}"
             for name, _, _, value, flag in params(program) if flag]
    static = program.get("static", True)
    if not static and program["dtype"] == ops.F32:
        return flags
    specs = arg_specs(program) if static else family_of(program).args(program)
    return [f"--arg={name}={ops.SPELLING[dtype]}[{','.join(str(d) for d in shape)}]"
            for name, shape, dtype in specs] + flags


def spell_value(value):
    """A Python literal for --arg (True/False, a number, a quoted string)."""
    return f"'{value}'" if isinstance(value, str) else repr(value)


def params(program):
    """[(name, annotation, default, value, flag)]: the kernel's scalar
    parameters (families_dynamic.Constexpr); [] for most families."""
    family = family_of(program)
    return list(family.params(program)) if hasattr(family, "params") else []


def call_kwargs(program):
    """Keyword arguments of the generated host function: every scalar
    parameter with the program's value (for hl.constexpr / str ones, the
    value it was compiled for)."""
    return {name: value for name, _, _, value, _ in params(program)}


def integer_inputs(program):
    """{arg name: int64 array}: valid values of the integer arguments
    (indices in range, non-decreasing offsets, modes), deterministic per
    seed and extents; {} for families without integer arguments."""
    family = family_of(program)
    if not hasattr(family, "integers"):
        return {}
    rng = np.random.default_rng([program["seed"], 19])
    return {name: np.asarray(v, dtype=np.int64) for name, v in family.integers(program, rng).items()}


def input_values(program, rng):
    """float64 inputs for the reference without a compiler: standard normal
    floats (rng), integer arguments from integer_inputs (selftest)."""
    ints = integer_inputs(program)
    return [ints[name] if name in ints else rng.standard_normal(shape)
            for name, shape, _ in arg_specs(program)]


def reference(program, inputs):
    """inputs: float64 arrays holding the (dtype-rounded) argument values.
    Returns a tuple of float64 outputs, rounded to each output's dtype."""
    family = family_of(program)
    names = [name for name, _, _ in family.args(program)]
    outputs = family.reference(program, dict(zip(names, inputs)))
    return tuple(ops.as_dtype(value, dtype)
                 for value, dtype in zip(outputs, family.out_dtypes(program)))


def compare_dtypes(program):
    """Per output, the dtype whose tolerances the comparison uses: bf16 for
    every output of a bf16 program. XLA computes bf16 op chains with excess
    precision (it may skip rounding between ops) and the interpreter's bf16
    tile sums are not PyTorch's f32 accumulation, so even an f32 output that
    came from bf16 values is only as exact as bf16."""
    outputs = family_of(program).out_dtypes(program)
    return [ops.BF16] * len(outputs) if program["dtype"] == ops.BF16 else outputs


def clone(program):
    return copy.deepcopy(program)
