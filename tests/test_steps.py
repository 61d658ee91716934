"""The core's steps (dashboard/steps.py) and its causal mask: written here again as loops, not with the app's code."""

import numpy as np
import pytest

from dashboard.attention import HEAD_CHOICES, multi_head_attention, worked_example
from dashboard.steps import STEPS


def causal_loop(X, W_Q, W_K, W_V, W_O, h, scale=None):
    """Query r attends to keys 0..r: each logit, each weight and each sum written out."""
    n, d = X.shape
    d_k = d // h
    scale = 1 / np.sqrt(d_k) if scale is None else scale
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = np.zeros((h, n, n))
    out = np.zeros((n, d))
    for i in range(h):
        c = slice(i * d_k, (i + 1) * d_k)
        for r in range(n):
            logits = [float(Q[r, c] @ K[j, c]) * scale for j in range(r + 1)]
            top = max(logits)
            e = [np.exp(z - top) for z in logits]
            for j in range(r + 1):
                A[i, r, j] = e[j] / sum(e)
            out[r, c] = sum(A[i, r, j] * V[j, c] for j in range(r + 1))
    return out @ W_O, A


@pytest.mark.parametrize("h", HEAD_CHOICES)
@pytest.mark.parametrize("seed", [0, 3])
def test_causal_attention_equals_a_loop(h, seed):
    ex = worked_example(seed)
    r = multi_head_attention(*ex[:5], h, causal=True)
    out, A = causal_loop(*ex[:5], h)
    np.testing.assert_allclose(r.A, A, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.output, out, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.A.sum(-1), 1, atol=1e-12)  # renormalised over the keys each query sees
    assert np.all(r.A[:, np.triu_indices(12, 1)[0], np.triu_indices(12, 1)[1]] == 0)
    np.testing.assert_allclose(r.A[:, 0, 0], 1)  # the first token sees only itself
    # the last row sees every key: it is the non-causal layer's
    np.testing.assert_allclose(r.A[:, -1], multi_head_attention(*ex[:5], h).A[:, -1], atol=1e-12)
    assert np.isfinite(r.logits).all()  # the logits kept are the unmasked ones


def test_causal_with_a_scale_and_a_batch():
    ex = worked_example(1)
    X = np.stack([ex.X, ex.X[::-1]])
    r = multi_head_attention(X, *ex[1:5], 2, scale=0.7, causal=True)
    for b in range(2):
        out, A = causal_loop(X[b], *ex[1:5], 2, scale=0.7)
        np.testing.assert_allclose(r.A[b], A, atol=1e-12)
        np.testing.assert_allclose(r.output[b], out, atol=1e-12)


def test_the_default_steps_and_scale_rules():
    ex = worked_example(2)
    plain = multi_head_attention(*ex[:5], 4)
    explicit = multi_head_attention(*ex[:5], 4, scale=None, causal=False, steps=STEPS)
    np.testing.assert_array_equal(explicit.output, plain.output)
    np.testing.assert_array_equal(explicit.A, plain.A)
    widths = []
    rule = multi_head_attention(*ex[:5], 4, scale=lambda d_k: widths.append(d_k) or 0.3)
    assert widths == [2] and rule.scale == 0.3
    np.testing.assert_array_equal(rule.A, multi_head_attention(*ex[:5], 4, scale=0.3).A)
    with pytest.raises(ValueError):
        multi_head_attention(*ex[:5], 4, scale=lambda d_k: -1.0)  # a rule's scale is checked too


def test_a_swapped_step_runs_in_place_of_the_core_one():
    ex = worked_example(0)
    calls = []
    steps = STEPS._replace(output=lambda concat, W_O: calls.append(concat.shape) or concat)
    r = multi_head_attention(*ex[:5], 4, steps=steps)
    assert calls == [(12, 8)]
    np.testing.assert_array_equal(r.output, r.concat)
    np.testing.assert_array_equal(r.A, multi_head_attention(*ex[:5], 4).A)
