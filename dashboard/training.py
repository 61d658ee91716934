"""Train the seed's multi-head layer in numpy on a task no single mixing can solve.

The task: 12 tokens in R^8, three clusters of four. A token's cluster code is
the unit vector at angle 2*pi*c/3 in the (e0, e4) plane plus N(0, 0.05^2)
noise; its other six features are a payload, N(0, 2^2), new in every example.
Target features 0-3 are the mean of X[:, 0:4] over the token's own cluster,
features 4-7 the mean of X[:, 4:8] over the next cluster (c + 1) mod 3.
One attention matrix must serve both halves, so h = 1 is stuck near 3/8;
two heads (one within the cluster, one to the next) solve it.

Everything here is pure numpy and deterministic in (h, seed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import (
    D_MODEL,
    N_CLUSTERS,
    N_TOKENS,
    MultiHeadResult,
    check_heads,
    check_int,
    merge_heads,
    multi_head_attention,
    split_heads,
)
from .constants import SNAPSHOT_EVERY, TRAINING_STEPS

CLUSTER = np.repeat(np.arange(N_CLUSTERS), N_TOKENS // N_CLUSTERS)  # (n,) cluster of each token
CODE_DIMS = (0, 4)  # the plane that carries the cluster code
CODE_NOISE, PAYLOAD_STD = 0.05, 2.0
SINGLE_MIXING_FLOOR = 3 / 8  # the error of any one mixing matrix on this task

BATCH, POOL, TEST_SIZE = 32, 2048, 2000
LEARNING_RATE = 0.05
INIT_STD = 0.3 / np.sqrt(D_MODEL)  # between 0.1/sqrt(d) and 1/sqrt(d); 3/sqrt(d) saturates the softmax
MAX_STEPS = 2000
MATRICES = ("W_Q", "W_K", "W_V", "W_O")


# ------------------------------------------------------------------- task


def target_mixings() -> tuple[np.ndarray, np.ndarray]:
    """M_own, M_next (n, n): row r averages the tokens of r's own cluster, or of the next one."""
    own = (CLUSTER[:, None] == CLUSTER[None, :]) / (N_TOKENS / N_CLUSTERS)
    nxt = ((CLUSTER[:, None] + 1) % N_CLUSTERS == CLUSTER[None, :]) / (N_TOKENS / N_CLUSTERS)
    return own, nxt


def task_inputs(cluster: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` inputs (size, n, d) of the task for tokens in the clusters `cluster` (n,): each token's cluster
    code in the (e0, e4) plane, plus noise, and a payload in the other six features."""
    X = rng.normal(0.0, PAYLOAD_STD, size=(size, len(cluster), D_MODEL))
    angle = 2 * np.pi * cluster / N_CLUSTERS  # (n,)
    X[:, :, CODE_DIMS[0]] = np.cos(angle) + rng.normal(0.0, CODE_NOISE, size=(size, len(cluster)))
    X[:, :, CODE_DIMS[1]] = np.sin(angle) + rng.normal(0.0, CODE_NOISE, size=(size, len(cluster)))
    return X


def make_task(size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """`size` examples: inputs X and targets Y, each (size, n, d)."""
    X = task_inputs(CLUSTER, size, rng)
    own, nxt = target_mixings()
    half = D_MODEL // 2
    Y = np.concatenate([own @ X[:, :, :half], nxt @ X[:, :, half:]], axis=-1)
    return X, Y


# ------------------------------------------------------------- gradients


def loss_and_grads(X, Y, weights: dict, h: int) -> tuple[float, dict, MultiHeadResult]:
    """Mean squared error of MultiHead(X) against Y, and its gradient in each weight.

    X, Y are (B, n, d). The forward pass is the core's multi_head_attention; this
    is its backward pass, written out from the same formulas.
    """
    r = multi_head_attention(X, *(weights[w] for w in MATRICES), h)
    d_k = D_MODEL // h
    err = r.output - Y  # (B, n, d)
    loss = float(np.mean(err**2))
    G = 2 * err / err.size  # dL/d output

    flat = lambda M: M.reshape(-1, D_MODEL)  # noqa: E731  (B, n, d) -> (B n, d)
    dW_O = flat(r.concat).T @ flat(G)  # output = concat W_O
    dheads = split_heads(G @ weights["W_O"].T, h)  # (B, h, n, d_k)
    dA = dheads @ r.V.swapaxes(-1, -2)  # head_i = A_i V_i
    dV = r.A.swapaxes(-1, -2) @ dheads
    dlogits = r.A * (dA - np.sum(dA * r.A, axis=-1, keepdims=True))  # A_i = softmax(logits_i), row-wise
    dlogits /= np.sqrt(d_k)  # logits_i = Q_i K_i^T / sqrt(d_k)
    dQ = dlogits @ r.K
    dK = dlogits.swapaxes(-1, -2) @ r.Q
    Xf = flat(X)
    grads = {
        "W_Q": Xf.T @ flat(merge_heads(dQ)),  # Q = X W_Q, split into heads
        "W_K": Xf.T @ flat(merge_heads(dK)),
        "W_V": Xf.T @ flat(merge_heads(dV)),
        "W_O": dW_O,
    }
    return loss, grads, r


# ------------------------------------------------------------------ training


@dataclass(frozen=True)
class TrainingRun:
    """A finished run: the loss at every step, and the weights every SNAPSHOT_EVERY steps."""

    h: int
    seed: int
    losses: np.ndarray  # (steps,) training-batch loss before each update
    snapshot_steps: np.ndarray  # (k,) 0, 20, ..., steps
    snapshots: tuple  # k dicts of weights
    test_loss: float  # on TEST_SIZE held-out examples, final weights


def init_weights(rng: np.random.Generator) -> dict:
    return {w: rng.normal(0.0, INIT_STD, size=(D_MODEL, D_MODEL)) for w in MATRICES}


def train(h, seed, steps: int = TRAINING_STEPS, layer=None) -> TrainingRun:
    """Adam with a cosine-decayed learning rate on batches from a fixed pool; deterministic in (h, seed).
    `layer` trains another layer on the same task and draws: one with forward(X, weights, h) and
    loss_and_grads(X, Y, weights, h), as backprop.Layer (a layer with a bug); None is the core's."""
    gradient = loss_and_grads if layer is None else layer.loss_and_grads
    h = check_heads(h, D_MODEL)
    seed = check_int("seed", seed)
    steps = check_int("steps", steps, minimum=1)
    if steps > MAX_STEPS:
        raise ValueError(f"steps must be at most {MAX_STEPS}, got {steps}")
    rng = np.random.default_rng([seed, h])
    X_pool, Y_pool = make_task(POOL, rng)
    weights = init_weights(rng)
    m = {w: np.zeros_like(v) for w, v in weights.items()}
    v = {w: np.zeros_like(x) for w, x in weights.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    losses = np.empty(steps)
    snapshots, snapshot_steps = [], []
    for t in range(steps):
        if t % SNAPSHOT_EVERY == 0:
            snapshots.append({w: x.copy() for w, x in weights.items()})
            snapshot_steps.append(t)
        batch = rng.integers(0, POOL, size=BATCH)
        losses[t], grads, _ = gradient(X_pool[batch], Y_pool[batch], weights, h)
        lr = LEARNING_RATE * 0.5 * (1 + np.cos(np.pi * t / steps))
        for w in MATRICES:
            m[w] = beta1 * m[w] + (1 - beta1) * grads[w]
            v[w] = beta2 * v[w] + (1 - beta2) * grads[w] ** 2
            m_hat = m[w] / (1 - beta1 ** (t + 1))
            v_hat = v[w] / (1 - beta2 ** (t + 1))
            weights[w] = weights[w] - lr * m_hat / (np.sqrt(v_hat) + eps)
    snapshots.append({w: x.copy() for w, x in weights.items()})
    snapshot_steps.append(steps)
    X_test, Y_test = test_set(seed)
    result = multi_head_attention(X_test, *(weights[w] for w in MATRICES), h) if layer is None \
        else layer.forward(X_test, weights, h)
    test_loss = float(np.mean((result.output - Y_test) ** 2))
    return TrainingRun(h, seed, losses, np.array(snapshot_steps), tuple(snapshots), test_loss)


def test_set(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The TEST_SIZE held-out examples a run's test loss is measured on: X, Y each (TEST_SIZE, n, d)."""
    return make_task(TEST_SIZE, np.random.default_rng([seed, 10_000]))


@dataclass(frozen=True)
class Surgery:
    """Interventions on a trained layer's heads (indices 0..h-1): switch some off (head_i = 0), give some
    uniform attention (A^(i) = 1/n), and swap the attention of one pair."""

    off: frozenset = frozenset()
    uniform: frozenset = frozenset()
    swap: tuple[int, int] | None = None


def loss_after_surgery(weights: dict, h: int, X: np.ndarray, Y: np.ndarray, surgery: Surgery) -> float:
    """The mean squared error of the layer on (X, Y) after the surgery (the swap first, then uniform, then off):
    a forward pass only."""
    r = multi_head_attention(X, *(weights[w] for w in MATRICES), h)
    A = r.A.copy()  # (B, h, n, n)
    if surgery.swap is not None:
        i, j = surgery.swap
        A[:, [i, j]] = A[:, [j, i]]
    A[:, sorted(surgery.uniform)] = 1 / A.shape[-1]
    heads = A @ r.V  # (B, h, n, d_k): head_i = A^(i) V_i, with the edited A
    heads[:, sorted(surgery.off)] = 0
    output = merge_heads(heads) @ weights["W_O"]
    return float(np.mean((output - Y) ** 2))


def task_example(seed: int, per_cluster: int) -> tuple[np.ndarray, np.ndarray]:
    """One input of the task with `per_cluster` tokens a cluster, drawn from `seed`: X (n, d) and each token's
    cluster (n,), in cluster order like the seed's worked example. A trained layer attends with structure here."""
    cluster = np.repeat(np.arange(N_CLUSTERS), check_int("tokens per cluster", per_cluster, minimum=1))
    return task_inputs(cluster, 1, np.random.default_rng([check_int("seed", seed), 40_000]))[0], cluster


def display_example(seed: int = 0) -> np.ndarray:
    """One fixed example X (n, d) to show the learned attention on."""
    return make_task(1, np.random.default_rng([seed, 20_000]))[0][0]


def cluster_mass(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per head, the mean attention a token puts on its own cluster and on the next: two (h,) arrays.

    A is (h, n, n) or a batch (B, h, n, n)."""
    own, nxt = (M * (N_TOKENS / N_CLUSTERS) for M in target_mixings())  # 0/1 masks
    A = A.reshape(-1, *A.shape[-3:])
    return (A * own).sum(-1).mean(axis=(0, 2)), (A * nxt).sum(-1).mean(axis=(0, 2))

