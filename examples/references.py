"""NumPy float64 references for the example kernels.

One function per kernel in examples/<name>.py, with the same name and the
same argument order, returning the output (or a tuple, in the order the
kernel returns them). Inputs may be any floating dtype; everything is
computed in float64.

EXAMPLES describes, for each kernel, the inputs a test harness should make:

    EXAMPLES[name] = {
        "args": [(arg_name, shape), ...],   # tensor arguments, in order
        "dtype": "f32",                     # element type of every input
    }

make_inputs(name, seed) builds those inputs as float32 NumPy arrays
(standard normal), and spec_args(name) spells them as Tessera argument
types ({"x": "f32[256, 512]", ...}) for `--arg` / [kernels.NAME.args].
Scalar arguments (eps) keep their defaults.
"""

from __future__ import annotations

import math

import numpy as np


def _f64(*arrays):
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def add(x, y):
    x, y = _f64(x, y)
    return x + y


def exp(x):
    (x,) = _f64(x)
    return np.exp(x)


def softmax(x):
    (x,) = _f64(x)
    shifted = np.exp(x - x.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def matmul(x, y):
    x, y = _f64(x, y)
    return x @ y


def matmul_bias_gelu(x, y, bias):
    x, y, bias = _f64(x, y, bias)
    pre = x @ y + bias
    return _gelu_tanh(pre), pre


def bmm(A, B):
    A, B = _f64(A, B)
    return A @ B


def attention(q_in, k_in, v_in):
    q, k, v = _f64(q_in, k_in, v_in)
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (scores / scores.sum(axis=-1, keepdims=True)) @ v


def split_k_matmul(x, y):
    x, y = _f64(x, y)
    return x @ y


def layer_norm(x, weight, bias, eps=1e-5):
    x, weight, bias = _f64(x, weight, bias)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def rms_norm(x, weight, eps=1e-5):
    x, weight = _f64(x, weight)
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * weight


def row_sum(x):
    (x,) = _f64(x)
    return x.sum(axis=-1)


def row_cumsum(x):
    (x,) = _f64(x)
    return np.cumsum(x, axis=-1)


def long_sum(x):
    (x,) = _f64(x)
    return x.sum(axis=-1)


def geglu(a, b):
    a, b = _f64(a, b)
    return _gelu_tanh(a) * b


def swiglu(a, b):
    a, b = _f64(a, b)
    return a / (1.0 + np.exp(-a)) * b


def flat_swish(x):
    (x,) = _f64(x)
    return x / (1.0 + np.exp(-x))


def broadcast_add(x, y):
    x, y = _f64(x, y)
    return x + y


def row_bias_add(x, bias):
    x, bias = _f64(x, bias)
    return x + bias


def scaled_epilogue(x, w):
    x, w = _f64(x, w)
    return np.clip((x * w[None, :]) ** 2, -2.0, 2.0)


def block_col_sums(x):
    (x,) = _f64(x)
    shifted = x - x.max(axis=-1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return log_softmax.sum(axis=0)


def rand_uniform(seed, *indices):
    """Tessera's hl.rand: a uniform float32 in [0, 1) per element, a hash of
    the seed and the element's global index along each dim (lowbias32 after
    each index, the top 24 bits as the fraction); `indices` broadcast."""

    def mix(h):
        h = h ^ (h >> np.uint32(16))
        h = h * np.uint32(0x7FEB352D)
        h = h ^ (h >> np.uint32(15))
        h = h * np.uint32(0x846CA68B)
        return h ^ (h >> np.uint32(16))

    with np.errstate(over="ignore"):
        h = mix(np.uint32(seed & 0xFFFFFFFF) ^ np.uint32(0x2545F491))
        for index in indices:
            h = mix(h + np.asarray(index).astype(np.uint32) * np.uint32(0x9E3779B9))
    return (h >> np.uint32(8)).astype(np.float64) / 16777216.0


def dropout(x, p=0.25, seed=1234):
    (x,) = _f64(x)
    rows = np.arange(x.shape[0])[:, None]
    cols = np.arange(x.shape[1])[None, :]
    keep = rand_uniform(seed, rows, cols) > p
    return np.where(keep, x / (1.0 - p), 0.0)


def chunk_sums(x, chunk=128):
    (x,) = _f64(x)
    n = x.shape[1]
    return np.stack([x[:, c:c + chunk].sum(axis=1) for c in range(0, n, chunk)])


def k_grid_matmul(x, w):
    x, w = _f64(x, w)
    return x @ w


def fp8_matmul_quant(x, y):
    import ml_dtypes  # NumPy's fp8 dtypes (a JAX dependency)

    x, y = _f64(x, y)
    x8 = x.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    y8 = y.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    acc = x8 @ y8
    return acc, acc.astype(ml_dtypes.float8_e5m2).astype(np.float64)


def tunable_split_k(x, y, bias=None):
    x, y = _f64(x, y)
    out = x @ y
    return out if bias is None else out + np.asarray(bias, np.float64)[None, :]


def grid_bmm(x, y):
    x, y = _f64(x, y)
    return x @ y
def _segments(x_offsets):
    offsets = np.asarray(x_offsets, dtype=np.int64)
    return list(zip(offsets[:-1], offsets[1:]))


def jagged_sum(x_data, x_offsets):
    (x,) = _f64(x_data)
    return np.stack([x[a:b].sum(axis=0) for a, b in _segments(x_offsets)])


def jagged_mean(x_data, x_offsets):
    (x,) = _f64(x_data)
    return np.stack([x[a:b].mean(axis=0) if b > a else np.zeros(x.shape[1])
                     for a, b in _segments(x_offsets)])


def jagged_softmax(x_data, x_offsets):
    (x,) = _f64(x_data)
    out = np.zeros_like(x)
    for a, b in _segments(x_offsets):
        if b > a:
            shifted = np.exp(x[a:b] - x[a:b].max(axis=0, keepdims=True))
            out[a:b] = shifted / shifted.sum(axis=0, keepdims=True)
    return out


def jagged_softmax_flat(x_data, x_offsets):
    """jagged_softmax over the first x_offsets[-1] rows: the output has as
    many rows as the offsets cover."""
    rows = int(np.asarray(x_offsets)[-1])
    return jagged_softmax(np.asarray(x_data)[:rows], x_offsets)


def jagged_rows_sum(x_data, x_offsets):
    return jagged_sum(x_data, x_offsets)


def jagged_rows_mean(x_data, x_offsets, x_feature_counts):
    means = jagged_mean(x_data, x_offsets)
    counts = np.asarray(x_feature_counts, dtype=np.int64)
    return np.where(np.arange(means.shape[1])[None, :] < counts[:, None], means, 0.0)


def jagged_rows_layer_norm(x_data, x_offsets, eps=1e-5):
    (x,) = _f64(x_data)
    out = np.zeros_like(x)
    for a, b in _segments(x_offsets):
        if b > a:
            seg = x[a:b]
            out[a:b] = (seg - seg.mean()) / np.sqrt(seg.var() + eps)
    return out


def jagged_rows_bmm(x_offsets, jagged, dense, bias):
    x, w, c = _f64(jagged, dense, bias)
    out = np.zeros((x.shape[0], w.shape[2]))
    for s, (a, b) in enumerate(_segments(x_offsets)):
        out[a:b] = x[a:b] @ w[s] + c[s]
    return out


def jagged_prefix_add(y, x_offsets, bonus):
    y64, b64 = _f64(y, bonus)
    lengths = np.diff(np.asarray(x_offsets, dtype=np.int64))
    inside = np.arange(y64.shape[1])[None, :] < lengths[:, None]
    return y64 + np.where(inside, b64[:, None], 0.0)


def jagged_dense_add(x_data, x_offsets, y):
    x64, y64 = _f64(x_data, y)
    out = y64.copy()
    for b, (a, e) in enumerate(_segments(x_offsets)):
        out[b, :e - a] += x64[a:e]
    return out


def embedding(indices, table):
    (t,) = _f64(table)
    return t[np.asarray(indices, dtype=np.int64)]


def conditional_rescale(x, modes):
    (x,) = _f64(x)
    positive = np.asarray(modes)[:, None] > 0
    values = np.where(positive, x * 2.0, x - 1.0)
    return np.where(values.sum(axis=1, keepdims=True) < 0, -values, values)


def embedding_rows(indices, table):
    return embedding(indices, table)


def gather_gemv(w, idx, x):
    w64, x64 = _f64(w, x)
    return np.concatenate([w64[i] @ x64 for i in np.asarray(idx, dtype=np.int64)])


def masked_splice(x, y, split=130, rows=150):
    x64, y64 = _f64(x, y)
    out = np.where(np.arange(x64.shape[1])[None, :] < split, x64, y64)
    out[rows:] = -1.0
    return out


def jagged_gather_sum(x_data, x_offsets, x_lengths, max_length=8):
    (x,) = _f64(x_data)
    return np.stack([x[a:a + n].sum(axis=0) for a, n in
                     zip(np.asarray(x_offsets, np.int64), np.asarray(x_lengths, np.int64))])


def chunk_state(B, x, dt, decay):
    B, x, dt, decay = _f64(B, x, dt, decay)
    batch, seqlen, ngroups, dstate = B.shape
    nheads, headdim = x.shape[2], x.shape[3]
    nchunks, chunk_size = dt.shape[2], dt.shape[3]
    pad = nchunks * chunk_size - seqlen
    x = np.pad(x, ((0, 0), (0, pad), (0, 0), (0, 0)))
    B = np.pad(B, ((0, 0), (0, pad), (0, 0), (0, 0)))
    x = x.reshape(batch, nchunks, chunk_size, nheads, headdim)
    B = B.reshape(batch, nchunks, chunk_size, ngroups, dstate)
    B = np.repeat(B, nheads // ngroups, axis=3)
    weight = np.exp(decay[..., -1:] - decay) * dt  # [batch, nheads, nchunks, l]
    return np.einsum("bhcl,bclhp,bclhn->bchpn", weight, x, B)


def lagged_diff(x, lead=3, lag=5):
    (x,) = _f64(x)
    seq = x.shape[0]
    zeros = np.zeros((max(lead, lag),) + x.shape[1:])
    padded = np.concatenate([zeros, x, zeros])
    base = max(lead, lag)
    return padded[base + lead:base + lead + seq] - padded[base - lag:base - lag + seq]


def concat_seq(x, y):
    x, y = _f64(x, y)
    return np.concatenate([x, y])


def neighbor_sum(x):
    (x,) = _f64(x)
    below = np.zeros_like(x)
    below[:-1] = x[1:]
    left = np.zeros_like(x)
    left[:, 3:] = x[:, :-3]
    return below + left


def concat_cols(x, y):
    x, y = _f64(x, y)
    return np.concatenate([x, y], axis=1)


def concat_slices(x, y):
    x, y = _f64(x, y)
    return np.concatenate([x, y], axis=1)


def cross_entropy_rows(logits, labels):
    (x,) = _f64(logits)
    row_max = x.max(axis=1)
    lse = row_max + np.log(np.exp(x - row_max[:, None]).sum(axis=1))
    return lse - _pick_lanes(x, labels)


def _pick_lanes(x, lanes):
    """x[i, lanes[i]]; a lane outside [0, x.shape[1]) matches none and reads
    0, as the kernels' lane compare does (NumPy would wrap a negative one)."""
    lanes = np.asarray(lanes, dtype=np.int64)
    inside = (lanes >= 0) & (lanes < x.shape[1])
    return np.where(inside, x[np.arange(x.shape[0]), np.where(inside, lanes, 0)], 0.0)


def label_nll(log_probs, targets, weights, eps=0.1):
    x, w = _f64(log_probs, weights)
    smoothed = (1.0 - eps) * _pick_lanes(x, targets) + eps / x.shape[1] * x.sum(axis=1)
    return -w * smoothed


def shifted_views(logits):
    (x,) = _f64(logits)
    cur, nxt = x[:, :-1, :], x[:, 1:, :]
    row_max = cur.max(axis=-1)
    lse = row_max + np.log(np.exp(cur - row_max[..., None]).sum(axis=-1))
    return lse + (nxt - cur).mean(axis=-1)


def shifted_grad(logits, scale):
    x, s = _f64(logits, scale)
    cur = x[:, :-1, :]
    p = np.exp(cur - cur.max(axis=-1, keepdims=True))
    grad = np.empty_like(x)
    grad[:, :-1, :] = p / p.sum(axis=-1, keepdims=True) * s[..., None]
    grad[:, -1, :] = 0.25
    return grad


def scatter_rows(x, w, dest):
    x, w = _f64(x, w)
    out = np.zeros((x.shape[0], w.shape[1]))
    out[np.asarray(dest, dtype=np.int64)] = x @ w
    return out


def segment_sum(data, segment_ids, num_segments=48):
    (x,) = _f64(data)
    out = np.zeros((num_segments, x.shape[1]))
    np.add.at(out, np.asarray(segment_ids, dtype=np.int64), x)
    return out


def segment_reduction(data, segment_ids, num_segments=48):
    return segment_sum(data, segment_ids, num_segments)


def expert_scatter(a, w, counts, offsets, order, max_rows=128):
    a, w = _f64(a, w)
    out = np.zeros((a.shape[0], w.shape[2]))
    for g in range(w.shape[0]):
        tokens = np.asarray(order)[offsets[g]:offsets[g] + counts[g]]
        out[tokens] = a[tokens] @ w[g]
    return out


def grouped_matmul(x, w, offsets, block_m=16, block_n=128):
    x, w = _f64(x, w)
    out = np.zeros((x.shape[0], w.shape[1]))
    for a, b in _segments(offsets):
        out[a:b] = x[a:b] @ w[:, :]
    return out


def jagged_offsets(total, num_segments, rng):
    """Random non-decreasing offsets from 0 to total with some empty
    segments (a third of them, at random) and unaligned starts."""
    empty = rng.random(num_segments) < 1 / 3
    weights = np.where(empty, 0.0, rng.random(num_segments) + 0.05)
    lengths = np.floor(weights / weights.sum() * total).astype(np.int64)
    lengths[np.argmax(weights)] += total - lengths.sum()
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


# Kernels with integer arguments: name -> (shapes, rng) -> the integer
# arrays by argument position (the other arguments are standard normal).
def _jagged_integer_args(shapes, rng):
    total = shapes[0][0]
    return {1: jagged_offsets(total, shapes[1][0] - 1, rng)}


def _jagged_prefix_integer_args(shapes, rng):
    """Offsets as _jagged_integer_args that end before the data's last row
    (about an eighth of the rows past them): the output's row count is
    x_offsets[-1], not x_data's."""
    total = shapes[0][0]
    return {1: jagged_offsets(total - total // 8, shapes[1][0] - 1, rng)}


def _jagged_feature_integer_args(shapes, rng):
    """Offsets as _jagged_integer_args, and a feature count per row in
    [0, m] with 0 and m both present."""
    m, rows = shapes[0][1], shapes[2][0]
    counts = rng.integers(0, m + 1, size=rows)
    counts[0], counts[-1] = 0, m
    return {**_jagged_integer_args(shapes, rng), 2: counts}


def _jagged_bmm_integer_args(shapes, rng):
    """Offsets first: [b + 1] over the jagged rows of argument 1, the first
    segment empty (few segments: the random ones may have no empty one)."""
    offsets = jagged_offsets(shapes[1][0], shapes[0][0] - 1, rng)
    offsets[1] = 0
    return {0: offsets}


def _prefix_integer_args(shapes, rng):
    """Offsets of rows of 0..n columns (some empty, one full)."""
    rows, n = shapes[0]
    lengths = rng.integers(0, n + 1, size=rows)
    lengths[rng.random(rows) < 1 / 3] = 0
    lengths[-1] = n
    return {1: np.concatenate([[0], np.cumsum(lengths)])}


def _grouped_integer_args(shapes, rng):
    """Group offsets over the rows of x: a third of the groups empty, the
    others of random sizes (rarely multiples of the block), from row 3 to 5
    rows before the end: the rows of no group must stay 0, so a ragged last
    block that stored past its group's end (or an aligned window that
    clobbered the rows before its start) shows."""
    rows, groups = shapes[0][0], shapes[2][0] - 1
    return {2: 3 + jagged_offsets(rows - 8, groups, rng)}


def _dense_add_integer_args(shapes, rng):
    """Offsets of rows of 0..n values (some empty, one n long) that fill
    x_data [total] exactly (n <= total <= (rows - 1) * n)."""
    total, (rows, n) = shapes[0][0], shapes[2]
    lengths = rng.integers(1, n + 1, size=rows)
    lengths[rng.random(rows) < 1 / 3] = 0
    lengths[0], lengths[-1] = 0, n
    while lengths.sum() != total:
        grow = lengths.sum() < total
        open_ = np.flatnonzero(lengths < n if grow else lengths > 0)
        open_ = open_[(open_ != 0) & (open_ != rows - 1)]
        lengths[rng.choice(open_)] += 1 if grow else -1
    return {1: np.concatenate([[0], np.cumsum(lengths)])}


def _embedding_integer_args(shapes, rng):
    return {0: rng.integers(0, shapes[1][0], size=shapes[0])}


def _mode_integer_args(shapes, rng):
    return {1: rng.integers(-1, 2, size=shapes[1])}


def _gather_gemv_integer_args(shapes, rng):
    return {1: rng.integers(0, shapes[0][0], size=shapes[1])}


def _label_integer_args(shapes, rng):
    """One label per row of logits [n, vocab], in [0, vocab)."""
    return {1: rng.integers(0, shapes[0][1], size=shapes[1])}


def _jagged_gather_integer_args(shapes, rng, max_length=8):
    """Segments of 0..max_length rows (a third empty) at random starts."""
    total, count = shapes[0][0], shapes[1][0]
    lengths = rng.integers(1, max_length + 1, size=count)
    lengths[rng.random(count) < 1 / 3] = 0
    starts = rng.integers(0, total - max_length + 1, size=count)
    return {1: starts, 2: lengths}


def _permutation_integer_args(shapes, rng):
    """Distinct destination rows: a permutation of the rows of x."""
    return {2: rng.permutation(shapes[0][0])}


def _segment_integer_args(shapes, rng, num_segments=48):
    """Random segment ids with repeats (and some segments left empty)."""
    return {1: rng.integers(0, num_segments - 8, size=shapes[1])}


def _sorted_segment_integer_args(shapes, rng, num_segments=48):
    """Sorted segment ids: runs of random lengths (some segments empty), one
    run longer than a 128-row block, so runs cross block boundaries."""
    n = shapes[1][0]
    ids = np.sort(rng.integers(0, num_segments - 8, size=n))
    start = n // 3
    ids[start:start + 150] = ids[start]
    return {1: np.sort(ids)}


def _expert_integer_args(shapes, rng, max_rows=128):
    """Tokens split over the experts, at most max_rows each, the first
    expert empty when the others can hold every token; a random order."""
    tokens, experts = shapes[0][0], shapes[1][0]
    counts = np.zeros(experts, dtype=np.int64)
    first = 1 if (experts - 1) * max_rows >= tokens else 0
    for _ in range(tokens):
        open_ = [g for g in range(first, experts) if counts[g] < max_rows]
        counts[rng.choice(open_)] += 1
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return {2: counts, 3: offsets, 4: rng.permutation(tokens)}


INTEGER_ARGS = {
    "expert_scatter": _expert_integer_args,
    "scatter_rows": _permutation_integer_args,
    "segment_sum": _segment_integer_args,
    "segment_reduction": _sorted_segment_integer_args,
    "conditional_rescale": _mode_integer_args,
    "jagged_sum": _jagged_integer_args,
    "jagged_mean": _jagged_integer_args,
    "jagged_softmax": _jagged_integer_args,
    "jagged_softmax_flat": _jagged_prefix_integer_args,
    "jagged_rows_sum": _jagged_integer_args,
    "jagged_rows_mean": _jagged_feature_integer_args,
    "jagged_rows_layer_norm": _jagged_integer_args,
    "jagged_rows_bmm": _jagged_bmm_integer_args,
    "jagged_prefix_add": _prefix_integer_args,
    "grouped_matmul": _grouped_integer_args,
    "jagged_dense_add": _dense_add_integer_args,
    "embedding": _embedding_integer_args,
    "embedding_rows": _embedding_integer_args,
    "gather_gemv": _gather_gemv_integer_args,
    "jagged_gather_sum": _jagged_gather_integer_args,
    "cross_entropy_rows": _label_integer_args,
    "label_nll": _label_integer_args,
}


EXAMPLES = {
    "add": {"args": [("x", (256, 512)), ("y", (256, 512))], "dtype": "f32"},
    "exp": {"args": [("x", (256, 512))], "dtype": "f32"},
    "softmax": {"args": [("x", (256, 512))], "dtype": "f32"},
    "matmul": {"args": [("x", (256, 384)), ("y", (384, 512))], "dtype": "f32"},
    "matmul_bias_gelu": {
        "args": [("x", (256, 384)), ("y", (384, 512)), ("bias", (512,))],
        "dtype": "f32",
    },
    "bmm": {"args": [("A", (4, 128, 256)), ("B", (4, 256, 128))], "dtype": "f32"},
    "attention": {
        "args": [
            ("q_in", (2, 4, 256, 64)),
            ("k_in", (2, 4, 512, 64)),
            ("v_in", (2, 4, 512, 64)),
        ],
        "dtype": "f32",
    },
    "split_k_matmul": {"args": [("x", (128, 1024)), ("y", (1024, 256))], "dtype": "f32"},
    "layer_norm": {
        "args": [("x", (256, 512)), ("weight", (512,)), ("bias", (512,))],
        "dtype": "f32",
    },
    "rms_norm": {"args": [("x", (256, 512)), ("weight", (512,))], "dtype": "f32"},
    "row_sum": {"args": [("x", (256, 512))], "dtype": "f32"},
    "row_cumsum": {"args": [("x", (256, 512))], "dtype": "f32"},
    "long_sum": {"args": [("x", (8, 4096))], "dtype": "f32"},
    "geglu": {"args": [("a", (256, 512)), ("b", (256, 512))], "dtype": "f32"},
    "swiglu": {"args": [("a", (256, 512)), ("b", (256, 512))], "dtype": "f32"},
    "scaled_epilogue": {"args": [("x", (256, 512)), ("w", (512,))], "dtype": "f32"},
    "block_col_sums": {"args": [("x", (512, 256))], "dtype": "f32"},
    "dropout": {"args": [("x", (256, 512))], "dtype": "f32"},
    "chunk_sums": {"args": [("x", (256, 512))], "dtype": "f32"},
    "fp8_matmul_quant": {"args": [("x", (256, 384)), ("y", (384, 256))], "dtype": "f32"},
    "tunable_split_k": {"args": [("x", (256, 512)), ("y", (512, 256))], "dtype": "f32"},
    "grid_bmm": {"args": [("x", (2, 256, 384)), ("y", (2, 384, 128))], "dtype": "f32"},
    "k_grid_matmul": {"args": [("x", (256, 384)), ("w", (384, 128))], "dtype": "f32"},
}


def make_inputs(name, seed=0):
    """Float32 standard-normal inputs for kernel `name`, in argument order."""
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal(shape).astype(np.float32)
        for _, shape in EXAMPLES[name]["args"]
    ]


def spec_args(name):
    """Argument types for kernel `name`: {"x": "f32[256, 512]", ...}."""
    example = EXAMPLES[name]
    return {
        arg: "{}[{}]".format(example["dtype"], ", ".join(str(d) for d in shape))
        for arg, shape in example["args"]
    }
