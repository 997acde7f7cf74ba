# --- numpy-reference runtime (copied into every generated module) ----------
# Tiles are half-open [begin, end) ranges whose end is clamped to the loop
# end, and every load or store slices the array with them, so a tile at the
# edge of an array is smaller than the block. Values built at block size
# (full / zeros, broadcast_to) are cropped to the extent of the loaded values
# they meet: in a real kernel those extra cells are padding that never
# reaches memory, so dropping them is exact.
import math

import numpy as np


class _Tile:
    """One tile of a tile loop or launch grid dim."""

    __slots__ = ("begin", "end", "block")

    def __init__(self, begin, end, block):
        self.begin = begin
        self.end = end
        self.block = block

    @property
    def s(self):
        return slice(self.begin, self.end)

    def __repr__(self):
        return f"_Tile({self.begin}, {self.end}, block={self.block})"


def _tiles(begin, end, block):
    begin, end, block = int(begin), int(end), int(block)
    for start in range(begin, end, block):
        yield _Tile(start, min(start + block, end), block)


def _cdiv(a, b):
    return -(-a // b)


def _as(value, dtype):
    """Rounds a result to the IR's dtype (NumPy's promotion is not PyTorch's)."""
    if dtype is None:
        return value
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return dtype(value[()])
        return value.astype(dtype, copy=False)
    return dtype(value)


def _crop(*operands):
    """Crops operands to a common extent on every dim where they differ."""
    shapes = [np.shape(x) for x in operands]
    rank = max(len(shape) for shape in shapes)
    extents = []
    mismatch = False
    for d in range(1, rank + 1):
        sizes = {shape[-d] for shape in shapes if len(shape) >= d and shape[-d] != 1}
        mismatch = mismatch or len(sizes) > 1
        extents.append(min(sizes) if sizes else 1)
    if not mismatch:
        return operands
    cropped = []
    for x, shape in zip(operands, shapes):
        if len(shape) == 0:
            cropped.append(x)
            continue
        index = tuple(
            slice(None) if size == 1 else slice(0, extents[len(shape) - 1 - i])
            for i, size in enumerate(shape))
        cropped.append(x[index])
    return cropped


def _ew(fn, dtype, *operands):
    """An elementwise op with PyTorch broadcasting, rounded to `dtype`."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        return _as(fn(*_crop(*operands)), dtype)


def _fit(value, shape):
    """A stored value cropped and broadcast to the region it is stored into."""
    value = np.asarray(value)
    if value.ndim > len(shape):
        raise ValueError(f"cannot store a value of shape {value.shape} into {shape}")
    index = tuple(slice(0, target) if size != 1 else slice(None)
                  for size, target in zip(value.shape, shape[len(shape) - value.ndim:]))
    return np.broadcast_to(value[index], shape)


def _load(ref, index):
    return np.array(ref[index])


def _store(ref, index, value):
    region = ref[index]
    ref[index] = _fit(value, np.shape(region))


def _atomic(ref, index, value, fn):
    region = np.asarray(ref[index])
    ref[index] = fn(region, _fit(value, region.shape)).astype(ref.dtype)


def _broadcast_to(x, shape):
    x = np.asarray(x)
    lead = len(shape) - x.ndim
    target = tuple(shape[:lead]) + tuple(
        size if size != 1 else want for size, want in zip(x.shape, shape[lead:]))
    return np.broadcast_to(x, target).copy()


def _repeat_lanes(x, reps):
    x = np.asarray(x)
    return np.tile(x, (1,) * (x.ndim - 1) + (int(reps),))


def _dot(a, b, acc, dtype):
    a, b = np.asarray(a), np.asarray(b)
    k = min(a.shape[-1], b.shape[-2])
    out = np.matmul(a[..., :k].astype(dtype), b[..., :k, :].astype(dtype))
    if acc is not None:
        out = _ew(np.add, dtype, acc, out)
    return _as(out, dtype)


def _empty(shape, dtype):
    # Cells never written stay NaN (or a sentinel for integers) so a kernel
    # that forgets part of its output fails the comparison.
    if np.issubdtype(dtype, np.floating):
        return np.full(shape, np.nan, dtype=dtype)
    if dtype is np.bool_:
        return np.zeros(shape, dtype=dtype)
    return np.full(shape, np.iinfo(dtype).min, dtype=dtype)


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(np.asarray(x, dtype=np.float64))


def _gelu(x, approximate):
    x = np.asarray(x, dtype=np.float64)
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
        return 0.5 * x * (1.0 + np.tanh(inner))
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _silu(x):
    return np.asarray(x, dtype=np.float64) * _sigmoid(x)


def _relu(x):
    return np.maximum(x, 0)


def _rsqrt(x):
    with np.errstate(divide="ignore"):
        return 1.0 / np.sqrt(x)
# --- end of runtime ---------------------------------------------------------
