"""Expression trees of random kernels: generation, Helion spelling and a
float64 NumPy meaning, from the generator's own knowledge of PyTorch's
semantics (never from the compiler).

A tree is plain JSON data so that a shrunk failing program can be saved
and replayed: ["leaf", name] | ["const", value] | [op, child, ...].
Each node has a dtype ("float32" | "bfloat16"); bf16 values are rounded
to bf16 after every op in the reference, as a bf16 tensor holds them.
"""
import math

import numpy as np

F32, BF16 = "float32", "bfloat16"
TORCH_DTYPE = {F32: "torch.float32", BF16: "torch.bfloat16"}
SPELLING = {F32: "f32", BF16: "bf16", "int32": "i32"}

# name: (Helion spelling, float64 meaning). Arguments that need a domain
# (log, sqrt, rsqrt, division) are wrapped by the generator: abs(a) + 1.
_erf = np.frompyfunc(math.erf, 1, 1)


def erf(a):
    return np.asarray(_erf(a), dtype=np.float64)


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


UNARY = {
    "exp": ("torch.exp({0})", np.exp),
    "exp2": ("torch.exp2({0})", np.exp2),
    "log": ("torch.log({0})", np.log),
    "log2": ("torch.log2({0})", np.log2),
    "sqrt": ("torch.sqrt({0})", np.sqrt),
    "rsqrt": ("torch.rsqrt({0})", lambda a: 1.0 / np.sqrt(a)),
    "tanh": ("torch.tanh({0})", np.tanh),
    "sigmoid": ("torch.sigmoid({0})", sigmoid),
    "erf": ("torch.erf({0})", erf),
    "abs": ("torch.abs({0})", np.abs),
    "neg": ("-{0}", np.negative),
    "relu": ("torch.relu({0})", lambda a: np.maximum(a, 0.0)),
    "gelu": ("torch.nn.functional.gelu({0})",
             lambda a: 0.5 * a * (1.0 + erf(a / math.sqrt(2.0)))),
    "gelu_tanh": ("torch.nn.functional.gelu({0}, approximate=\"tanh\")",
                  lambda a: 0.5 * a * (1.0 + np.tanh(
                      math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3)))),
    "silu": ("torch.nn.functional.silu({0})", lambda a: a * sigmoid(a)),
}
# Ops whose argument must be >= 1 (the generator wraps it).
POSITIVE_DOMAIN = {"log", "log2", "sqrt", "rsqrt"}
# Ops that grow their argument's bound: arguments are squashed first.
GROWING = {"exp": lambda b: math.exp(b), "exp2": lambda b: 2.0 ** b}

BINARY = {
    "add": ("({0} + {1})", np.add),
    "sub": ("({0} - {1})", np.subtract),
    "mul": ("({0} * {1})", np.multiply),
    "div": ("({0} / {1})", np.divide),
    "maximum": ("torch.maximum({0}, {1})", np.maximum),
    "minimum": ("torch.minimum({0}, {1})", np.minimum),
}
COMPARE = {"gt": (">", np.greater), "lt": ("<", np.less), "ge": (">=", np.greater_equal)}


def round_bf16(a):
    """Rounds float64 values to the nearest bf16 (ties to even), as float64."""
    f32 = np.asarray(a, dtype=np.float32)
    bits = f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isfinite(f32), out, f32.astype(np.float64))


def as_dtype(a, dtype):
    return round_bf16(a) if dtype == BF16 else np.asarray(a, dtype=np.float64)


def promote(a, b):
    return F32 if F32 in (a, b) else BF16


def leaf_names(node):
    """The names of the leaves under `node`."""
    if node[0] == "leaf":
        return {node[1]}
    return set().union(*(leaf_names(c) for c in node[1:] if isinstance(c, list)))


class ExprGen:
    """Random trees over named leaves, each leaf with a dtype and a bound on
    its magnitude; values stay finite and inside every op's domain."""

    def __init__(self, rng, leaves, ops=None, inexact=()):
        self.rng = rng
        self.leaves = leaves  # name -> dtype
        self.unary = ops or sorted(UNARY)
        # Leaves the kernel computes with rounding the float64 reference
        # does not have (a dot's or a reduction's accumulator): a condition
        # on one can take the other branch than the reference's where the
        # value sits within rounding of the threshold (seed 300776: a bf16
        # matmul's acc near 3.0).
        self.inexact = frozenset(inexact)

    def leaf(self):
        names = sorted(self.leaves)
        name = names[self.rng.integers(len(names))]
        node = ["leaf", name]
        if self.leaves[name] == BF16 and self.rng.random() < 0.4:
            node = ["to", F32, node]
        return node

    def const(self):
        return ["const", float(self.rng.choice([0.5, 2.0, -1.5, 0.125, 3.0]))]

    def tree(self, depth):
        """Returns (node, bound)."""
        if depth <= 0 or self.rng.random() < 0.2:
            return self.leaf(), 4.0
        kind = self.rng.random()
        if kind < 0.45:
            op = self.unary[self.rng.integers(len(self.unary))]
            child, bound = self.tree(depth - 1)
            return self.unary_node(op, child, bound)
        if kind < 0.9:
            op = sorted(BINARY)[self.rng.integers(len(BINARY))]
            a, bound_a = self.tree(depth - 1)
            # With one leaf, a second operand is often the same value: use
            # constants more, so that trees do not collapse to max(x, x).
            p_const = 0.25 if len(self.leaves) > 1 else 0.5
            b, bound_b = (self.const(), 3.0) if self.rng.random() < p_const else self.tree(depth - 1)
            if op == "div":
                b, bound_b = ["add", ["abs", b], ["const", 1.0]], 1.0
                return ["div", a, b], bound_a
            if op == "mul":
                return ["mul", a, b], bound_a * bound_b
            if op in ("add", "sub"):
                return [op, a, b], bound_a + bound_b
            return [op, a, b], max(bound_a, bound_b)
        # The condition compares a leaf with a constant or another leaf:
        # computed operands could sit within rounding of each other (gelu(r)
        # vs r for large r), where f32 and float64 legitimately disagree.
        left = self.leaf()
        right = self.const() if self.rng.random() < 0.6 else self.leaf()
        b, bound_b = self.tree(depth - 1)
        c, bound_c = self.tree(depth - 1)
        cmp = sorted(COMPARE)[self.rng.integers(len(COMPARE))]
        if self.inexact & (leaf_names(left) | leaf_names(right)):
            return b, bound_b   # drawn as before, so later draws stay the same
        return ["where", [cmp, left, right], b, c], max(bound_b, bound_c)

    def unary_node(self, op, child, bound):
        if op in POSITIVE_DOMAIN:
            child = ["add", ["abs", child], ["const", 1.0]]
            bound += 1.0
            if op in ("log", "log2"):
                return [op, child], math.log2(bound) + 1.0
            return [op, child], math.sqrt(bound) if op == "sqrt" else 1.0
        if op in GROWING:
            if bound > 3.0:
                child, bound = ["tanh", child], 1.0
            return [op, child], GROWING[op](bound)
        if op in ("tanh", "sigmoid", "erf"):
            return [op, child], 1.0
        return [op, child], bound if op != "gelu_tanh" else bound + 1.0


def dtype_of(node, leaves):
    head = node[0]
    if head == "leaf":
        return leaves[node[1]]
    if head == "const":
        return None  # a Python number: the tensor's dtype wins
    if head == "to":
        return node[1]
    if head == "where":
        return promote_optional(dtype_of(node[2], leaves), dtype_of(node[3], leaves))
    if head in BINARY or head in COMPARE:
        return promote_optional(dtype_of(node[1], leaves), dtype_of(node[2], leaves))
    return dtype_of(node[1], leaves)


def promote_optional(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return promote(a, b)


def render(node, leaf_text):
    """Helion spelling; leaf_text(name) spells a leaf (a load or a name)."""
    head = node[0]
    if head == "leaf":
        return leaf_text(node[1])
    if head == "const":
        return repr(node[1])
    if head == "to":
        return f"{render(node[2], leaf_text)}.to({TORCH_DTYPE[node[1]]})"
    if head == "where":
        return (f"torch.where({render(node[1], leaf_text)}, {render(node[2], leaf_text)}, "
                f"{render(node[3], leaf_text)})")
    if head in COMPARE:
        return f"({render(node[1], leaf_text)} {COMPARE[head][0]} {render(node[2], leaf_text)})"
    if head in BINARY:
        return BINARY[head][0].format(render(node[1], leaf_text), render(node[2], leaf_text))
    return UNARY[head][0].format(render(node[1], leaf_text))


def evaluate(node, values, leaves):
    """float64 meaning; values[name] is the leaf's array (broadcastable)."""
    head = node[0]
    if head == "leaf":
        return values[node[1]]
    if head == "const":
        return np.float64(node[1])
    dtype = dtype_of(node, leaves) or F32
    if head == "to":
        return as_dtype(evaluate(node[2], values, leaves), node[1])
    if head == "where":
        cond = evaluate(node[1], values, leaves)
        result = np.where(cond, evaluate(node[2], values, leaves), evaluate(node[3], values, leaves))
    elif head in COMPARE:
        return COMPARE[head][1](evaluate(node[1], values, leaves), evaluate(node[2], values, leaves))
    elif head in BINARY:
        result = BINARY[head][1](evaluate(node[1], values, leaves), evaluate(node[2], values, leaves))
    else:
        result = UNARY[head][1](evaluate(node[1], values, leaves))
    return as_dtype(result, dtype)


def subtrees(node):
    """Smaller replacements of node for the shrinker: its children that are
    values (not comparisons), then a bare leaf."""
    if node[0] in ("leaf", "const"):
        return []
    out = []
    for child in node[1:]:
        if isinstance(child, list) and child[0] not in COMPARE:
            out.append(child)
    return out


def replacements(node):
    """Every tree equal to node with one subtree replaced by a smaller one
    (pre-order), for the shrinker."""
    for smaller in subtrees(node):
        yield smaller
    for index, child in enumerate(node):
        if index == 0 or not isinstance(child, list):
            continue
        for smaller in replacements(child):
            yield node[:index] + [smaller] + node[index + 1:]
