"""Shrinks a failing random-kernel program to a small one that fails the
same way (same check, launcher, interpret mode and kind of message).

Greedy, like C-Reduce's passes: repeat until nothing smaller fails —
replace an expression by one of its sub-expressions (deletes statements
and ops), drop an optional feature (inputs, outputs, carried statistics,
epilogues), drop explicit block sizes, shrink extents, drop the batch dim
and grid dims.
"""
import generator
import runner

BOOLEAN_KNOBS = ("batched", "addmm", "base2", "method", "augmented", "cast_store", "out_f32",
                 "repeats", "flag_defaults", "softmax")
MAX_ATTEMPTS = 80


def _with(program, **changes):
    variant = generator.clone(program)
    variant.update(changes)
    return variant


def variants(program):
    """Smaller programs, most promising first."""
    for name, tree in sorted(program.get("exprs", {}).items()):
        for smaller in generator.ops.replacements(tree):
            yield _with(program, exprs=dict(program["exprs"], **{name: smaller}))
    for feature in program.get("features", []):
        yield _with(program, features=[f for f in program["features"] if f != feature])
    if program.get("grid", 1) > 1:
        yield _with(program, grid=program["grid"] - 1)
    for knob in BOOLEAN_KNOBS:
        if program.get(knob):
            yield _with(program, **{knob: False})
    for dim, block in sorted(program.get("blocks", {}).items()):
        if block is not None:
            yield _with(program, blocks=dict(program["blocks"], **{dim: None}))
    for dim, extent in sorted(program["extents"].items()):
        for smaller in sorted({1, 8, 128, extent // 2}):
            if 0 < smaller < extent:
                yield _with(program, extents=dict(program["extents"], **{dim: smaller}))


def well_formed(program):
    try:
        generator.source(program)
        specs = generator.arg_specs(program)
        arrays, exact = runner.make_inputs(program)
        generator.reference(program, exact)
        return all(isinstance(d, int) for _, shape, _ in specs for d in shape)
    except (KeyError, ValueError, IndexError, TypeError):
        return False


def fails_the_same_way(args, program, failure):
    launchers = failure.launcher.split(" vs ")
    modes = [failure.mode] if failure.mode else []
    try:
        runner.check_program(args, program, launchers, modes or ["interpret"],
                             tpu_compile=failure.check == "tpu_compile")
    except runner.Failure as again:
        return again.signature() == failure.signature()
    return False


def shrink(args, program, failure):
    attempts = 0
    current = program
    progress = True
    while progress and attempts < MAX_ATTEMPTS:
        progress = False
        for candidate in variants(current):
            if not well_formed(candidate):
                continue
            attempts += 1
            if fails_the_same_way(args, candidate, failure):
                current, progress = candidate, True
                print(f"  shrink: {attempts} tries, kept a smaller program", flush=True)
                break
            if attempts >= MAX_ATTEMPTS:
                break
    return current
