"""NumPy float64 references of the kernels in kernels/."""
import numpy as np


def _softmax_attention(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    row_sum = weights.sum(axis=-1, keepdims=True)
    return weights @ v, row_sum


def attention_rsqrt(q, k, v):
    # l_i in the kernel is the row sum of exp2((qk - max) * log2 e) plus the
    # initial 1.0 scaled down with alpha: exactly 1 * 2^(-inf) + sum = sum.
    unnormalized, row_sum = _softmax_attention(q, k, v)
    scale = 1.0 / np.sqrt(row_sum * 0.5 + 0.5 + 1.0)
    return unnormalized * scale / row_sum
