import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.attention import (
    HEAD_CHOICES,
    bilinear_forms,
    check_permutation,
    equivariance_check,
    multi_head_attention,
    permutation_matrix,
    permute_attention,
    single_head_attention,
    sinusoidal_positions,
    worked_example,
)
from tests.seed_reference import seed_multi_head_attention, seed_worked_example


@pytest.mark.parametrize("seed", [0, 1, 7, 42, 99, 12345])
@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_matches_seed_notebook(seed, h):
    ex = worked_example(seed)
    ref = seed_worked_example(seed)
    for ours, theirs in zip(ex[:5], ref):
        np.testing.assert_array_equal(ours, theirs)
    out_ref, att_ref = seed_multi_head_attention(*ref, h)
    output, attentions = multi_head_attention(*ex[:5], h)
    np.testing.assert_allclose(output, out_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(attentions, att_ref, rtol=0, atol=1e-12)
    assert attentions.shape == (h, 12, 12)


def test_worked_example_has_three_clusters_of_four_unit_centres():
    ex = worked_example(3)
    assert ex.X.shape == (12, 8)
    np.testing.assert_array_equal(ex.cluster, [0] * 4 + [1] * 4 + [2] * 4)
    centre_norms = np.linalg.norm([ex.X[ex.cluster == c].mean(0) for c in range(3)], axis=1)
    # four tokens with noise 0.2 around a unit centre: the mean stays near norm 1
    assert np.all(np.abs(centre_norms - 1) < 0.35)


def test_intermediates_are_consistent():
    ex = worked_example(5)
    r = multi_head_attention(*ex[:5], 4)
    d_k = 2
    assert r.Q.shape == r.K.shape == r.V.shape == r.heads.shape == (4, 12, d_k)
    for i in range(4):
        cols = slice(i * d_k, (i + 1) * d_k)
        np.testing.assert_allclose(r.Q[i], ex.X @ ex.W_Q[:, cols])
        np.testing.assert_allclose(r.logits[i], r.Q[i] @ r.K[i].T / np.sqrt(d_k))
        np.testing.assert_allclose(r.heads[i], r.A[i] @ r.V[i])
        np.testing.assert_allclose(r.concat[:, cols], r.heads[i])
    np.testing.assert_allclose(r.output, r.concat @ ex.W_O)


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_a_batch_equals_each_sequence_on_its_own(h):
    rng = np.random.default_rng(h)
    X = rng.normal(size=(5, 12, 8))
    W = rng.normal(size=(4, 8, 8))
    batch = multi_head_attention(X, *W, h)
    assert batch.A.shape == (5, h, 12, 12) and batch.output.shape == (5, 12, 8)
    for b in range(5):
        one = multi_head_attention(X[b], *W, h)
        for field in ("Q", "K", "V", "logits", "A", "heads", "concat", "output"):
            np.testing.assert_allclose(getattr(batch, field)[b], getattr(one, field), atol=1e-12)


def test_bilinear_forms_give_the_logits():
    ex = worked_example(2)
    r = multi_head_attention(*ex[:5], 4)
    M = bilinear_forms(ex.W_Q, ex.W_K, 4)
    assert M.shape == (4, 8, 8)
    for i in range(4):
        np.testing.assert_allclose(ex.X @ M[i] @ ex.X.T / np.sqrt(2), r.logits[i], atol=1e-12)
        assert np.linalg.matrix_rank(M[i]) <= 2


shapes = st.tuples(st.integers(1, 9), st.sampled_from([(8, 1), (8, 2), (8, 4), (8, 8), (6, 3), (5, 5)]))


@settings(max_examples=60, deadline=None)
@given(shapes, st.integers(0, 2**32 - 1), st.floats(0.1, 5))
def test_properties_on_random_inputs(shape, seed, scale):
    n, (d, h) = shape
    rng = np.random.default_rng(seed)
    X = scale * rng.normal(size=(n, d))
    W_Q, W_K, W_V, W_O = rng.normal(size=(4, d, d))

    r = multi_head_attention(X, W_Q, W_K, W_V, W_O, h)
    assert np.all(r.A >= 0)
    np.testing.assert_allclose(r.A.sum(axis=-1), 1, atol=1e-12)

    # W_O = I returns the concatenated heads
    r_eye = multi_head_attention(X, W_Q, W_K, W_V, np.eye(d), h)
    np.testing.assert_allclose(r_eye.output, r_eye.concat, atol=1e-12)

    # equivariance: MultiHead(PX) = P MultiHead(X), A(PX) = P A(X) P^T
    perm = rng.permutation(n)
    check = equivariance_check(X, W_Q, W_K, W_V, W_O, h, perm)
    assert check.output_gap < 1e-9 * (1 + np.abs(r.output).max())
    assert check.attention_gap < 1e-9
    P = permutation_matrix(perm)
    np.testing.assert_allclose(P @ X, X[perm])
    np.testing.assert_allclose(permute_attention(r.A, perm), P @ r.A @ P.T, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_one_head_is_single_head_attention_then_W_O(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W_Q, W_K, W_V, W_O = rng.normal(size=(4, d, d))
    single = single_head_attention(X, W_Q, W_K, W_V)
    np.testing.assert_allclose(multi_head_attention(X, W_Q, W_K, W_V, W_O, 1).output, single @ W_O, atol=1e-12)


def test_positional_encodings_break_equivariance():
    ex = worked_example(0)
    E = sinusoidal_positions(12, 8)
    rng = np.random.default_rng(1)
    for h in HEAD_CHOICES:
        for _ in range(5):
            perm = rng.permutation(12)
            while np.array_equal(perm, np.arange(12)):
                perm = rng.permutation(12)
            assert equivariance_check(*ex[:5], h, perm).output_gap < 1e-12
            assert equivariance_check(*ex[:5], h, perm, positions=E).output_gap > 1e-3


def test_sinusoidal_positions_values():
    E = sinusoidal_positions(12, 8)
    assert E.shape == (12, 8)
    np.testing.assert_allclose(E[0], [0, 1] * 4)
    np.testing.assert_allclose(E[3, 0], np.sin(3))
    np.testing.assert_allclose(E[3, 3], np.cos(3 / 10000 ** (2 / 8)))
    assert sinusoidal_positions(3, 5).shape == (3, 5)


@pytest.mark.parametrize("big", [1e4, -1e4, 1e300])
def test_extreme_logits_give_no_nan(big):
    n, d = 6, 4
    X = np.zeros((n, d))
    X[:, 0] = np.linspace(-1, 1, n)
    W = np.eye(d) * np.sqrt(abs(big))
    r = multi_head_attention(X * np.sign(big), W, W, np.eye(d), np.eye(d), 2)
    assert np.all(np.isfinite(r.A)) and np.all(np.isfinite(r.output))
    np.testing.assert_allclose(r.A.sum(-1), 1)


def _valid():
    return list(worked_example(0)[:5])


@pytest.mark.parametrize(
    "h, message",
    [(0, ">= 1"), (-2, ">= 1"), (3, "does not divide"), (16, "does not divide"), (2.0, "integer"),
     ("4", "integer"), (True, "integer"), (None, "integer")],
)
def test_bad_heads_raise(h, message):
    with pytest.raises(ValueError, match=message):
        multi_head_attention(*_valid(), h)


@pytest.mark.parametrize("position, bad", [(0, np.nan), (1, np.inf), (2, -np.inf), (3, np.nan), (4, np.inf)])
def test_non_finite_inputs_raise(position, bad):
    args = _valid()
    args[position] = args[position].copy()
    args[position][0, 0] = bad
    with pytest.raises(ValueError, match="finite"):
        multi_head_attention(*args, 2)


@pytest.mark.parametrize("position, shape", [(0, (12,)), (0, (0, 8)), (1, (8, 4)), (2, (4, 8)), (3, (8,)), (4, (7, 7))])
def test_bad_shapes_raise(position, shape):
    args = _valid()
    args[position] = np.ones(shape)
    with pytest.raises(ValueError, match="shape"):
        multi_head_attention(*args, 2)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, False, None, [1]])
def test_bad_seeds_raise(seed):
    with pytest.raises(ValueError, match="seed"):
        worked_example(seed)


def test_numpy_integer_seed_and_heads_are_accepted():
    ex = worked_example(np.int64(4))
    np.testing.assert_array_equal(ex.X, worked_example(4).X)
    assert multi_head_attention(*ex[:5], np.int32(2)).A.shape == (2, 12, 12)


@pytest.mark.parametrize(
    "perm, message",
    [([0, 1, 2], "needs 12"), (list(range(11)) + [11.0], "whole numbers"), ([0] * 12, "repeated: 0"),
     (list(range(1, 13)), "out of range: 12"), ("0 1 2", "list"), (None, "list"),
     ([True] + list(range(1, 12)), "whole")],
)
def test_bad_permutations_raise(perm, message):
    with pytest.raises(ValueError, match=message):
        check_permutation(perm, 12)
