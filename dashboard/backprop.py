"""The backward pass of multi-head attention, one gradient per step, so that a layer with any step swapped
(dashboard/bugs.py) trains like the correct one.

`GRADIENTS` mirrors dashboard/steps.STEPS field by field: each entry takes the gradient of the loss in its step's
output (and what the forward pass kept) and returns the gradients in that step's inputs. A bug swaps a step and
its gradient together, so `loss_and_grads` is exact for the buggy layer too (tests/test_bugs.py checks it against
finite differences, and against training.loss_and_grads for the correct layer). Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import MultiHeadResult, multi_head_attention
from .steps import STEPS, Steps, merge_heads, split_heads
from .training import MATRICES


def _flat(M: np.ndarray) -> np.ndarray:
    """(..., n, d) -> (B n, d): every token of every example a row."""
    return M.reshape(-1, M.shape[-1])


def project_back(dP: np.ndarray, X: np.ndarray) -> np.ndarray:
    """P = X W: dL/dW = X^T dP, over every token of every example."""
    return _flat(X).T @ _flat(dP)


def split_back(dS: np.ndarray, h: int) -> np.ndarray:
    """split_heads moves entries without changing them: its gradient moves them back (merge_heads)."""
    return merge_heads(dS)


def scores_back(dL: np.ndarray, Q: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """L = Q K^T: dQ = dL K, dK = dL^T Q."""
    return dL @ K, dL.swapaxes(-1, -2) @ Q


def softmax_back(dA: np.ndarray, A: np.ndarray, axis: int = -1) -> np.ndarray:
    """A = softmax(L) over `axis`: dL = A (dA - sum(dA A) over that axis)."""
    return A * (dA - np.sum(dA * A, axis=axis, keepdims=True))


def weights_back(dA: np.ndarray, A: np.ndarray, logits: np.ndarray, causal: bool) -> np.ndarray:
    """A = softmax of each masked row: masked weights are 0, so their logits get no gradient."""
    return softmax_back(dA, A)


def mix_back(dH: np.ndarray, A: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """H = A V: dA = dH V^T, dV = A^T dH."""
    return dH @ V.swapaxes(-1, -2), A.swapaxes(-1, -2) @ dH


def merge_back(dC: np.ndarray, h: int) -> np.ndarray:
    return split_heads(dC, h)


def output_back(dY: np.ndarray, concat: np.ndarray, W_O: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Y = concat W_O: d concat = dY W_O^T, dW_O = concat^T dY."""
    return dY @ W_O.T, _flat(concat).T @ _flat(dY)


# The scale is a number, not a weight: it has no gradient of its own (it is applied to dL in loss_and_grads).
GRADIENTS = Steps(project_back, split_back, None, scores_back, weights_back, mix_back, merge_back, output_back)


@dataclass(frozen=True)
class Layer:
    """A multi-head layer to train: the core's steps, or steps with one swapped and its gradient beside it.
    training.train(h, seed, layer=...) trains it on the learning lab's task."""

    steps: Steps = STEPS
    gradients: Steps = GRADIENTS
    causal: bool = False
    scale: object = None  # as the core's: None (the seed's 1/sqrt(d_k)), a number, or a rule d_k -> scale

    def forward(self, X, weights: dict, h: int) -> MultiHeadResult:
        return multi_head_attention(X, *(weights[w] for w in MATRICES), h, self.scale, self.causal, self.steps)

    def loss_and_grads(self, X, Y, weights: dict, h: int) -> tuple[float, dict, MultiHeadResult]:
        """Mean squared error of the layer's output against Y, and its gradient in each weight (X, Y: (B, n, d))."""
        g = self.gradients
        r = self.forward(X, weights, h)
        err = r.output - Y
        dY = 2 * err / err.size
        dconcat, dW_O = g.output(dY, r.concat, weights["W_O"])
        dA, dV = g.mix(g.merge(dconcat, h), r.A, r.V)
        dlogits = g.weights(dA, r.A, r.logits, self.causal) * r.scale  # logits = scale * (Q K^T)
        dQ, dK = g.logits(dlogits, r.Q, r.K)
        grads = {w: g.project(g.split(dM, h), X) for w, dM in (("W_Q", dQ), ("W_K", dK), ("W_V", dV))}
        return float(np.mean(err**2)), {**grads, "W_O": dW_O}, r
