"""The steps of multi-head attention, one function each, in the order MultiHead(X) runs them.

`Steps` holds them, and dashboard/attention.py's multi_head_attention runs whichever it is given, so that
dashboard/bugs.py can swap one step for a student's mistake and run the rest unchanged. Shapes as in
attention.py: per-head quantities are stacked on a head axis, (..., h, n, d_k). Pure numpy.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np


def softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax over `axis`, by default the last (row-wise); subtracting the max keeps exp finite."""
    z = logits - logits.max(axis=axis, keepdims=True)
    np.exp(z, out=z)  # in place: at n = 1024 each temporary is 8 MB a head
    z /= z.sum(axis=axis, keepdims=True)
    return z


def split_heads(M: np.ndarray, h: int) -> np.ndarray:
    """(..., n, d) -> (..., h, n, d/h): column block i of M becomes M[..., i, :, :]."""
    *batch, n, d = M.shape
    return M.reshape(*batch, n, h, d // h).swapaxes(-2, -3)


def merge_heads(M: np.ndarray) -> np.ndarray:
    """(..., h, n, d_k) -> (..., n, h * d_k), the inverse of split_heads: [M_1 ... M_h]."""
    *batch, h, n, d_k = M.shape
    return M.swapaxes(-2, -3).reshape(*batch, n, h * d_k)


def project(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """X W: (..., n, d) @ (d, d) -> (..., n, d), for each of W_Q, W_K and W_V."""
    return X @ W


def seed_scale(d_k: int) -> float:
    """The seed's rule: 1/sqrt(d_k) for heads of width d_k."""
    return 1 / np.sqrt(d_k)


def head_scale(rule, d: int, h: int) -> float:
    """The number in front of Q_i K_i^T: the scale rule (seed_scale, or a Setting's) at the heads' width d/h."""
    return rule(d // h)


def scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Q_i K_i^T for every head: (..., h, n, d_k) x2 -> (..., h, n, n), row r the query, column j the key."""
    return Q @ K.swapaxes(-1, -2)


def causal_mask(n: int) -> np.ndarray:
    """(n, n) bools, True where query r may see key j: on and below the diagonal (j <= r)."""
    return np.tri(n, dtype=bool)


def mask_logits(logits: np.ndarray, causal: bool) -> np.ndarray:
    """With `causal`, the logits of the keys after each query set to -inf (a new array); else the logits."""
    return np.where(causal_mask(logits.shape[-1]), logits, -np.inf) if causal else logits


def attention_weights(logits: np.ndarray, causal: bool = False) -> np.ndarray:
    """A = softmax of each row of the (masked) logits: every row sums to 1, over the keys it may see."""
    return softmax(mask_logits(logits, causal))


def mix(A: np.ndarray, V: np.ndarray) -> np.ndarray:
    """head_i = A^(i) V_i: (..., h, n, n) @ (..., h, n, d_k) -> (..., h, n, d_k)."""
    return A @ V


def project_out(concat: np.ndarray, W_O: np.ndarray) -> np.ndarray:
    """MultiHead(X) = [head_1 ... head_h] W_O: W_O is where the heads' outputs meet."""
    return concat @ W_O


class Steps(NamedTuple):
    """The steps of MultiHead(X), each a function; a bug replaces one (`STEPS._replace(logits=...)`)."""

    project: Callable  # (X, W) -> X W
    split: Callable  # (X W, h) -> (..., h, n, d_k), head i's columns
    scale: Callable  # (scale rule, d, h) -> the number in front of Q_i K_i^T
    logits: Callable  # (Q, K) -> Q_i K_i^T, (..., h, n, n)
    weights: Callable  # (scaled logits, causal) -> A, (..., h, n, n)
    mix: Callable  # (A, V) -> heads, (..., h, n, d_k)
    merge: Callable  # heads -> [head_1 ... head_h], (..., n, d)
    output: Callable  # (concat, W_O) -> MultiHead(X), (..., n, d)


STEPS = Steps(project, split_heads, head_scale, scores, attention_weights, mix, merge_heads, project_out)
