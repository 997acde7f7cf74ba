"""Random kernel families of the language features that landed after the
first generator (issue 19): compile-time parameters, row gathers, jagged
loops and `if`s on values read at run time. Same interface as families.py,
plus two optional static methods the runner and the selftest use:
    integers(program, rng) -> {arg name: int64 array}, valid values of the
        integer (int32) arguments (indices in range, offsets non-decreasing)
    params(program) -> [(name, annotation, default, value, flag)], the
        scalar parameters: `value` is passed to the host function as a
        keyword, and with `--arg name=value` when `flag` (hl.constexpr / str
        parameters are fixed at compile time; plain int / float ones are
        Python values of the host function's call)

Each spells exactly the forms of our own examples (examples/scaled_epilogue,
embedding_rows, jagged_sum, jagged_mean, jagged_softmax,
conditional_rescale), which the compiler documents as supported. Row
gathers read one row at a data-dependent offset, which the TPU does only
for 32-bit rows (docs/tpu_legality.md; Tessera gathers bf16 tables as f32,
wide_gathers.h): the generator's gathers stay f32 only (GATHER_DTYPES), so
that recorded seeds keep their programs. Jagged
loops and run-time `if`s take bf16 too (they compile and pass under every
launcher and the real TPU compiler; the conformance rows of their examples
are f32 only).
"""
import numpy as np

import ops
from families import BLOCKS, EXTENTS, choose, pick_dims, signature, tile_loop
from ops import BF16, F32

# Gathered tables: packed (bf16) rows at a dynamic sublane offset are E2003
# on libtpu 0.0.42 and a located error in Tessera ("gathering rows of bf16
# is not supported on the TPU").
GATHER_DTYPES = (F32,)
# Jagged data and one-row-per-step kernels: bf16 in this share of programs
# (drawn last, so that the f32 programs of a seed stay what they were).
BF16_SHARE = 0.4
I32 = "int32"

# Activations chosen by a `str` parameter (resolved at trace time).
ACTIVATIONS = {"relu": ("torch.relu({})", lambda a: np.maximum(a, 0.0)),
               "tanh": ("torch.tanh({})", np.tanh),
               "sigmoid": ("torch.sigmoid({})", ops.sigmoid),
               "none": ("{}", lambda a: a)}
SCALES = (0.5, 2.0, -1.0, 0.25, 3.0)
SHIFTS = (0.5, -1.0, 0.125, 2.0)


def _fmt(value):
    return repr(value)


def _branch_tree(gen, rng):
    """A tree that is not a bare leaf, so that branches differ."""
    tree, _ = gen.tree(int(rng.integers(1, 3)))
    if tree[0] in ("leaf", "to"):
        tree = [choose(rng, ("mul", "add")), tree, gen.const()]
    return tree


class Constexpr:
    """out = post(branch(x) * scale) over a 2-D grid, with the computation
    chosen by scalar parameters: `scale: hl.constexpr` (a float), `use_a:
    hl.constexpr` (a bool picking one of two expression trees at trace
    time), `k: hl.constexpr` (an int compared in an `if`), `flip: bool` (a
    plain Python bool), `act: str` (an activation), `reps: int` (a Python
    `range`) and `shift: float` (a plain Python float the host function
    passes in)."""

    @staticmethod
    def generate(rng):
        program = {"dtype": choose(rng, (F32, BF16)), "static": bool(rng.random() < 0.8)}
        extents, blocks = pick_dims(rng, {"m": "sub", "n": "lane"}, program["dtype"])
        features = [f for f in ("scale", "branch", "act", "reps", "shift") if rng.random() < 0.6]
        if not features:
            features = ["branch"]
        gen = ops.ExprGen(rng, {"x_v": F32})
        exprs = {"a": _branch_tree(gen, rng), "b": _branch_tree(gen, rng)}
        values = {
            "scale": float(choose(rng, SCALES)),
            "use_a": bool(rng.random() < 0.5),
            "act": str(choose(rng, sorted(ACTIVATIONS))),
            "reps": int(rng.integers(0, 4)),
            "shift": float(choose(rng, SHIFTS)),
        }
        # The default the signature spells: sometimes the value itself (the
        # kernel then compiles without --arg), else another one.
        defaults = {
            "scale": float(choose(rng, SCALES)), "use_a": bool(rng.random() < 0.5),
            "act": str(choose(rng, sorted(ACTIVATIONS))), "reps": int(rng.integers(0, 4)),
            "shift": float(choose(rng, SHIFTS)),
        }
        program.update(extents=extents, blocks=blocks, features=features, exprs=exprs,
                       values=values, defaults=defaults,
                       flag_defaults=bool(rng.random() < 0.7))
        # A comparison of an int hl.constexpr (`if k > 2:`) and a plain bool
        # (`if flip:`, a Python value of the call), drawn last so that the
        # fields above stay what they were before these features existed.
        for feature in ("cmp", "flip"):
            if rng.random() < 0.4:
                features.append(feature)
        values.update(k=int(rng.integers(0, 5)), flip=bool(rng.random() < 0.5))
        defaults.update(k=int(rng.integers(0, 5)), flip=bool(rng.random() < 0.5))
        return program

    @staticmethod
    def params(program):
        features, values, defaults = program["features"], program["values"], program["defaults"]
        flag = program.get("flag_defaults", True)
        out = []
        if "scale" in features:
            out.append(("scale", "hl.constexpr", defaults["scale"], values["scale"],
                        flag or values["scale"] != defaults["scale"]))
        if "branch" in features:
            out.append(("use_a", "hl.constexpr", defaults["use_a"], values["use_a"],
                        flag or values["use_a"] != defaults["use_a"]))
        if "act" in features:
            out.append(("act", "str", defaults["act"], values["act"],
                        flag or values["act"] != defaults["act"]))
        if "cmp" in features:
            out.append(("k", "hl.constexpr", defaults["k"], values["k"],
                        flag or values["k"] != defaults["k"]))
        if "flip" in features:
            out.append(("flip", "bool", defaults["flip"], values["flip"], False))
        if "reps" in features:
            out.append(("reps", "int", defaults["reps"], values["reps"], False))
        if "shift" in features:
            out.append(("shift", "float", defaults["shift"], values["shift"], False))
        return out

    @staticmethod
    def args(program):
        return [("x", ["m", "n"], program["dtype"])]

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def source(program):
        features = program["features"]
        params = ", ".join(f"{name}: {annotation} = {_fmt(default)}"
                           for name, annotation, default, _, _ in Constexpr.params(program))
        text = signature(program, ["x"])
        text = text.replace("):\n", f", {params}):\n") if params else text
        text += "    m, n = x.size()\n    out = torch.empty_like(x)\n"
        text += tile_loop(["tile_m", "tile_n"], ["m", "n"], program["blocks"], "    ")
        text += "        x_v = x[tile_m, tile_n].to(torch.float32)\n"
        a = ops.render(program["exprs"]["a"], lambda n: n)
        if "branch" in features:
            b = ops.render(program["exprs"]["b"], lambda n: n)
            text += f"        if use_a:\n            v = {a}\n        else:\n            v = {b}\n"
        else:
            text += f"        v = {a}\n"
        if "scale" in features:
            text += "        v = v * scale\n"
        if "cmp" in features:
            text += "        if k > 2:\n            v = v * 0.5\n"
        if "flip" in features:
            text += "        if flip:\n            v = -v\n"
        if "act" in features:
            keyword = "if"
            for name in sorted(ACTIVATIONS):
                if name == "none":
                    continue
                text += (f"        {keyword} act == {name!r}:\n"
                         f"            v = {ACTIVATIONS[name][0].format('v')}\n")
                keyword = "elif"
        if "reps" in features:
            step = "shift" if "shift" in features else "1.0"
            text += f"        for _ in range(reps):\n            v = v * 0.5 + {step}\n"
        elif "shift" in features:
            text += "        v = v + shift\n"
        text += "        out[tile_m, tile_n] = v.to(out.dtype)\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        features, chosen = program["features"], program["values"]
        x = values["x"]
        leaves = {"x_v": F32}
        tree = program["exprs"]["a"]
        if "branch" in features and not chosen["use_a"]:
            tree = program["exprs"]["b"]
        v = np.broadcast_to(ops.evaluate(tree, {"x_v": x}, leaves), x.shape)
        if "scale" in features:
            v = v * chosen["scale"]
        if "cmp" in features and chosen["k"] > 2:
            v = v * 0.5
        if "flip" in features and chosen["flip"]:
            v = -v
        if "act" in features:
            v = ACTIVATIONS[chosen["act"]][1](v)
        if "reps" in features:
            step = chosen["shift"] if "shift" in features else 1.0
            for _ in range(chosen["reps"]):
                v = v * 0.5 + step
        elif "shift" in features:
            v = v + chosen["shift"]
        return (v,)


class Gather:
    """out[i, :] = post(table[indices[i], :], x[i, :]): a row gather by an
    int32 index vector (in range, with repeated indices), as
    examples/embedding_rows.py; over a [n, d] grid or whole rows, with an
    optional row-sum output."""

    @staticmethod
    def generate(rng):
        program = {"dtype": choose(rng, GATHER_DTYPES), "static": bool(rng.random() < 0.8)}
        extents, blocks = pick_dims(rng, {"n": "sub", "d": "lane"}, program["dtype"])
        extents["vocab"] = int(choose(rng, EXTENTS["sub"]["even"] + EXTENTS["sub"]["ragged"]))
        variant = choose(rng, ("grid2", "rows"))
        features = [f for f in ("x", "rowsum") if rng.random() < 0.4]
        if variant == "grid2":
            features = [f for f in features if f != "rowsum"]
            blocks.pop("vocab", None)
        else:
            blocks.pop("d")
        leaves = {"r": F32, **({"x_v": F32} if "x" in features else {})}
        post, _ = ops.ExprGen(rng, leaves).tree(int(rng.integers(0, 3)))
        program.update(extents=extents, blocks=blocks, features=features, variant=variant,
                       exprs={"post": post}, repeats=bool(rng.random() < 0.7))
        # Drawn last (older programs keep their fields): the segment sums of
        # examples/jagged_gather_sum.py, `hl.load(x_data, [rows, tile_m],
        # extra_mask=...)` with rows = x_offsets[tile_b] + k for k in
        # range(max_length), a plain int parameter.
        if rng.random() < 0.25:
            pre, _ = ops.ExprGen(rng, {"part": F32}).tree(int(rng.integers(0, 2)))
            extents = {"segments": int(choose(rng, (8, 16, 40))),  # interpret cost: segments x max_length row loads
                       "total": int(choose(rng, (64, 100, 128, 200))),
                       "m": extents["d"]}
            # x_lengths[tile_b] and x_offsets[tile_b] are rank-1 blocks:
            # the segment block is a lane block (a multiple of 128 or the
            # whole dim), else the block is not TPU-legal (a located error).
            segment_block = blocks.get("n") and int(choose(rng, BLOCKS["lane"]))
            program.update(variant="segments", extents=extents, features=[],
                           blocks={"segments": segment_block, "m": blocks.get("d")},
                           exprs={"pre": pre, "post": post if "x_v" not in str(post) else ["leaf", "r"]},
                           max_length=int(rng.integers(1, 5)))
        return program

    @staticmethod
    def params(program):
        if program["variant"] != "segments":
            return []
        return [("max_length", "int", 8, program["max_length"], False)]

    @staticmethod
    def integers(program, rng):
        if program["variant"] == "segments":
            # Segments of 0..max_length rows (a third empty) at random starts.
            total, count = program["extents"]["total"], program["extents"]["segments"]
            longest = program["max_length"]
            lengths = rng.integers(1, longest + 1, size=count)
            lengths[rng.random(count) < 1 / 3] = 0
            lengths[0] = 0
            starts = rng.integers(0, total - longest + 1, size=count)
            return {"x_offsets": starts, "x_lengths": lengths}
        n, vocab = program["extents"]["n"], program["extents"]["vocab"]
        indices = rng.integers(0, vocab, size=n)
        if program.get("repeats", True) and n > 1:
            # Runs of one index and both ends of the table.
            count = max(1, n // 4)
            where = rng.integers(0, n, size=count)
            indices[where] = indices[rng.integers(0, n)]
            indices[0], indices[-1] = vocab - 1, 0
        return {"indices": indices}

    @staticmethod
    def args(program):
        if program["variant"] == "segments":
            return [("x_data", ["total", "m"], program["dtype"]),
                    ("x_offsets", ["segments"], I32), ("x_lengths", ["segments"], I32)]
        out = [("indices", ["n"], I32), ("table", ["vocab", "d"], program["dtype"])]
        if "x" in program["features"]:
            out.append(("x", ["n", "d"], program["dtype"]))
        return out

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]] * (2 if "rowsum" in program["features"] else 1)

    @staticmethod
    def segments_source(program):
        text = signature(program, ["x_data", "x_offsets", "x_lengths"])
        text = text.replace("):\n", ", max_length: int = 8):\n")
        text += ("    num_segments = x_lengths.size(0)\n    m = x_data.size(1)\n"
                 "    out = torch.empty([num_segments, m], dtype=x_data.dtype, "
                 "device=x_data.device)\n")
        blocks = {"num_segments": program["blocks"].get("segments"), "m": program["blocks"].get("m")}
        text += tile_loop(["tile_b", "tile_m"], ["num_segments", "m"], blocks, "    ")
        text += ("        lengths = x_lengths[tile_b]\n"
                 "        acc = hl.zeros([tile_b, tile_m], dtype=torch.float32)\n"
                 "        for k in range(max_length):\n"
                 "            rows = x_offsets[tile_b] + k\n"
                 "            part = hl.load(x_data, [rows, tile_m], "
                 "extra_mask=lengths[:, None] > k)\n"
                 f"            acc = acc + {ops.render(program['exprs']['pre'], lambda n: n)}\n")
        text += f"        r = acc\n        out[tile_b, tile_m] = ({ops.render(program['exprs']['post'], lambda n: n)}).to(out.dtype)\n"
        return text + "    return out\n"

    @staticmethod
    def source(program):
        if program["variant"] == "segments":
            return Gather.segments_source(program)
        features = program["features"]
        names = [a[0] for a in Gather.args(program)]
        grid2 = program["variant"] == "grid2"
        text = signature(program, names)
        text += "    n = indices.size(0)\n    d = table.size(1)\n"
        if "x" in features:
            text += "    assert x.size(0) == n\n    assert x.size(1) == d\n"
        text += "    out = torch.empty([n, d], dtype=table.dtype, device=table.device)\n"
        if "rowsum" in features:
            text += "    sums = torch.empty([n, 1], dtype=table.dtype, device=table.device)\n"
        if grid2:
            text += tile_loop(["tile_b", "tile_d"], ["n", "d"], program["blocks"], "    ")
            cols = "tile_d"
        else:
            text += tile_loop(["tile_b"], ["n"], program["blocks"], "    ")
            cols = ":"
        text += f"        r = table[indices[tile_b], {cols}]\n"
        if "x" in features:
            text += f"        x_v = x[tile_b, {cols}]\n"
        text += f"        v = {ops.render(program['exprs']['post'], lambda n: n)}\n"
        text += f"        out[tile_b, {cols}] = v\n"
        if "rowsum" in features:
            text += "        sums[tile_b, :] = torch.sum(v, dim=-1, keepdim=True)\n"
        return text + ("    return out, sums\n" if "rowsum" in features else "    return out\n")

    @staticmethod
    def reference(program, values):
        if program["variant"] == "segments":
            x = values["x_data"]
            starts = np.asarray(values["x_offsets"], dtype=np.int64)
            lengths = np.asarray(values["x_lengths"], dtype=np.int64)
            acc = np.zeros((len(starts), x.shape[1]))
            for k in range(program["max_length"]):
                # hl.load's extra_mask: masked elements read as 0.
                part = np.where((lengths > k)[:, None], x[starts + k], 0.0)
                acc = acc + np.broadcast_to(ops.evaluate(program["exprs"]["pre"], {"part": part},
                                                         {"part": F32}), part.shape)
            out = ops.evaluate(program["exprs"]["post"], {"r": acc}, {"r": F32})
            return (np.broadcast_to(out, acc.shape),)
        rows = values["table"][np.asarray(values["indices"], dtype=np.int64)]
        leaves = {"r": F32, "x_v": F32}
        v = np.broadcast_to(ops.evaluate(program["exprs"]["post"],
                                         {"r": rows, "x_v": values.get("x")}, leaves), rows.shape)
        if "rowsum" in program["features"]:
            return v, v.sum(-1, keepdims=True)
        return (v,)


class Jagged:
    """out[b, :] = post(sum of pre(x_data[r, :]) for r in [offsets[b],
    offsets[b + 1])): a jagged loop bounded by offsets read in the kernel
    (examples/jagged_sum.py), random offsets with empty segments and
    unaligned starts; optionally the mean of the segment (jagged_mean.py:
    an `if end > start` around the loop)."""

    @staticmethod
    def generate(rng):
        program = {"dtype": F32, "static": bool(rng.random() < 0.8)}
        extents, blocks = pick_dims(rng, {"m": "lane"}, program["dtype"])
        blocks = {}
        extents["total"] = int(choose(rng, (40, 64, 100, 128, 200)))
        extents["segments1"] = int(rng.integers(3, 13))  # offsets: segments + 1
        if rng.random() < 0.3:
            blocks["k"] = int(choose(rng, BLOCKS["sub"][:4]))
        features = [f for f in ("mean", "post") if rng.random() < 0.4]
        pre, _ = ops.ExprGen(rng, {"x_v": F32}).tree(int(rng.integers(0, 3)))
        post, _ = ops.ExprGen(rng, {"acc": F32}, inexact={"acc"}).tree(int(rng.integers(1, 3)))
        program.update(extents=extents, blocks=blocks, features=features,
                       exprs={"pre": pre, "post": post}, augmented=bool(rng.random() < 0.5))
        # Drawn last (older programs keep their fields): a running max
        # instead of the sum (masked rows must not count; the row is written
        # under `if end > start:`), or the three loops of
        # examples/jagged_softmax.py (max, sum of exp, a store per block).
        kind = rng.random()
        if kind < 0.2:
            features.append("max")
            if "mean" in features:
                features.remove("mean")
        elif kind < 0.4:
            program["softmax"] = True
        if rng.random() < BF16_SHARE:
            program["dtype"] = BF16
        return program

    @staticmethod
    def integers(program, rng):
        total, segments = program["extents"]["total"], program["extents"]["segments1"] - 1
        empty = rng.random(segments) < 1 / 3
        empty[rng.integers(segments)] = True       # at least one empty segment
        weights = np.where(empty, 0.0, rng.random(segments) + 0.05)
        if weights.sum() == 0:
            weights[0] = 1.0
        lengths = np.floor(weights / weights.sum() * total).astype(np.int64)
        lengths[np.argmax(weights)] += total - lengths.sum()
        return {"x_offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)}

    @staticmethod
    def args(program):
        return [("x_data", ["total", "m"], program["dtype"]), ("x_offsets", ["segments1"], I32)]

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def softmax_source(program):
        block = program["blocks"].get("k")
        loop = "for tile_k in hl.tile(start, end" + ("" if block is None else f", block_size={block}")
        pre = ops.render(program["exprs"]["pre"], lambda n: n)
        text = signature(program, ["x_data", "x_offsets"])
        text += ("    num_segments = x_offsets.size(0) - 1\n    m = x_data.size(1)\n"
                 "    out = torch.zeros_like(x_data)\n"
                 "    for tile_b in hl.tile(num_segments, block_size=1):\n"
                 "        start = x_offsets[tile_b.begin]\n"
                 "        end = x_offsets[tile_b.begin + 1]\n"
                 '        row_max = hl.full([1, m], float("-inf"), dtype=torch.float32)\n'
                 f"        {loop}):\n"
                 "            x_v = x_data[tile_k, :].to(torch.float32)\n"
                 f"            v = {pre}\n"
                 "            row_max = torch.maximum(row_max, torch.amax(v, dim=0, keepdim=True))\n"
                 "        denom = hl.zeros([1, m], dtype=torch.float32)\n"
                 f"        {loop}):\n"
                 "            x_v = x_data[tile_k, :].to(torch.float32)\n"
                 f"            v = {pre}\n"
                 "            denom += torch.sum(torch.exp(v - row_max), dim=0, keepdim=True)\n"
                 f"        {loop}):\n"
                 "            x_v = x_data[tile_k, :].to(torch.float32)\n"
                 f"            v = {pre}\n"
                 "            out[tile_k, :] = (torch.exp(v - row_max) / denom).to(out.dtype)\n")
        return text + "    return out\n"

    @staticmethod
    def source(program):
        features = program["features"]
        if program.get("softmax"):
            return Jagged.softmax_source(program)
        text = signature(program, ["x_data", "x_offsets"])
        text += ("    num_segments = x_offsets.size(0) - 1\n    m = x_data.size(1)\n"
                 "    out = torch.zeros([num_segments, m], dtype=x_data.dtype, "
                 "device=x_data.device)\n"
                 "    for tile_b in hl.tile(num_segments, block_size=1):\n"
                 "        start = x_offsets[tile_b.begin]\n"
                 "        end = x_offsets[tile_b.begin + 1]\n")
        indent = "        "
        if "mean" in features or "max" in features:
            text += "        if end > start:\n"
            indent += "    "
        if "max" in features:
            text += f'{indent}acc = hl.full([1, m], float("-inf"), dtype=torch.float32)\n'
        else:
            text += f"{indent}acc = hl.zeros([1, m], dtype=torch.float32)\n"
        block = program["blocks"].get("k")
        spelled = "" if block is None else f", block_size={block}"
        text += f"{indent}for tile_k in hl.tile(start, end{spelled}):\n"
        pre = ops.render(program["exprs"]["pre"], lambda n: n)
        text += f"{indent}    x_v = x_data[tile_k, :].to(torch.float32)\n"
        if "max" in features:
            text += (f"{indent}    acc = torch.maximum(acc, torch.amax({pre}, dim=0, "
                     "keepdim=True))\n")
        elif program.get("augmented"):
            text += f"{indent}    acc += ({pre}).sum(0, keepdim=True)\n"
        else:
            text += f"{indent}    acc = acc + torch.sum({pre}, dim=0, keepdim=True)\n"
        if "mean" in features:
            text += f"{indent}count = (end - start).to(torch.float32)\n{indent}acc = acc / count\n"
        if "post" in features:
            text += f"{indent}acc = {ops.render(program['exprs']['post'], lambda n: n)}\n"
        text += f"{indent}out[tile_b, :] = acc.to(out.dtype)\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        x, offsets = values["x_data"], np.asarray(values["x_offsets"], dtype=np.int64)
        segments = len(offsets) - 1
        if program.get("softmax"):
            out = np.zeros_like(x)
            for b in range(segments):
                start, end = offsets[b], offsets[b + 1]
                rows = x[start:end]
                v = np.broadcast_to(ops.evaluate(program["exprs"]["pre"], {"x_v": rows},
                                                 {"x_v": F32}), rows.shape)
                if end > start:
                    e = np.exp(v - v.max(0))
                    out[start:end] = e / e.sum(0)
            return (out,)
        out = np.zeros((segments, x.shape[1]))
        guarded = "mean" in program["features"] or "max" in program["features"]
        for b in range(segments):
            start, end = offsets[b], offsets[b + 1]
            if guarded and end <= start:
                continue   # the row keeps torch.zeros' 0
            rows = x[start:end]
            v = np.broadcast_to(ops.evaluate(program["exprs"]["pre"], {"x_v": rows},
                                             {"x_v": F32}), rows.shape)
            acc = v.max(0) if "max" in program["features"] else v.sum(0)
            if "mean" in program["features"]:
                acc = acc / (end - start)
            if "post" in program["features"]:
                acc = np.broadcast_to(ops.evaluate(program["exprs"]["post"], {"acc": acc},
                                                   {"acc": F32}), acc.shape)
            out[b] = acc
        return (out,)


DATA_CONDITIONS = {"gt0": ("> 0", lambda m: m > 0), "ge1": (">= 1", lambda m: m >= 1),
                   "lt0": ("< 0", lambda m: m < 0), "eq0": ("== 0", lambda m: m == 0)}
REDUCE_CONDITIONS = {"sum_lt0": ("values.sum() < 0", lambda v: v.sum() < 0),
                     "sum_gt0": ("values.sum() > 0", lambda v: v.sum() > 0)}


class ModeRows:
    """What the families over rows with a mode read from memory share: x
    [rows, n] of the program's dtype, int32 modes in {-1, 0, 1} (every one
    occurring), one output of x's dtype."""

    @staticmethod
    def integers(program, rng):
        rows = program["extents"]["rows"]
        modes = rng.integers(-1, 2, size=rows)
        modes[:3] = [-1, 0, 1][:rows]   # every mode occurs
        return {"modes": modes}

    @staticmethod
    def args(program):
        return [("x", ["rows", "n"], program["dtype"]), ("modes", ["rows"], I32)]

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]


class DataIf(ModeRows):
    """One row per grid step (examples/conditional_rescale.py): `if` on a
    mode read from memory (`modes[tile_r.begin] > 0`, int32 modes in
    {-1, 0, 1}) choosing one of two expression trees, then optionally `if`
    on the row's sum (a block reduction) applying a third; both branches of
    each are taken by some rows."""

    @staticmethod
    def generate(rng):
        program = {"dtype": F32, "static": bool(rng.random() < 0.8)}
        extents, blocks = pick_dims(rng, {"n": "lane"}, program["dtype"])
        extents["rows"] = int(choose(rng, (8, 16, 24, 37, 40)))
        gen = ops.ExprGen(rng, {"values": F32})
        exprs = {name: _branch_tree(gen, rng) for name in ("then", "else", "fix")}
        features = [f for f in ("else", "reduce_if") if rng.random() < 0.6]
        program.update(extents=extents, blocks={}, features=features, exprs=exprs,
                       mode_cond=choose(rng, sorted(DATA_CONDITIONS)),
                       reduce_cond=choose(rng, sorted(REDUCE_CONDITIONS)))
        if rng.random() < BF16_SHARE:
            program["dtype"] = BF16
        return program

    @staticmethod
    def source(program):
        features = program["features"]
        text = signature(program, ["x", "modes"])
        text += ("    out = torch.empty_like(x)\n"
                 "    for tile_r in hl.tile(x.size(0), block_size=1):\n"
                 "        values = x[tile_r, :].to(torch.float32)\n")
        render = lambda name: ops.render(program["exprs"][name], lambda n: n)  # noqa: E731
        text += (f"        if modes[tile_r.begin] {DATA_CONDITIONS[program['mode_cond']][0]}:\n"
                 f"            values = {render('then')}\n")
        if "else" in features:
            text += f"        else:\n            values = {render('else')}\n"
        if "reduce_if" in features:
            text += (f"        if {REDUCE_CONDITIONS[program['reduce_cond']][0]}:\n"
                     f"            values = {render('fix')}\n")
        text += "        out[tile_r, :] = values.to(out.dtype)\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        x, modes = values["x"], np.asarray(values["modes"], dtype=np.int64)
        leaves = {"values": F32}

        def apply(name, row):
            return np.broadcast_to(ops.evaluate(program["exprs"][name], {"values": row}, leaves),
                                   row.shape)

        out = np.empty_like(x)
        for r in range(x.shape[0]):
            row = x[r]
            if DATA_CONDITIONS[program["mode_cond"]][1](modes[r]):
                row = apply("then", row)
            elif "else" in program["features"]:
                row = apply("else", row)
            if "reduce_if" in program["features"] and REDUCE_CONDITIONS[program["reduce_cond"]][1](row):
                row = apply("fix", row)
            out[r] = row
        return (out,)
