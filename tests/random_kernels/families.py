"""Kernel families of the random kernel generator (see generator.py).

Each family is a class with static methods:
    generate(rng) -> program fields (extents, blocks, exprs, features, ...)
    args(program) -> [(name, shape, dtype)], shapes of dim names (or ints)
    out_dtypes(program) -> [dtype per output]
    source(program) -> the kernel function's text
    reference(program, values) -> tuple of float64 outputs
Shared program fields, which the shrinker (shrink.py) knows how to make
smaller: "extents" {dim: int}, "blocks" {dim: int | None} (None: the
frontend's default), "exprs" {name: tree}, "features" [optional parts].
"""
import math

import numpy as np

import ops
from ops import BF16, F32

# Extents: "lane" dims are the last dim of some tensor, "sub" the one before.
EXTENTS = {
    "lane": {"even": (128, 256, 384), "ragged": (72, 136, 200, 300)},
    "sub": {"even": (8, 16, 64, 128, 256), "ragged": (24, 40, 100, 200)},
    "lead": {"even": (1, 2), "ragged": (3,)},
}
# TPU-legal blocks (a block clamped to a smaller extent is the full dim).
BLOCKS = {"lane": (128, 256), "sub": (8, 16, 32, 64, 128), "lead": (1, 2)}
BF16_SUB_BLOCKS = (16, 32, 64, 128)
REDUCTIONS = {"sum": np.sum, "amax": np.max, "amin": np.min, "mean": np.mean}


def choose(rng, options):
    return options[int(rng.integers(len(options)))]


def pick_dims(rng, roles, dtype):
    """roles: {dim: role}. Returns (extents, blocks)."""
    ragged = rng.random() < 0.5
    extents, blocks = {}, {}
    for dim, role in roles.items():
        extents[dim] = int(choose(rng, EXTENTS[role]["ragged" if ragged and rng.random() < 0.7
                                                     else "even"]))
        options = BF16_SUB_BLOCKS if role == "sub" and dtype == BF16 else BLOCKS[role]
        blocks[dim] = int(choose(rng, options)) if rng.random() < 0.5 else None
    return extents, blocks


def common(rng):
    return {"dtype": choose(rng, (F32, BF16)), "static": bool(rng.random() < 0.8)}


def tile_loop(variables, dims, blocks, indent):
    """`for tile_a, tile_b in hl.tile([a, b], block_size=[...]):`"""
    chosen = [blocks.get(d) for d in dims]
    target = dims[0] if len(dims) == 1 else f"[{', '.join(dims)}]"
    spelled = ""
    if any(b is not None for b in chosen):
        sizes = [("None" if b is None else str(b)) for b in chosen]
        spelled = f", block_size={sizes[0] if len(dims) == 1 else '[' + ', '.join(sizes) + ']'}"
    return f"{indent}for {', '.join(variables)} in hl.tile({target}{spelled}):\n"


def signature(program, names):
    params = ", ".join(f"{n}: torch.Tensor" for n in names)
    decorator = "@helion.kernel(static_shapes=True)" if program.get("static") else "@helion.kernel()"
    return f"{decorator}\ndef {program['name']}({params}):\n"


def sizes(dims, tensor):
    if len(dims) == 1:
        return f"    {dims[0]} = {tensor}.size(0)\n"
    return f"    {', '.join(dims)} = {tensor}.size()\n"


def leaf_dtypes(program, names):
    return {n: program["dtype"] for n in names}


def tree_uses(tree, name):
    if tree[0] == "leaf":
        return tree[1] == name
    return any(isinstance(c, list) and tree_uses(c, name) for c in tree[1:])


def store_cast(text, program, out_dtype):
    return f"({text}).to({ops.TORCH_DTYPE[out_dtype]})" if program.get("cast_store", True) else text


class Elementwise:
    """out = f(x, y, row, col) over 1-3 dims, 1-3 of them in the grid."""

    @staticmethod
    def generate(rng):
        program = common(rng)
        rank = int(rng.integers(1, 4))
        dims = ["b", "m", "n"][3 - rank:]
        roles = {d: ("lane" if i == rank - 1 else "sub" if i == rank - 2 else "lead")
                 for i, d in enumerate(dims)}
        extents, blocks = pick_dims(rng, roles, program["dtype"])
        grid = int(rng.integers(1, rank + 1))
        features = [f for f in ("y", "row", "col") if rng.random() < 0.5]
        if rank < 2:
            features = [f for f in features if f == "y"]
        if rank != 2:
            features = [f for f in features if f != "col"]
        leaves = {n: program["dtype"] for n in ["x"] + features}
        tree, _ = ops.ExprGen(rng, leaves).tree(int(rng.integers(1, 5)))
        program.update(dims=dims, grid=grid, extents=extents, blocks=blocks,
                       features=features, exprs={"out": tree},
                       cast_store=bool(rng.random() < 0.5))
        return program

    @staticmethod
    def args(program):
        dtype, shape = program["dtype"], list(program["dims"])
        out = [("x", shape, dtype)]
        if "y" in program["features"]:
            out.append(("y", shape, dtype))
        if "row" in program["features"]:
            out.append(("row", ["n"], dtype))
        if "col" in program["features"]:
            out.append(("col", ["m", 1], dtype))
        return out

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def source(program):
        dims, grid = program["dims"], program["grid"]
        tiled = dims[:grid]
        names = [a[0] for a in Elementwise.args(program)]
        index = ", ".join([f"tile_{d}" for d in tiled] + [":"] * (len(dims) - grid))
        loads = {"x": f"x[{index}]", "y": f"y[{index}]",
                 "row": "row[tile_n]" if "n" in tiled else "row[:]",
                 "col": "col[tile_m, :]" if "m" in tiled else "col[:, :]"}
        text = signature(program, names) + sizes(dims, "x")
        # Sizes of different parameters are equal only where an assert says
        # so (as in Helion's examples); symbolic shapes need it.
        asserts = {"y": "x.shape == y.shape", "row": "row.size(0) == n", "col": "col.size(0) == m"}
        text += "".join(f"    assert {asserts[n]}\n" for n in names[1:])
        if "col" in names:  # Helion specializes size-1 dims; symbolic shapes need it said
            text += "    assert col.size(1) == 1\n"
        text += "    out = torch.empty_like(x)\n"
        text += tile_loop([f"tile_{d}" for d in tiled], tiled, program["blocks"], "    ")
        tree = program["exprs"]["out"]
        for name in names:
            if tree_uses(tree, name):
                text += f"        {name}_v = {loads[name]}\n"
        value = ops.render(tree, lambda n: f"{n}_v")
        text += f"        out[{index}] = {store_cast(value, program, program['dtype'])}\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        values = dict(values)
        if "col" in values:
            values["col"] = values["col"].reshape(-1, 1)
        leaves = leaf_dtypes(program, values)
        result = ops.evaluate(program["exprs"]["out"], values, leaves)
        return (np.broadcast_to(result, values["x"].shape),)


class RowReduce:
    """red = sum/amax/amin/mean(pre(x), dim=-1) over a full last dim; out is
    post(v, red) (keepdim) or red itself."""

    @staticmethod
    @staticmethod
    def out_block_legal(extents, blocks, static):
        """The block of `b` as the sublane dim of out = [b, m]: squeezed (1),
        the default (None), or the whole dim where the shapes are static (a
        symbolic dim is not known to be 2 when compiled: seed 301080)."""
        block = blocks.get("b")
        return block is None or block == 1 or (static and block >= extents["b"])

    def generate(rng):
        program = common(rng)
        rank = int(rng.integers(2, 4))
        dims = ["b", "m", "n"][3 - rank:]
        keepdim = bool(rng.random() < 0.5)
        roles = {d: "lead" for d in dims}
        roles["n"] = "lane"
        roles["m"] = "sub" if keepdim else "lane"
        extents, blocks = pick_dims(rng, roles, program["dtype"])
        del blocks["n"]
        if rank == 3 and not keepdim and not RowReduce.out_block_legal(
                extents, blocks, program["static"]):
            # out = [b, m]: b is out's sublane dim, where a block of 2 out
            # of 3 rows is neither the whole dim nor a multiple of 8 (seed
            # 300652); a block of 1 is squeezed.
            blocks["b"] = 1
        gen = ops.ExprGen(rng, {"x": program["dtype"]})
        pre, _ = gen.tree(int(rng.integers(0, 3)))
        exprs = {"pre": pre}
        if keepdim:
            post_leaves = {"v": ops.dtype_of(pre, {"x": program["dtype"]}) or F32}
            post_leaves["red"] = post_leaves["v"]
            exprs["post"] = ops.ExprGen(rng, post_leaves, inexact={"v", "red"}).tree(
                int(rng.integers(1, 3)))[0]
            if not tree_uses(exprs["post"], "red"):
                exprs["post"] = ["sub", exprs["post"], ["leaf", "red"]]
        program.update(dims=dims, extents=extents, blocks=blocks, exprs=exprs, features=[],
                       keepdim=keepdim, reduction=choose(rng, sorted(REDUCTIONS)),
                       method=bool(rng.random() < 0.3), cast_store=bool(rng.random() < 0.5))
        return program

    @staticmethod
    def args(program):
        return [("x", list(program["dims"]), program["dtype"])]

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def source(program):
        dims = program["dims"]
        grid = dims[:-1]
        tiles = ", ".join(f"tile_{d}" for d in grid)
        keepdim, op = program["keepdim"], program["reduction"]
        text = signature(program, ["x"]) + sizes(dims, "x")
        if keepdim:
            text += "    out = torch.empty_like(x)\n"
        else:
            text += f"    out = torch.empty([{', '.join(grid)}], dtype=x.dtype, device=x.device)\n"
        text += tile_loop([f"tile_{d}" for d in grid], grid, program["blocks"], "    ")
        text += f"        x_v = x[{tiles}, :]\n"
        text += f"        v = {ops.render(program['exprs']['pre'], lambda n: 'x_v')}\n"
        keep = ", keepdim=True" if keepdim else ""
        call = f"v.{op}(-1{keep})" if program["method"] else f"torch.{op}(v, dim=-1{keep})"
        text += f"        red = {call}\n"
        if keepdim:
            post = ops.render(program["exprs"]["post"], lambda n: n)
            text += f"        out[{tiles}, :] = {store_cast(post, program, program['dtype'])}\n"
        else:
            text += f"        out[{tiles}] = {store_cast('red', program, program['dtype'])}\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        leaves = {"x": program["dtype"]}
        pre = program["exprs"]["pre"]
        v = np.broadcast_to(ops.evaluate(pre, values, leaves), values["x"].shape)
        v_dtype = ops.dtype_of(pre, leaves) or F32
        red = ops.as_dtype(REDUCTIONS[program["reduction"]](v, axis=-1, keepdims=True), v_dtype)
        if not program["keepdim"]:
            return (red[..., 0],)
        post = ops.evaluate(program["exprs"]["post"], {"v": v, "red": red},
                            {"v": v_dtype, "red": v_dtype})
        return (np.broadcast_to(post, values["x"].shape),)


class ColReduce:
    """A reduction over the full first dim of x[m, n], the grid over n."""

    @staticmethod
    def generate(rng):
        program = common(rng)
        extents, blocks = pick_dims(rng, {"m": "sub", "n": "lane"}, program["dtype"])
        del blocks["m"]
        pre, _ = ops.ExprGen(rng, {"x": program["dtype"]}).tree(int(rng.integers(0, 3)))
        program.update(extents=extents, blocks=blocks, exprs={"pre": pre}, features=[],
                       keepdim=bool(rng.random() < 0.5), reduction=choose(rng, sorted(REDUCTIONS)))
        return program

    @staticmethod
    def args(program):
        return [("x", ["m", "n"], program["dtype"])]

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def source(program):
        keepdim, op = program["keepdim"], program["reduction"]
        text = signature(program, ["x"]) + sizes(["m", "n"], "x")
        shape = "[1, n]" if keepdim else "[n]"
        text += f"    out = torch.empty({shape}, dtype=x.dtype, device=x.device)\n"
        text += tile_loop(["tile_n"], ["n"], program["blocks"], "    ")
        text += "        x_v = x[:, tile_n]\n"
        text += f"        v = {ops.render(program['exprs']['pre'], lambda n: 'x_v')}\n"
        keep = ", keepdim=True" if keepdim else ""
        target = "out[:, tile_n]" if keepdim else "out[tile_n]"
        text += f"        {target} = torch.{op}(v, dim=0{keep})\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        leaves = {"x": program["dtype"]}
        pre = program["exprs"]["pre"]
        v = np.broadcast_to(ops.evaluate(pre, values, leaves), values["x"].shape)
        red = ops.as_dtype(REDUCTIONS[program["reduction"]](v, axis=0, keepdims=program["keepdim"]),
                           ops.dtype_of(pre, leaves) or F32)
        return (red,)


STAT_CARRIED = {"sum": 1, "max": 1, "min": 1, "lse": 2}


class LoopReduce:
    """An inner hl.tile loop over n carrying 1-3 row statistics of pre(x):
    sum, max, min and the online-softmax pair (m_i, l_i) of a logsumexp;
    optionally a wide operand w[m, D] meets a statistic after the loop."""

    @staticmethod
    def generate(rng):
        program = common(rng)
        stats, carried = [], 0
        for stat in rng.permutation(sorted(STAT_CARRIED)):
            if carried + STAT_CARRIED[stat] <= 3 and (not stats or rng.random() < 0.5):
                stats.append(str(stat))
                carried += STAT_CARRIED[stat]
        rank1 = bool(rng.random() < 0.4)
        roles = {"m": "lane" if rank1 else "sub", "n": "lane"}
        extents, blocks = pick_dims(rng, roles, program["dtype"])
        features = stats + (["rank1_out"] if rank1 else [])
        if rng.random() < 0.4:
            features.append("wide")
            extents["d"] = int(choose(rng, (128, 256, 512)))
        pre, _ = ops.ExprGen(rng, {"x": F32}).tree(int(rng.integers(0, 3)))
        program.update(extents=extents, blocks=blocks, features=features, exprs={"pre": pre},
                       augmented=bool(rng.random() < 0.5))
        return program

    @staticmethod
    def stats(program):
        return [s for s in ("sum", "max", "min", "lse") if s in program["features"]]

    @staticmethod
    def args(program):
        out = [("x", ["m", "n"], program["dtype"])]
        if "wide" in program["features"]:
            out.append(("w", ["m", "d"], program["dtype"]))
        return out

    @staticmethod
    def out_dtypes(program):
        return [F32] + ([program["dtype"]] if "wide" in program["features"] else [])

    @staticmethod
    def source(program):
        features, stats = program["features"], LoopReduce.stats(program)
        names = [a[0] for a in LoopReduce.args(program)]
        text = signature(program, names) + sizes(["m", "n"], "x")
        rank1 = "rank1_out" in features
        shape = "[m]" if rank1 else "[m, 1]"
        text += f"    out = torch.empty({shape}, dtype=torch.float32, device=x.device)\n"
        if "wide" in features:
            text += "    assert w.size(0) == m\n    out_w = torch.empty_like(w)\n"
        text += tile_loop(["tile_m"], ["m"], program["blocks"], "    ")
        inits = {"sum": ["acc_sum = hl.zeros([tile_m], dtype=torch.float32)"],
                 "max": ['acc_max = hl.full([tile_m], float("-inf"), dtype=torch.float32)'],
                 "min": ['acc_min = hl.full([tile_m], float("inf"), dtype=torch.float32)'],
                 "lse": ['m_i = hl.full([tile_m], float("-inf"), dtype=torch.float32)',
                         "l_i = torch.zeros_like(m_i)"]}
        for stat in stats:
            text += "".join(f"        {line}\n" for line in inits[stat])
        text += tile_loop(["tile_n"], ["n"], program["blocks"], "        ")
        pre = ops.render(program["exprs"]["pre"], lambda n: "x_v")
        text += "            x_v = x[tile_m, tile_n].to(torch.float32)\n"
        text += f"            v = {pre}\n"
        body = {"sum": ["acc_sum += v.sum(-1)" if program["augmented"]
                        else "acc_sum = acc_sum + torch.sum(v, dim=-1)"],
                "max": ["acc_max = torch.maximum(acc_max, torch.amax(v, dim=-1))"],
                "min": ["acc_min = torch.minimum(acc_min, v.amin(-1))"],
                "lse": ["m_new = torch.maximum(m_i, torch.amax(v, -1))",
                        "l_i = l_i * torch.exp(m_i - m_new) + torch.sum("
                        "torch.exp(v - m_new[:, None]), -1)",
                        "m_i = m_new"]}
        for stat in stats:
            text += "".join(f"            {line}\n" for line in body[stat])
        finals = {"sum": "acc_sum", "max": "acc_max", "min": "acc_min", "lse": "(m_i + torch.log(l_i))"}
        text += f"        total = {' + '.join(finals[s] for s in stats)}\n"
        text += "        out[tile_m] = total\n" if rank1 else "        out[tile_m, :] = total[:, None]\n"
        if "wide" in features:
            stat = "l_i" if "lse" in stats else finals[stats[0]]
            text += f"        out_w[tile_m, :] = (w[tile_m, :] * {stat}[:, None]).to(out_w.dtype)\n"
        text += "    return " + ("out, out_w\n" if "wide" in features else "out\n")
        return text

    @staticmethod
    def reference(program, values):
        x = values["x"]
        v = np.broadcast_to(ops.evaluate(program["exprs"]["pre"], {"x": x}, {"x": F32}), x.shape)
        finals = {"sum": lambda: v.sum(-1), "max": lambda: v.max(-1), "min": lambda: v.min(-1)}
        stats = LoopReduce.stats(program)
        row_max = v.max(-1)
        l_i = np.exp(v - row_max[:, None]).sum(-1)
        finals["lse"] = lambda: row_max + np.log(l_i)
        total = sum(finals[s]() for s in stats)
        out = [total if "rank1_out" in program["features"] else total[:, None]]
        if "wide" in program["features"]:
            stat = l_i if "lse" in stats else finals[stats[0]]()
            out.append(values["w"] * stat[:, None])
        return tuple(out)


class Attention:
    """softmax(q @ kt * scale) @ v by online softmax: m_i, l_i and a wide
    acc[tile_m, dv] carried through the loop over n (pre-broadcast)."""

    @staticmethod
    def generate(rng):
        program = common(rng)
        extents, blocks = pick_dims(rng, {"m": "sub", "n": "lane"}, program["dtype"])
        extents["d"] = int(choose(rng, (64, 128)))
        extents["dv"] = int(choose(rng, (128, 256, 512)))
        program.update(extents=extents, blocks=blocks, exprs={}, features=[],
                       base2=bool(rng.random() < 0.5), addmm=bool(rng.random() < 0.5))
        return program

    @staticmethod
    def args(program):
        dtype = program["dtype"]
        return [("q", ["m", "d"], dtype), ("kt", ["d", "n"], dtype), ("v", ["n", "dv"], dtype)]

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def source(program):
        exp = "torch.exp2" if program["base2"] else "torch.exp"
        scale = (1.0 / math.sqrt(program["extents"]["d"])) * (1.44269504 if program["base2"] else 1.0)
        text = signature(program, ["q", "kt", "v"])
        text += "    m, d = q.size()\n    d2, n = kt.size()\n    n2, dv = v.size()\n"
        text += "    assert d == d2\n    assert n == n2\n"
        text += "    out = torch.empty([m, dv], dtype=q.dtype, device=q.device)\n"
        text += tile_loop(["tile_m"], ["m"], program["blocks"], "    ")
        text += ('        m_i = hl.full([tile_m], float("-inf"), dtype=torch.float32)\n'
                 "        l_i = hl.zeros([tile_m], dtype=torch.float32)\n"
                 "        acc = hl.zeros([tile_m, dv], dtype=torch.float32)\n"
                 "        q_v = q[tile_m, :].to(torch.float32)\n")
        text += tile_loop(["tile_n"], ["n"], program["blocks"], "        ")
        text += (f"            s = torch.matmul(q_v, kt[:, tile_n].to(torch.float32)) * {scale!r}\n"
                 "            m_new = torch.maximum(m_i, torch.amax(s, -1))\n"
                 f"            p = {exp}(s - m_new[:, None])\n"
                 f"            alpha = {exp}(m_i - m_new)\n"
                 "            l_i = l_i * alpha + torch.sum(p, -1)\n")
        if program["addmm"]:
            text += ("            acc = torch.addmm(acc * alpha[:, None], p.to(v.dtype), "
                     "v[tile_n, :])\n")
        else:
            text += ("            acc = acc * alpha[:, None] + torch.matmul(p, "
                     "v[tile_n, :].to(torch.float32))\n")
        text += "            m_i = m_new\n"
        text += "        out[tile_m, :] = (acc / l_i[:, None]).to(out.dtype)\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        s = values["q"] @ values["kt"] / math.sqrt(program["extents"]["d"])
        p = np.exp(s - s.max(-1, keepdims=True))
        return ((p / p.sum(-1, keepdims=True)) @ values["v"],)


PROLOGUES = {"relu": "torch.relu({})", "tanh": "torch.tanh({})", "neg": "-{}",
             "scale": "({} * 0.5)", "silu": "torch.nn.functional.silu({})"}
PROLOGUE_MEANING = {"relu": lambda a: np.maximum(a, 0), "tanh": np.tanh, "neg": np.negative,
                    "scale": lambda a: a * 0.5, "silu": lambda a: a * ops.sigmoid(a)}


class Matmul:
    """acc[f32] over an inner loop on k (addmm / baddbmm / matmul / @), an
    optional prologue (f(0) = 0) on x and an epilogue over acc and bias."""

    @staticmethod
    def generate(rng):
        program = common(rng)
        batched = bool(rng.random() < 0.3)
        roles = {"m": "sub", "n": "lane", "k": "lane"}
        if batched:
            roles["b"] = "lead"
        extents, blocks = pick_dims(rng, roles, program["dtype"])
        features = [f for f in ("bias", "prologue") if rng.random() < 0.4]
        leaves = {"acc": F32}
        if "bias" in features:
            leaves["bias"] = program["dtype"]
        epi, _ = ops.ExprGen(rng, leaves, inexact={"acc"}).tree(int(rng.integers(0, 3)))
        program.update(extents=extents, blocks=blocks, features=features, batched=batched,
                       exprs={"epi": epi}, prologue=choose(rng, sorted(PROLOGUES)),
                       form=choose(rng, ("addmm", "plus", "augmented")))
        return program

    @staticmethod
    def args(program):
        dtype = program["dtype"]
        lead = ["b"] if program["batched"] else []
        out = [("x", lead + ["m", "k"], dtype), ("y", lead + ["k", "n"], dtype)]
        if "bias" in program["features"]:
            out.append(("bias", ["n"], dtype))
        return out

    @staticmethod
    def out_dtypes(program):
        return [program["dtype"]]

    @staticmethod
    def source(program):
        batched, features = program["batched"], program["features"]
        names = [a[0] for a in Matmul.args(program)]
        grid = (["b"] if batched else []) + ["m", "n"]
        lead = "tile_b, " if batched else ""
        text = signature(program, names)
        text += sizes(grid[:-1] + ["k"], "x")
        text += "    k2, n = y.size()\n" if not batched else "    b2, k2, n = y.size()\n"
        text += "    assert k == k2\n"
        if batched:
            text += "    assert b == b2\n"
        if "bias" in features:
            text += "    assert bias.size(0) == n\n"
        text += f"    out = torch.empty([{', '.join(grid)}], dtype=x.dtype, device=x.device)\n"
        text += tile_loop([f"tile_{d}" for d in grid], grid, program["blocks"], "    ")
        text += f"        acc = hl.zeros([{', '.join(f'tile_{d}' for d in grid)}], dtype=torch.float32)\n"
        text += tile_loop(["tile_k"], ["k"], program["blocks"], "        ")
        a = f"x[{lead}tile_m, tile_k]"
        if "prologue" in features:
            a = PROLOGUES[program["prologue"]].format(a)
        b = f"y[{lead}tile_k, tile_n]"
        form = program["form"]
        if form == "addmm":
            call = "torch.baddbmm" if batched else "torch.addmm"
            text += f"            acc = {call}(acc, {a}, {b})\n"
        elif form == "plus":
            call = "torch.bmm" if batched else "torch.matmul"
            text += f"            acc = acc + {call}({a}, {b})\n"
        else:
            text += f"            acc += {a} @ {b}\n"
        leaf = {"acc": "acc", "bias": "bias[tile_n]"}
        epi = ops.render(program["exprs"]["epi"], lambda n: leaf[n])
        text += f"        out[{lead}tile_m, tile_n] = ({epi}).to(out.dtype)\n"
        return text + "    return out\n"

    @staticmethod
    def reference(program, values):
        a = values["x"]
        if "prologue" in program["features"]:
            a = ops.as_dtype(PROLOGUE_MEANING[program["prologue"]](a), program["dtype"])
        if program["dtype"] == BF16 and program["form"] != "addmm":
            # torch.matmul / @ of bf16 tiles is a bf16 tile: each k block's
            # product is rounded to bf16 before it meets the f32 acc (seed
            # 398: tanh(acc) near 0 shows it).
            k = a.shape[-1]
            block = min(program["blocks"].get("k") or BLOCKS["lane"][0], k)
            acc = sum(ops.round_bf16(a[..., i:i + block] @ values["y"][..., i:i + block, :])
                      for i in range(0, k, block))
        else:
            acc = a @ values["y"]
        leaves = {"acc": F32, "bias": program["dtype"]}
        out = ops.evaluate(program["exprs"]["epi"], {"acc": acc, "bias": values.get("bias")}, leaves)
        return (np.broadcast_to(out, acc.shape),)


class Atomic:
    """hl.atomic_add/max/min into outputs: split-K matmul (a 2-D target,
    f32 or bf16) or row statistics of a 2-D grid (1-D targets)."""

    @staticmethod
    def generate(rng):
        program = common(rng)
        if rng.random() < 0.5:
            extents, blocks = pick_dims(rng, {"m": "sub", "n": "lane", "k": "lane"}, program["dtype"])
            blocks["chunk"] = int(choose(rng, (256, 512))) if rng.random() < 0.5 else None
            program.update(variant="split_k", features=[], exprs={},
                           out_f32=bool(rng.random() < 0.5))
        else:
            extents, blocks = pick_dims(rng, {"m": "lane", "n": "lane"}, program["dtype"])
            targets = [t for t in ("add", "max", "min") if rng.random() < 0.5] or ["add"]
            pre, _ = ops.ExprGen(rng, {"x": program["dtype"]}).tree(int(rng.integers(0, 3)))
            program.update(variant="rows", features=targets, exprs={"pre": pre})
        program.update(extents=extents, blocks=blocks)
        return program

    @staticmethod
    def args(program):
        dtype = program["dtype"]
        if program["variant"] == "split_k":
            return [("x", ["m", "k"], dtype), ("y", ["k", "n"], dtype)]
        return [("x", ["m", "n"], dtype)]

    @staticmethod
    def out_dtypes(program):
        if program["variant"] == "split_k":
            return [F32 if program["out_f32"] else program["dtype"]]
        return [F32] * len(program["features"])

    @staticmethod
    def source(program):
        blocks = program["blocks"]
        if program["variant"] == "split_k":
            text = signature(program, ["x", "y"]) + sizes(["m", "k"], "x")
            text += "    k2, n = y.size()\n    assert k == k2\n"
            dtype = "torch.float32" if program["out_f32"] else "x.dtype"
            text += f"    out = torch.zeros([m, n], dtype={dtype}, device=x.device)\n"
            chunk = blocks.get("chunk")
            if chunk is None:
                text += "    k_chunk = hl.register_block_size(k)\n"
            sizes_ = [("None" if blocks.get(d) is None else str(blocks[d])) for d in ("m", "n")]
            sizes_.append("k_chunk" if chunk is None else str(chunk))
            text += (f"    for tile_m, tile_n, outer_k in hl.tile([m, n, k], "
                     f"block_size=[{', '.join(sizes_)}]):\n")
            text += "        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
            inner = "" if blocks.get("k") is None else f", block_size={blocks['k']}"
            text += f"        for inner_k in hl.tile(outer_k.begin, outer_k.end{inner}):\n"
            text += "            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])\n"
            text += "        hl.atomic_add(out, [tile_m, tile_n], acc)\n"
            return text + "    return out\n"
        targets = program["features"]
        text = signature(program, ["x"]) + sizes(["m", "n"], "x")
        inits = {"add": "total = torch.zeros([m], dtype=torch.float32, device=x.device)",
                 "max": "hi = torch.full([m], float(\"-inf\"), dtype=torch.float32, device=x.device)",
                 "min": "lo = torch.full([m], float(\"inf\"), dtype=torch.float32, device=x.device)"}
        text += "".join(f"    {inits[t]}\n" for t in targets)
        text += tile_loop(["tile_m", "tile_n"], ["m", "n"], blocks, "    ")
        text += "        x_v = x[tile_m, tile_n]\n"
        text += f"        v = {ops.render(program['exprs']['pre'], lambda n: 'x_v')}\n"
        calls = {"add": "hl.atomic_add(total, [tile_m], v.sum(-1))",
                 "max": "hl.atomic_max(hi, [tile_m], torch.amax(v, dim=-1))",
                 "min": "hl.atomic_min(lo, [tile_m], v.amin(-1))"}
        text += "".join(f"        {calls[t]}\n" for t in targets)
        names = {"add": "total", "max": "hi", "min": "lo"}
        return text + f"    return {', '.join(names[t] for t in targets)}\n"

    @staticmethod
    def reference(program, values):
        if program["variant"] == "split_k":
            return (values["x"] @ values["y"],)
        leaves = {"x": program["dtype"]}
        pre = program["exprs"]["pre"]
        v = np.broadcast_to(ops.evaluate(pre, values, leaves), values["x"].shape)
        # Each program adds v.sum(-1) of its tile, a value of v's dtype: a
        # bf16 partial sum is rounded to bf16 before it meets the f32 target.
        n = v.shape[-1]
        block = min(program["blocks"].get("n") or BLOCKS["lane"][0], n)
        dtype = ops.dtype_of(pre, leaves) or F32
        partials = [ops.as_dtype(v[:, i:i + block].sum(-1), dtype) for i in range(0, n, block)]
        meaning = {"add": lambda: sum(partials), "max": lambda: v.max(-1), "min": lambda: v.min(-1)}
        return tuple(meaning[t]() for t in program["features"])
