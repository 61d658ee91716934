"""The numbers that explain multi-head attention, read from the core's MultiHeadResult: the path from two
tokens to one weight, the feature-dependent mixing of one query, each head's term through W_O, and
per-head summaries. Pure numpy, like dashboard/attention.py; shapes as there: (h, n, n) for the cube."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .attention import MultiHeadResult, check_int


class CellPath(NamedTuple):
    """Why A^(i)_rj is what it is: the path from the tokens x_r and x_j to the weight, in head i."""

    x_r: np.ndarray  # (d,)  the query token
    x_j: np.ndarray  # (d,)  the key token
    q: np.ndarray  # (d_k,)  q_r^(i) = x_r W_Q^(i)
    k: np.ndarray  # (d_k,)  k_j^(i) = x_j W_K^(i)
    products: np.ndarray  # (d_k,)  q_c k_c: what each coordinate adds to the logit
    score: float  # q . k = sum of products = B_i(x_r, x_j)
    scale: float  # 1/sqrt(d_k) by default
    logits: np.ndarray  # (n,)  row r of head i's logits: score * scale for every key
    weights: np.ndarray  # (n,)  row r of A^(i) = softmax(logits)


def cell_path(X, result: MultiHeadResult, i: int, r: int, j: int) -> CellPath:
    """The numbers behind A^(i)_rj, read from one sequence's MultiHeadResult (no batch axis)."""
    h, n, _ = result.A.shape
    for name, value, size in (("head i", i, h), ("query r", r, n), ("key j", j, n)):
        if check_int(name, value) >= size:
            raise ValueError(f"{name} must be below {size}, got {value}")
    q, k = result.Q[i, r], result.K[i, j]
    products = q * k
    return CellPath(X[r], X[j], q, k, products, float(products.sum()), result.scale, result.logits[i, r],
                    result.A[i, r])


def feature_mixing(result: MultiHeadResult, r: int) -> np.ndarray:
    """For query r, the weight key j gets in feature column c of the concatenation, A^(block(c))_rj: (n, d).

    Columns c of block i = c // (d/h) all use head i's row, so with h = 1 every column is the same
    mixing, and with h > 1 the weights change from block to block."""
    d_k = result.V.shape[-1]
    return np.repeat(result.A[:, r, :].T, d_k, axis=1)  # (n, h) -> (n, h * d_k)


def head_contributions(result: MultiHeadResult, W_O) -> np.ndarray:
    """head_i W_O^(i), where W_O^(i) is the row block of W_O that reads head i: (h, n, d).
    They add up to MultiHead(X): W_O is the only place where the heads' outputs meet."""
    h, _, d_k = result.heads.shape
    W_O_blocks = np.asarray(W_O).reshape(h, d_k, -1)  # (h, d_k, d): rows i*d_k .. (i+1)*d_k - 1
    return result.heads @ W_O_blocks


class HeadSummary(NamedTuple):
    """One number per head, each an (h,) array, to compare the heads at a glance."""

    entropy: np.ndarray  # mean over rows of -sum_j A_rj log2 A_rj, in bits; log2 n is uniform attention
    largest: np.ndarray  # the largest weight A^(i)_rj
    own_cluster: np.ndarray  # mean over rows of the weight a token puts on its own cluster


def head_summaries(A: np.ndarray, cluster: np.ndarray) -> HeadSummary:
    """Summaries of the (h, n, n) cube; `cluster` (n,) labels each token's cluster."""
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(A > 0, A * np.log2(A), 0.0)  # 0 log 0 = 0
    same = cluster[:, None] == cluster[None, :]  # (n, n)
    return HeadSummary(-plogp.sum(-1).mean(-1), A.max(axis=(1, 2)), (A * same).sum(-1).mean(-1))
