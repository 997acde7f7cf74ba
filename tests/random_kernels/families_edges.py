"""Random kernel families at the edges of what a kernel's body may hold
(issue 33): `if`s on values read at run time whose bodies have no effect,
dead code, and long chains. Same interface as families.py (and
families_dynamic.py's `integers`). Each is a valid Helion program that
PyTorch runs; the compiler must write a module that parses and computes
what the live code says, whatever the dead code around it.

  effect_if   one row per grid step: `if modes[tile_r.begin] > 0:` with an
              effect (values changed before the store, a store under the
              `if`) and without one (an unused variable assigned in the `if`
              before the store, in the `else`, in nested `if`s, an `if` on
              the row's sum, and the body ending in an `if` after the store,
              e.g. `values = values * 2.0` with `values` unused after it)
  dead_code   assignments never used: host scalars and allocations, loads of
              an unused argument, values overwritten before use, chains of
              dead temporaries, dead `hl.zeros`, statements after the store;
              in a 2-D grid or inside an inner `hl.tile` loop, with a dead
              loop-carried value
  long_chain  200-term left-associative `+`/`-` chains (`x_v * 0.5 + x_v *
              -0.25 + ...`), 200 statements `v = v * c + x_v` one after the
              other, and chained subscripts (`x_v[:, None][:, 0][:, None]...`)
"""
import numpy as np

import ops
from families import choose, pick_dims, signature, tile_loop
from families_dynamic import BF16_SHARE, DATA_CONDITIONS, ModeRows, _branch_tree
from ops import BF16, F32

# The row-sum conditions of an `if` without effect (which side a row takes
# does not change the output, so a sum near 0 is harmless).
SUM_CONDITIONS = {"sum_gt0": "values.sum() > 0", "sum_lt0": "values.sum() < 0"}
DEAD_IFS = ("dead_mid", "dead_tail", "dead_nested", "dead_sum")
# Around the frontend's limit of 200 nested operations (known_failures.json:
# chain-depth-limit-200): 199 terms compile, 200 are a located error.
CHAIN_LENGTHS = (64, 150, 199, 200, 256)
SUBSCRIPT_PAIRS = (20, 60, 99, 100, 200)
CHAIN_CONSTS = (0.5, -0.25, 0.125, -0.5, 0.75, 1.0, -1.0, 0.0625)


def _tree(gen, rng):
    tree, _ = gen.tree(int(rng.integers(0, 3)))
    return tree


class EffectIf(ModeRows):
    """out[r, :] = f(x[r, :]) where f follows `if`s on modes[r] (int32 in
    {-1, 0, 1}); around them, `if`s whose bodies assign only variables
    nobody reads afterwards (at least one such `if` per program)."""

    @staticmethod
    def generate(rng):
        program = {"dtype": F32, "static": bool(rng.random() < 0.8)}
        extents, _ = pick_dims(rng, {"n": "lane"}, F32)
        extents["rows"] = int(choose(rng, (8, 16, 24, 37, 40)))
        gen = ops.ExprGen(rng, {"values": F32})
        exprs = {name: _branch_tree(gen, rng) for name in ("then", "else", "dead", "dead2")}
        features = [f for f in ("effect", "else", "store_if", "dead_else") if rng.random() < 0.5]
        features += [f for f in DEAD_IFS if rng.random() < 0.5]
        if not set(features) & set(DEAD_IFS):
            features.append(str(choose(rng, DEAD_IFS)))
        program.update(extents=extents, blocks={}, features=features, exprs=exprs,
                       mode_cond=choose(rng, sorted(DATA_CONDITIONS)),
                       dead_cond=choose(rng, sorted(DATA_CONDITIONS)),
                       store_cond=choose(rng, sorted(DATA_CONDITIONS)),
                       sum_cond=choose(rng, sorted(SUM_CONDITIONS)))
        if rng.random() < BF16_SHARE:
            program["dtype"] = BF16
        return program

    @staticmethod
    def source(program):
        features = program["features"]
        render = lambda name: ops.render(program["exprs"][name], lambda n: n)  # noqa: E731
        mode = lambda key: f"modes[tile_r.begin] {DATA_CONDITIONS[program[key]][0]}"  # noqa: E731
        store_if = "store_if" in features
        text = signature(program, ["x", "modes"])
        text += f"    out = torch.{'zeros' if store_if else 'empty'}_like(x)\n"
        text += ("    for tile_r in hl.tile(x.size(0), block_size=1):\n"
                 "        values = x[tile_r, :].to(torch.float32)\n")
        dead_else = "dead_else" in features
        if "dead_mid" in features:
            text += f"        if {mode('dead_cond')}:\n            unused = {render('dead')}\n"
            if dead_else:
                text += f"        else:\n            unused = {render('dead2')}\n"
        if "dead_nested" in features:
            text += (f"        if {mode('dead_cond')}:\n"
                     "            if modes[tile_r.begin] >= 0:\n"
                     f"                scratch = {render('dead')}\n"
                     "            else:\n"
                     f"                scratch = {render('dead2')}\n")
        if "effect" in features:
            text += f"        if {mode('mode_cond')}:\n            values = {render('then')}\n"
            if "else" in features:
                text += f"        else:\n            values = {render('else')}\n"
        if "dead_sum" in features:
            text += (f"        if {SUM_CONDITIONS[program['sum_cond']]}:\n"
                     f"            spare = {render('dead2')}\n")
        if store_if:
            text += f"        if {mode('store_cond')}:\n            out[tile_r, :] = values.to(out.dtype)\n"
        else:
            text += "        out[tile_r, :] = values.to(out.dtype)\n"
        if "dead_tail" in features:
            # The device body ends in an `if` without effect (issue 33).
            text += f"        if {mode('dead_cond')}:\n            values = {render('dead')}\n"
            if dead_else:
                text += "        else:\n            values = values * 2.0\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        x, modes = values["x"], np.asarray(values["modes"], dtype=np.int64)
        features = program["features"]
        leaves = {"values": F32}
        out = np.zeros_like(x)
        for r in range(x.shape[0]):
            row = x[r]
            if "effect" in features:
                if DATA_CONDITIONS[program["mode_cond"]][1](modes[r]):
                    row = ops.evaluate(program["exprs"]["then"], {"values": row}, leaves)
                elif "else" in features:
                    row = ops.evaluate(program["exprs"]["else"], {"values": row}, leaves)
            if "store_if" not in features or DATA_CONDITIONS[program["store_cond"]][1](modes[r]):
                out[r] = np.broadcast_to(row, x[r].shape)
        return (out,)


class DeadCode:
    """Elementwise (variant "grid": out = live(x) over a 2-D grid) or a row
    sum through an inner loop (variant "loop": out[m] = sum_n pre(x)), with
    dead assignments all around the live ones."""

    GRID_FEATURES = ("host_scalar", "host_alloc", "dead_load", "overwritten", "dead_chain",
                     "dead_zeros", "after_store", "host_after")
    LOOP_FEATURES = ("host_scalar", "dead_temp", "dead_carry", "dead_zeros", "after_store",
                     "overwritten")

    @staticmethod
    def generate(rng):
        program = {"dtype": choose(rng, (F32, BF16)), "static": bool(rng.random() < 0.8)}
        variant = choose(rng, ("grid", "loop"))
        roles = {"m": "sub", "n": "lane"} if variant == "grid" else {"m": "lane", "n": "lane"}
        extents, blocks = pick_dims(rng, roles, program["dtype"])
        options = DeadCode.GRID_FEATURES if variant == "grid" else DeadCode.LOOP_FEATURES
        features = [f for f in options if rng.random() < 0.5] or [str(choose(rng, options))]
        leaves = {"x_v": F32}
        gen = ops.ExprGen(rng, leaves)
        exprs = {"live": _tree(gen, rng), "dead": _branch_tree(gen, rng),
                 "dead2": _branch_tree(gen, rng)}
        program.update(variant=variant, extents=extents, blocks=blocks, features=features,
                       exprs=exprs)
        return program

    @staticmethod
    def args(program):
        out = [("x", ["m", "n"], program["dtype"])]
        if "dead_load" in program["features"]:
            out.append(("y", ["m", "n"], program["dtype"]))
        return out

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def source(program):
        features = program["features"]
        render = lambda name: ops.render(program["exprs"][name], lambda n: n)  # noqa: E731
        names = [a[0] for a in DeadCode.args(program)]
        text = signature(program, names) + "    m, n = x.size()\n"
        if "dead_load" in features:
            text += "    assert y.shape == x.shape\n"
        if "host_scalar" in features:
            text += "    unused_size = m * 2 + n\n    twice = unused_size * 2\n"
        grid = program["variant"] == "grid"
        if grid:
            text += "    out = torch.empty_like(x)\n"
        else:
            text += "    out = torch.empty([m], dtype=x.dtype, device=x.device)\n"
        if "host_alloc" in features:
            text += "    scratch = torch.empty_like(x)\n"
        if grid:
            text += tile_loop(["tile_m", "tile_n"], ["m", "n"], program["blocks"], "    ")
            text += "        x_v = x[tile_m, tile_n].to(torch.float32)\n"
            if "dead_load" in features:
                text += "        y_v = y[tile_m, tile_n]\n"
            if "dead_zeros" in features:
                text += "        zero = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
            if "overwritten" in features:
                text += f"        v = {render('dead')}\n"
            if "dead_chain" in features:
                text += (f"        d0 = {render('dead2')}\n        d1 = d0 * 2.0 + x_v\n"
                         "        d2 = torch.relu(d1) - d0\n")
            text += f"        v = {render('live')}\n"
            text += "        out[tile_m, tile_n] = v.to(out.dtype)\n"
            if "after_store" in features:
                text += f"        later = {render('dead')}\n        v = later + v\n"
        else:
            text += tile_loop(["tile_m"], ["m"], program["blocks"], "    ")
            text += "        acc = hl.zeros([tile_m], dtype=torch.float32)\n"
            if "dead_carry" in features:
                text += '        junk = hl.full([tile_m], float("-inf"), dtype=torch.float32)\n'
            if "dead_zeros" in features:
                text += "        zero = hl.zeros([tile_m], dtype=torch.float32)\n"
            text += tile_loop(["tile_n"], ["n"], program["blocks"], "        ")
            text += "            x_v = x[tile_m, tile_n].to(torch.float32)\n"
            if "dead_temp" in features:
                text += f"            tmp = {render('dead')}\n"
            if "dead_carry" in features:
                text += "            junk = torch.maximum(junk, torch.amax(x_v, dim=-1))\n"
            if "overwritten" in features:
                text += f"            v = {render('dead2')}\n"
            text += f"            v = {render('live')}\n"
            text += "            acc = acc + torch.sum(v, dim=-1)\n"
            text += "        out[tile_m] = acc.to(out.dtype)\n"
            if "after_store" in features:
                text += "        acc = acc * 2.0\n"
        if "host_after" in features:
            text += "    done = m + n\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        x = values["x"]
        v = np.broadcast_to(ops.evaluate(program["exprs"]["live"], {"x_v": x}, {"x_v": F32}),
                            x.shape)
        return (v,) if program["variant"] == "grid" else (v.sum(-1),)


class LongChain:
    """out = chain(x[, y]) over a 2-D grid, the chain long: a 200-term `+` /
    `-` expression on one line (left-associative, no parentheses), 200
    statements each using the one before, or subscripts chained on a value
    (`x_v[:, None][:, 0]` repeated)."""

    @staticmethod
    def generate(rng):
        program = {"dtype": choose(rng, (F32, BF16)), "static": bool(rng.random() < 0.8)}
        extents, blocks = pick_dims(rng, {"m": "sub", "n": "lane"}, program["dtype"])
        variant = choose(rng, ("terms", "statements", "subscripts"))
        length = int(choose(rng, CHAIN_LENGTHS))
        use_y = bool(rng.random() < 0.5)
        names = ("x_v", "y_v") if use_y else ("x_v",)
        # terms: [sign, leaf, constant or None]; statements: [constant, leaf]
        terms = [[choose(rng, ("+", "-")), choose(rng, names),
                  float(choose(rng, CHAIN_CONSTS)) if rng.random() < 0.7 else None]
                 for _ in range(length)]
        post, _ = ops.ExprGen(rng, {"v": F32}).tree(int(rng.integers(0, 2)))
        program.update(extents=extents, blocks=blocks, variant=variant, length=length,
                       features=["y"] if use_y else [], terms=terms, exprs={"post": post},
                       subscripts=int(choose(rng, SUBSCRIPT_PAIRS)))
        return program

    @staticmethod
    def args(program):
        out = [("x", ["m", "n"], program["dtype"])]
        if "y" in program["features"]:
            out.append(("y", ["m", "n"], program["dtype"]))
        return out

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def _term(term):
        _, leaf, const = term
        return leaf if const is None else f"{leaf} * {const!r}"

    @staticmethod
    def source(program):
        names = [a[0] for a in LongChain.args(program)]
        text = signature(program, names) + "    m, n = x.size()\n"
        if "y" in program["features"]:
            text += "    assert y.shape == x.shape\n"
        text += "    out = torch.empty_like(x)\n"
        text += tile_loop(["tile_m", "tile_n"], ["m", "n"], program["blocks"], "    ")
        text += "        x_v = x[tile_m, tile_n].to(torch.float32)\n"
        if "y" in program["features"]:
            text += "        y_v = y[tile_m, tile_n].to(torch.float32)\n"
        terms = program["terms"][:program["length"]]
        variant = program["variant"]
        if variant == "terms":
            chain = LongChain._term(terms[0])
            for term in terms[1:]:
                chain += f" {term[0]} {LongChain._term(term)}"
            text += f"        v = {chain}\n"
        elif variant == "statements":
            text += "        v = x_v\n"
            for sign, leaf, const in terms:
                # v stays bounded: |c| <= 1 halves the old value
                text += f"        v = v * 0.5 {sign} {LongChain._term([sign, leaf, const])}\n"
        else:
            text += "        v = x_v" + "[:, None][:, 0]" * program["subscripts"] + "\n"
        post = ops.render(program["exprs"]["post"], lambda n: n)
        text += f"        out[tile_m, tile_n] = ({post}).to(out.dtype)\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        x = values["x"]
        leaves = {"x_v": x, "y_v": values.get("y")}

        def term(t):
            _, leaf, const = t
            return leaves[leaf] if const is None else leaves[leaf] * const

        terms = program["terms"][:program["length"]]
        variant = program["variant"]
        if variant == "terms":
            v = term(terms[0])
            for t in terms[1:]:
                v = v + term(t) if t[0] == "+" else v - term(t)
        elif variant == "statements":
            v = x
            for t in terms:
                v = v * 0.5 + term(t) if t[0] == "+" else v * 0.5 - term(t)
        else:
            v = x
        v = np.broadcast_to(v, x.shape)
        out = ops.evaluate(program["exprs"]["post"], {"v": v}, {"v": F32})
        return (np.broadcast_to(out, x.shape),)

