"""The numbers that explain multi-head attention, read from the core's MultiHeadResult: the path from two
tokens to one weight, the feature-dependent mixing of one query, each head's term through W_O, and
per-head summaries. Pure numpy, like dashboard/attention.py; shapes as there: (h, n, n) for the cube."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import margins
from .attention import MultiHeadResult, check_int, softmax


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
    next_cluster: np.ndarray  # mean over rows of the weight on the next cluster, (c + 1) mod 3: the lab's other mixing


def head_summaries(A: np.ndarray, cluster: np.ndarray) -> HeadSummary:
    """Summaries of the (h, n, n) cube; `cluster` (n,) labels each token's cluster."""
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(A > 0, A * np.log2(A), 0.0)  # 0 log 0 = 0
    same = cluster[:, None] == cluster[None, :]  # (n, n)
    nxt = (cluster[:, None] + 1) % (cluster.max() + 1) == cluster[None, :]
    return HeadSummary(-plogp.sum(-1).mean(-1), A.max(axis=(1, 2)), (A * same).sum(-1).mean(-1),
                       (A * nxt).sum(-1).mean(-1))


ROLES = ("own cluster", "next cluster", "mixed")


def head_roles(summary: HeadSummary) -> list[int]:
    """Each head's role, an index of ROLES: own or next cluster when that cluster holds more than half of a row's
    weight on average and beats the other two clusters by more than margins.WEIGHT; else mixed."""
    return [role_of(own, nxt) for own, nxt in zip(summary.own_cluster, summary.next_cluster)]


def role_of(own: float, nxt: float) -> int:
    """One head's role from its mean weight on a token's own cluster and on the next (ROLES' index)."""
    c = margins.compare([own, nxt, 1 - own - nxt], margins.WEIGHT)
    return c.best if c.clear and c.best < 2 and (own, nxt)[c.best] > 0.5 else 2


# ------------------------------------------------------------------ influence
# A large weight need not mean a large effect: what key j adds to output r through head i is the vector
# A^(i)_rj v_j^(i) W_O^(i) (Kobayashi et al. 2020, "Attention is Not Only a Weight"), so its size is the
# weight times the length of the key's value as head i writes it into the output.


def value_outputs(result: MultiHeadResult, W_O) -> np.ndarray:
    """f_j^(i) = v_j^(i) W_O^(i): key j's value as head i writes it into the output, (h, n, d).
    head_i W_O^(i) = A^(i) f^(i), so output_r = sum_i sum_j A^(i)_rj f_j^(i)."""
    h, _, d_k = result.V.shape
    return result.V @ np.asarray(W_O).reshape(h, d_k, -1)  # (h, n, d_k) @ (h, d_k, d)


class Influence(NamedTuple):
    """What each key j does to each output r (rows r are queries, columns j keys), four ways."""

    value_size: np.ndarray  # (h, n)  ||f_j^(i)|| = ||v_j^(i) W_O^(i)||
    per_head: np.ndarray  # (h, n, n)  N^(i)_rj = ||A^(i)_rj f_j^(i)|| = A^(i)_rj ||f_j^(i)|| (weights are >= 0)
    layer: np.ndarray  # (n, n)  N_rj = ||sum_i A^(i)_rj f_j^(i)||: key j's share of output r, all heads
    leave_one_out: np.ndarray  # (n, n)  ||output_r without key j - output_r||, j dropped from every softmax
    grad_input: np.ndarray  # (n, n)  ||(d output_r / d x_j) x_j||, through Q, K and V


def influence(result: MultiHeadResult, W_O) -> Influence:
    """Every measure for one sequence's MultiHeadResult (no batch axis; n >= 2), all heads at once."""
    A, L = result.A, result.logits  # (h, n, n)
    if A.ndim != 3 or A.shape[-1] < 2:
        raise ValueError(f"influence needs one sequence of at least 2 tokens, got attention of shape {A.shape}")
    F = value_outputs(result, W_O)  # (h, n, d)
    size = np.linalg.norm(F, axis=-1)  # (h, n)
    per_key = np.einsum("hrj,hjd->rjd", A, F)  # (n, n, d): sum_i A^(i)_rj f_j^(i)
    return Influence(size, A * size[:, None, :], np.linalg.norm(per_key, axis=-1),
                     np.linalg.norm(_without_each_key(L, F) - result.output[:, None, :], axis=-1),
                     np.linalg.norm(gradient_times_input(result, W_O), axis=-1))


def _without_each_key(logits: np.ndarray, F: np.ndarray) -> np.ndarray:
    """output_r with key j dropped from every head's softmax (the rest renormalised), (n, n, d) [r, j].

    With U_rk = exp(l_rk - max_k l_rk): sum_{k != j} U_rk f_k / sum_{k != j} U_rk, each sum over the others
    taken as the keys before j plus those after (no subtraction, so nothing cancels). The denominator is >= 1
    unless j holds the row's largest logit; that one key per row is taken again from the logits."""
    h, n, _ = logits.shape
    U = np.exp(logits - logits.max(-1, keepdims=True))  # (h, r, k)
    top = logits.argmax(-1)  # (h, r)
    heads, rows = np.arange(h)[:, None], np.arange(n)[None, :]
    num = _sum_of_others(U[..., None] * F[:, None, :, :])  # (h, r, j, d)
    den = _sum_of_others(U)  # (h, r, j)
    den[heads, rows, top] = 1.0  # replaced below
    new = num / den[..., None]
    masked = logits.copy()
    masked[heads, rows, top] = -np.inf
    new[heads, rows, top] = softmax(masked) @ F  # (h, r, d): the row's top key dropped
    return new.sum(axis=0)


def _sum_of_others(x: np.ndarray) -> np.ndarray:
    """(h, r, k, ...) -> (h, r, j, ...): for every j, the sum of x over k != j along axis 2."""
    zero = np.zeros_like(x[:, :, :1])
    before = np.concatenate([zero, np.cumsum(x, axis=2)[:, :, :-1]], axis=2)  # k < j
    after = np.concatenate([np.cumsum(x[:, :, ::-1], axis=2)[:, :, -2::-1], zero], axis=2)  # k > j
    return before + after


def gradient_times_input(result: MultiHeadResult, W_O) -> np.ndarray:
    """G_rj = (d output_r / d x_j) x_j, exactly: (n, n, d) [r, j].

    x_j is a value, a key, and (for r = j) the query. Along x_j -> x_j + e x_j the logits move by
    dl^(i)_rk = [r = j] l^(i)_rk + [k = j] l^(i)_rj (q and k are linear in x), the softmax by
    dA_rk = A_rk (dl_rk - sum_m A_rm dl_rm), and f_j by itself, so with P^(i)_r = sum_k A^(i)_rk f_k^(i):
        G_rj = sum_i A^(i)_rj f_j^(i)                      (value: the layer's N vector)
             + sum_i A^(i)_rj l^(i)_rj (f_j^(i) - P^(i)_r)  (key: key j's logit moves)
             + [r = j] sum_i sum_k A^(i)_rk (l^(i)_rk - E^(i)_r) f_k^(i)   (query; E_r = sum_k A_rk l_rk)."""
    A, L = result.A, result.logits  # (h, n, n)
    n = A.shape[-1]
    F = value_outputs(result, W_O)  # (h, n, d)
    P = A @ F  # (h, n, d): head_i W_O^(i)
    E = (A * L).sum(-1, keepdims=True)  # (h, n, 1)
    G = np.einsum("hrj,hjd->rjd", A * (1 + L), F) - np.einsum("hrj,hrd->rjd", A * L, P)
    G[np.arange(n), np.arange(n)] += ((A * (L - E)) @ F).sum(axis=0)  # the query path, on the diagonal
    return G


class CellInfluence(NamedTuple):
    """The path from the weight A^(i)_rj to what key j adds to output r through head i."""

    weight: float  # A^(i)_rj
    value: np.ndarray  # (d_k,)  v_j^(i)
    value_out: np.ndarray  # (d,)  f_j^(i) = v_j^(i) W_O^(i)
    size: float  # ||f_j^(i)||
    influence: float  # N^(i)_rj = weight * size
    weight_rank: int  # 1 + how many keys of row r have a larger weight in head i
    influence_rank: int  # 1 + how many have a larger N^(i)_r.
    n: int


def cell_influence(result: MultiHeadResult, W_O, i: int, r: int, j: int) -> CellInfluence:
    """The drill-down's numbers for the cell (i, r, j) of one sequence's result."""
    h, n, _ = result.A.shape
    for name, value, bound in (("head i", i, h), ("query r", r, n), ("key j", j, n)):
        if check_int(name, value) >= bound:
            raise ValueError(f"{name} must be below {bound}, got {value}")
    F = value_outputs(result, W_O)[i]  # (n, d)
    weights = result.A[i, r]  # (n,)
    N = weights * np.linalg.norm(F, axis=-1)  # (n,)
    return CellInfluence(float(weights[j]), result.V[i, j], F[j], float(np.linalg.norm(F[j])), float(N[j]),
                         int(rank(weights)[j]), int(rank(N)[j]), n)


# ------------------------------------------------------------ ranking the keys


def rank(x: np.ndarray) -> np.ndarray:
    """1 + how many entries of the last axis are larger: 1 is the largest, ties share the best rank. (..., n)."""
    return 1 + (x[..., None, :] > x[..., :, None]).sum(-1)


def average_rank(x: np.ndarray) -> np.ndarray:
    """Ranks along the last axis with ties given their mean rank (Spearman's convention), 1 the largest."""
    return rank(x) + ((x[..., None, :] == x[..., :, None]).sum(-1) - 1) / 2


def spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho of a and b along the last axis (Pearson's r of their average ranks), (...);
    nan where either has every entry tied."""
    ra, rb = (average_rank(x) - (x.shape[-1] + 1) / 2 for x in (a, b))  # centred: mean rank is (n + 1) / 2
    norm = np.sqrt((ra ** 2).sum(-1) * (rb ** 2).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norm > 0, (ra * rb).sum(-1) / np.where(norm > 0, norm, 1), np.nan)


MEASURES = ("weight", "influence", "mean weight", "layer influence", "leave one out", "gradient × input")
PAIRS = ((0, 1), (2, 3), (2, 4), (2, 5))  # each head's weight against its N; the mean weight against each layer measure


class QueryRanking(NamedTuple):
    """For query r (and head i): the keys under each of MEASURES, and how far the rankings agree."""

    head: int
    query: int
    values: np.ndarray  # (6, n)  A^(i)_r., N^(i)_r., mean_i A^(i)_r., N_r., leave-one-out_r., grad x input_r.
    ranks: np.ndarray  # (6, n)  rank() of each row: 1 = largest
    rho: np.ndarray  # (4,)  Spearman's rho of each of PAIRS
    top_match: np.ndarray  # (4,) bool  whether a key ranked 1st by one measure of the pair is 1st by the other
    mover: int  # the key whose rank moves most from weight to influence in head i, among the keys carrying at least
    # margins.SHARE of the row's influence ΣⱼN^(i)_rj (the lowest j on a tie); -1 when none of them moves
    passed: np.ndarray  # the keys that pass it (it moves down) or that it passes (up) from weight to influence
    value_size: np.ndarray  # (n,)  ||f_j^(i)||: why N^(i) reorders the weights


def query_ranking(result: MultiHeadResult, infl: Influence, i: int, r: int) -> QueryRanking:
    """Rank the keys of query r by each measure (head i for the weight and N^(i))."""
    h, n, _ = result.A.shape
    if not (0 <= i < h and 0 <= r < n):
        raise ValueError(f"no head {i} or query {r} in an attention cube of shape {result.A.shape}")
    values = np.stack([result.A[i, r], infl.per_head[i, r], result.A[:, r].mean(0), infl.layer[r],
                       infl.leave_one_out[r], infl.grad_input[r]])  # (6, n)
    ranks = rank(values)
    first, second = (np.array(side) for side in zip(*PAIRS))
    top = ranks == 1  # (6, n)
    move = ranks[1] - ranks[0]  # > 0: down from weight to influence
    carries = values[1] >= margins.SHARE * values[1].sum()  # keys that matter: a stated share of the row's N
    j = int(np.argmax(np.abs(move) * carries))
    if not move[j] or not carries[j]:  # no key that matters changes its rank
        return QueryRanking(i, r, values, ranks, spearman(values[first], values[second]),
                            (top[first] & top[second]).any(-1), -1, np.array([], dtype=int), infl.value_size[i])
    w, N = values[0], values[1]
    # down: keys not above it by weight but above it by influence, so their values are longer (N = A size);
    # up: keys above it by weight but not by influence, so their values are shorter. Never empty.
    passed = ((w <= w[j]) & (N > N[j])) if move[j] > 0 else ((w > w[j]) & (N <= N[j]))
    return QueryRanking(i, r, values, ranks, spearman(values[first], values[second]),
                        (top[first] & top[second]).any(-1), j, np.flatnonzero(passed), infl.value_size[i])


# -------------------------------------------------------------------- heads


class HeadEffect(NamedTuple):
    """What each head does to each output, (h, n) [i, r]."""

    total: np.ndarray  # sum_j N^(i)_rj: everything head i moves into output r, before the pieces cancel
    switched_off: np.ndarray  # ||change of output_r|| with head i off (head_i = 0, the learning lab's surgery)


def head_effects(result: MultiHeadResult, infl: Influence, W_O) -> HeadEffect:
    """Switching head i off takes its term head_i W_O^(i) out of the output, so the change is that term's
    size; it is at most `total` (the triangle inequality), and smaller when the keys' pieces cancel."""
    return HeadEffect(infl.per_head.sum(-1), np.linalg.norm(head_contributions(result, W_O), axis=-1))


# ------------------------------------------------------------ class mode's question

QUESTION_MARGIN = 0.1  # the largest N_rj must beat the runner-up by 10% of itself for the answer to be clear


class KeyQuestion(NamedTuple):
    """'Which key matters most for output r?': the truth from the layer's N row."""

    influence: np.ndarray  # (n,)  N_r., the layer's
    answer: int  # the key with the largest N_rj
    runner_up: int  # the second largest
    margin: float  # (N_answer - N_runner_up) / N_answer
    clear: bool  # margin >= QUESTION_MARGIN: worth asking a class


def key_that_matters_most(infl: Influence, r: int) -> KeyQuestion:
    row = infl.layer[check_int("query r", r, 0, infl.layer.shape[0] - 1)]
    first, second = (int(k) for k in np.argsort(-row, kind="stable")[:2])  # the lowest j on a tie
    margin = float((row[first] - row[second]) / row[first]) if row[first] > 0 else 0.0
    return KeyQuestion(row, first, second, margin, margin >= QUESTION_MARGIN)


# -------------------------------------------------- the three layer measures, against each other

LAYER_MEASURES = (3, 4, 5)  # rows of QueryRanking.values: N_r., leave one out, gradient × input


class Agreement(NamedTuple):
    """How far the layer's three influence measures agree on query r's keys: different questions, not one truth."""

    rho: np.ndarray  # (3, 3)  Spearman's ρ of each pair (1 on the diagonal)
    top: np.ndarray  # (3,)  the key each names first (the lowest on a tie)
    clear: np.ndarray  # (3,) bool  whether that key beats the measure's runner-up by margins.SHARE of the row


def agreement(q: QueryRanking) -> Agreement:
    values = q.values[list(LAYER_MEASURES)]
    rho = np.array([[spearman(a, b) for b in values] for a in values])
    found = [margins.compare(v / v.sum(), margins.SHARE) for v in values]
    return Agreement(rho, np.array([c.best for c in found]), np.array([c.clear for c in found]))
