"""Multi-head self-attention in numpy, as built up in the seed notebook.

Shapes follow the notebook: X is (n, d), there are h heads of width d_k = d/h,
and every per-head quantity is stacked on a leading head axis, (h, ...).
This module is pure numpy (with i18n for the errors a page shows): the views import it, never the other way round.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .i18n import _, clauses, format_list, ngettext
from .steps import (STEPS, Steps, attention_weights, causal_mask, merge_heads, seed_scale, softmax,  # noqa: F401
                    split_heads)

N_TOKENS = 12
D_MODEL = 8
N_CLUSTERS = 3
HEAD_CHOICES = (1, 2, 4, 8)


# ---------------------------------------------------------------- validation


def check_int(name: str, value, minimum: int = 0, maximum: int | None = None,
              error: type[Exception] = ValueError) -> int:
    """Return `value` as an int in [minimum, maximum], or raise `error` saying what is allowed.

    Python and numpy integers pass; bool, float, str and None do not. The one integer check of the
    project: the rules (`limits`) pass PreventUpdate, class mode's store its own Invalid. The message, which
    a page may show, names the value `_(name)`: a name marked N_ is said in the page's language.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or value < minimum or (maximum is not None and value > maximum):
        # A whole sentence each (no value for an error that says none: a forged value is not repeated back)
        said = isinstance(value, (int, float, np.integer)) and not getattr(error, "without_value", False)
        if maximum is not None:
            # Translators: {value} is the number given instead of one in the range
            message = (_("{name} must be a whole number from {minimum} to {maximum}, got {value}.") if said else
                       _("{name} must be a whole number from {minimum} to {maximum}."))
        else:
            message = (_("{name} must be an integer >= {minimum}, got {value}.") if said else
                       _("{name} must be an integer >= {minimum}."))
        raise error(message.format(name=_(name), minimum=minimum, maximum=maximum, value=repr(value)))
    return int(value)


def _check_matrix(name: str, M, shape: tuple[int, int]) -> np.ndarray:
    M = np.asarray(M, dtype=float)
    if M.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return M


def check_heads(h, d: int) -> int:
    """h must be a positive integer that divides d."""
    h = check_int("h (number of heads)", h, minimum=1)
    if d % h:
        divisors = [k for k in range(1, d + 1) if d % k == 0]
        raise ValueError(f"h = {h} does not divide d = {d}; allowed: {divisors}")
    return h


def _check_X(X, batched: bool = False) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim not in ((2, 3) if batched else (2,)) or 0 in X.shape:
        expected = "an (n, d) matrix or a (B, n, d) batch" if batched else "an (n, d) matrix"
        raise ValueError(f"X must be {expected}, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (no NaN or inf)")
    return X


# ---------------------------------------------------------------- single head


def single_head_attention(X, W_Q, W_K, W_V) -> np.ndarray:
    """Attn(Q, K, V) = softmax(Q K^T / sqrt(d)) V with Q = X W_Q, K = X W_K, V = X W_V.

    X is (n, d), each W is (d, d); returns (n, d).
    """
    X = _check_X(X)
    d = X.shape[1]
    V = X @ _check_matrix("W_V", W_V, (d, d))
    return single_head_mixing(X, W_Q, W_K) @ V


def single_head_mixing(X, W_Q, W_K, scale=None) -> np.ndarray:
    """A = softmax(Q K^T / sqrt(d)), the one mixing matrix of single-head attention: (n, n).
    `scale` replaces the 1/sqrt(d)."""
    X = _check_X(X)
    d = X.shape[1]
    scale = 1 / np.sqrt(d) if scale is None else check_scale(scale)
    Q = X @ _check_matrix("W_Q", W_Q, (d, d))
    K = X @ _check_matrix("W_K", W_K, (d, d))
    return softmax(Q @ K.T * scale)


# ----------------------------------------------------------------- multi head


@dataclass(frozen=True)
class MultiHeadResult:
    """Every intermediate of MultiHead(X); unpacks as (output, attentions) like the seed's function."""

    # Shapes for one sequence; a batch puts its axis B first.
    Q: np.ndarray  # (h, n, d_k)  Q_i = X W_Q^(i)
    K: np.ndarray  # (h, n, d_k)  K_i = X W_K^(i)
    V: np.ndarray  # (h, n, d_k)  V_i = X W_V^(i)
    logits: np.ndarray  # (h, n, n)  Q_i K_i^T * scale
    A: np.ndarray  # (h, n, n)  A^(i) = softmax(logits_i), row-stochastic
    heads: np.ndarray  # (h, n, d_k)  head_i = A^(i) V_i
    concat: np.ndarray  # (n, d)  [head_1 ... head_h]
    output: np.ndarray  # (n, d)  concat W_O
    scale: float  # the softmax's scale, 1/sqrt(d_k) unless asked otherwise

    @property
    def attentions(self) -> np.ndarray:
        """The attention cube, (h, n, n)."""
        return self.A

    def __iter__(self):
        yield self.output
        yield self.A


def scale_rule(scale):
    """A scale rule (head width d_k -> the number in front of Q_i K_i^T) for multi_head_attention's `scale`:
    None is the seed's 1/sqrt(d_k); a number is that number at every width; a function is itself."""
    if scale is None:
        return seed_scale
    if callable(scale):
        return scale
    fixed = check_scale(scale)
    return lambda d_k: fixed


def multi_head_attention(X, W_Q, W_K, W_V, W_O, h, scale=None, causal=False, steps: Steps = STEPS) -> MultiHeadResult:
    """MultiHead(X) = [head_1 ... head_h] W_O with head_i = softmax(Q_i K_i^T / sqrt(d/h)) V_i.

    X is (n, d), or a batch (B, n, d); W_Q, W_K, W_V, W_O are (d, d); h divides d.
    `scale` replaces the 1/sqrt(d/h) in front of Q_i K_i^T: a positive number, or a rule d_k -> scale
    (as Setting.scale_at). With `causal`, query r attends to keys 0..r only: the later keys' logits are
    -inf before the softmax, so each row still sums to 1 (the logits kept in the result are unmasked).
    `steps` are the functions run in turn (STEPS; dashboard/bugs.py swaps one for a mistake).
    All heads are computed in one batch. Returns a MultiHeadResult that
    unpacks as (output (n, d), attentions (h, n, n)).
    """
    X = _check_X(X, batched=True)
    d = X.shape[-1]
    h = check_heads(h, d)
    W_Q, W_K, W_V, W_O = (_check_matrix(name, W, (d, d)) for name, W in
                          (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O)))
    scale = check_scale(steps.scale(scale_rule(scale), d, h))
    Q, K, V = (steps.split(steps.project(X, W), h) for W in (W_Q, W_K, W_V))  # (h, n, d_k) each
    logits = steps.logits(Q, K)  # (h, n, n)
    logits *= scale
    A = steps.weights(logits, bool(causal))  # (h, n, n)
    heads = steps.mix(A, V)  # (h, n, d_k)
    concat = steps.merge(heads)  # (n, d)
    return MultiHeadResult(Q, K, V, logits, A, heads, concat, steps.output(concat, W_O), float(scale))


def check_scale(scale) -> float:
    """A softmax scale must be a finite positive number."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not 0 < scale < np.inf:
        raise ValueError(f"scale must be a finite positive number, got {scale!r}")
    return float(scale)


def bilinear_forms(W_Q, W_K, h) -> np.ndarray:
    """M_i = W_Q^(i) W_K^(i)T, so that B_i(x, y) = x^T M_i y: (h, d, d), each of rank <= d/h.
    The logits of head i are X M_i X^T times the scale."""
    W_Q = np.asarray(W_Q, dtype=float)
    d = W_Q.shape[0]
    h = check_heads(h, d)
    W_Q = _check_matrix("W_Q", W_Q, (d, d))
    W_K = _check_matrix("W_K", W_K, (d, d))
    return split_heads(W_Q, h) @ split_heads(W_K, h).swapaxes(-1, -2)  # (h, d, d_k) @ (h, d_k, d)


def numerical_rank(M: np.ndarray) -> np.ndarray:
    """The rank of each matrix in a stack (..., d, d), counting singular values above rounding: (...,) ints."""
    return np.linalg.matrix_rank(M)


# ----------------------------------------------------------- worked example


class WorkedExample(NamedTuple):
    """The seed's example: X (n, d) and four (d, d) weights; `cluster` (n,) labels each token."""

    X: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    cluster: np.ndarray


SEED_PER_CLUSTER = N_TOKENS // N_CLUSTERS  # the seed's four tokens a cluster


def worked_example(seed, per_cluster=SEED_PER_CLUSTER) -> WorkedExample:
    """n = 3 * per_cluster tokens in R^8: three unit-norm centres, noisy tokens around each, and W_Q, W_K, W_V, W_O.

    Draws from np.random.default_rng(seed) in the seed notebook's order, so with four tokens a cluster the
    numbers equal the notebook's for every seed. Other sizes keep the same weights and the seed's first
    tokens: tokens past the fourth of a cluster are drawn after the weights.
    """
    seed = check_int("seed", seed)
    per_cluster = check_int("tokens per cluster", per_cluster, minimum=1)
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(N_CLUSTERS, D_MODEL))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    noise = rng.normal(size=(N_CLUSTERS, SEED_PER_CLUSTER, D_MODEL))  # (3, 4, d)
    W_Q, W_K, W_V, W_O = rng.normal(size=(4, D_MODEL, D_MODEL)) / np.sqrt(D_MODEL)
    if per_cluster > SEED_PER_CLUSTER:
        extra = rng.normal(size=(N_CLUSTERS, per_cluster - SEED_PER_CLUSTER, D_MODEL))
        noise = np.concatenate([noise, extra], axis=1)  # (3, per_cluster, d)
    X = (centres[:, None, :] + 0.2 * noise[:, :per_cluster]).reshape(N_CLUSTERS * per_cluster, D_MODEL)
    cluster = np.repeat(np.arange(N_CLUSTERS), per_cluster)
    return WorkedExample(X, W_Q, W_K, W_V, W_O, cluster)


# ---------------------------------------------------------- permutations


def check_permutation(perm, n: int) -> np.ndarray:
    """Return perm as an int array if it is an ordering of 0..n-1, else raise ValueError."""
    if isinstance(perm, (str, bytes)) or not hasattr(perm, "__len__"):
        raise ValueError(_("a permutation must be a list of the numbers 0 to {last}").format(last=n - 1))
    items = list(perm)
    if len(items) != n:
        raise ValueError(ngettext("a permutation of {n} token needs {n} number, got {count}",
                                  "a permutation of {n} tokens needs {n} numbers, got {count}", n).format(
            n=n, count=len(items)))
    for p in items:
        if isinstance(p, bool) or not isinstance(p, numbers.Integral):
            raise ValueError(_("A permutation holds whole numbers only, got {value}.").format(value=repr(p)))
    seen = sorted(int(p) for p in items)
    if seen != list(range(n)):
        missing = sorted(set(range(n)) - set(seen))
        repeated = sorted({p for p in seen if seen.count(p) > 1})
        out_of_range = sorted({p for p in seen if not 0 <= p < n})
        problems = (
            # Translators: each names the token numbers that make a typed order no permutation, e.g. "missing: 3, 7"
            (_("repeated: {numbers}"), repeated), (_("missing: {numbers}"), missing),
            (_("out of range: {numbers}"), out_of_range))
        parts = [said.format(numbers=format_list(tokens)) for said, tokens in problems if tokens]
        raise ValueError(_("Not a permutation of 0..{last} ({problems}).").format(last=n - 1,
                                                                                  problems=clauses(parts)))
    return np.array(items, dtype=int)


def permutation_matrix(perm) -> np.ndarray:
    """P with P[r, perm[r]] = 1, so that (P X)[r] = X[perm[r]]: (n, n)."""
    perm = np.asarray(perm)
    return np.eye(perm.size)[check_permutation(perm, perm.size)]


def permute_attention(A: np.ndarray, perm) -> np.ndarray:
    """P A^(i) P^T for every head at once: (..., n, n) -> (..., n, n)."""
    perm = check_permutation(perm, A.shape[-1])
    return A[..., perm, :][..., :, perm]


class EquivarianceCheck(NamedTuple):
    """MultiHead(PX) against P MultiHead(X), and the same for every A^(i)."""

    original: MultiHeadResult  # MultiHead(X)
    permuted: MultiHeadResult  # MultiHead(PX)
    output_gap: float  # ||MultiHead(PX) - P MultiHead(X)||_F
    attention_gap: float  # max_i ||A^(i)(PX) - P A^(i)(X) P^T||_F


def equivariance_check(X, W_Q, W_K, W_V, W_O, h, perm, positions=None, scale=None) -> EquivarianceCheck:
    """Compare MultiHead(PX + E) with P MultiHead(X + E).

    `positions` is an optional (n, d) encoding E added after permuting, as a
    model does: position r gets E[r] whichever token sits there. With E = 0
    the gaps are at rounding level; with sinusoidal E they are not.
    """
    X = _check_X(X)
    perm = check_permutation(perm, X.shape[0])
    E = np.zeros_like(X) if positions is None else _check_matrix("positions", positions, X.shape)
    original = multi_head_attention(X + E, W_Q, W_K, W_V, W_O, h, scale)
    permuted = multi_head_attention(X[perm] + E, W_Q, W_K, W_V, W_O, h, scale)
    output_gap = np.linalg.norm(permuted.output - original.output[perm])
    attention_gap = np.linalg.norm(permuted.A - permute_attention(original.A, perm), axis=(1, 2)).max()
    return EquivarianceCheck(original, permuted, float(output_gap), float(attention_gap))


def sinusoidal_positions(n: int, d: int) -> np.ndarray:
    """E[r, 2k] = sin(r / 10000^(2k/d)), E[r, 2k+1] = cos(r / 10000^(2k/d)): (n, d)."""
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    r = np.arange(n)[:, None]  # (n, 1)
    freq = 10000.0 ** (-np.arange(0, d, 2) / d)  # (ceil(d/2),)
    E = np.zeros((n, d))
    E[:, 0::2] = np.sin(r * freq)
    E[:, 1::2] = np.cos(r * freq[: d // 2])
    return E
