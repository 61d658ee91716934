"""What a key does to an output, four ways (dashboard/explain.py), each against an independent computation:
plain loops over heads, queries and keys for the norms and leaving a key out, central finite differences of the
whole layer for gradient x input; and a case built by hand where the weight and the influence disagree."""

import numpy as np
import pytest

from dashboard.attention import HEAD_CHOICES, multi_head_attention, worked_example
from dashboard.explain import (PAIRS, QUESTION_MARGIN, average_rank, cell_influence, gradient_times_input,
                               head_effects, influence, key_that_matters_most, query_ranking, rank, spearman)

TAU = 10 ** 0.3  # a temperature the slider allows: a flatter softmax than the seed's


def example(h, seed=3, size=4, scale=None):
    """X, the four weights, and the core's result."""
    X, W_Q, W_K, W_V, W_O = worked_example(seed, size)[:5]
    return X, (W_Q, W_K, W_V, W_O), multi_head_attention(X, W_Q, W_K, W_V, W_O, h, scale=scale)


def loop_layer(X, W, h, scale=None, drop=None):
    """MultiHead(X), one head, one query and one key at a time, with key `drop` left out of every softmax.
    Returns the output (n, d) and, per head, every key's value through W_O^(i): (h, n, d)."""
    W_Q, W_K, W_V, W_O = W
    n, d = X.shape
    d_k = d // h
    scale = 1 / np.sqrt(d_k) if scale is None else scale
    out, values = np.zeros((n, d)), np.zeros((h, n, d))
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        W_O_i = W_O[cols]  # the d_k rows of W_O that read head i
        for k in range(n):
            values[i, k] = (X[k] @ W_V[:, cols]) @ W_O_i
        for r in range(n):
            keys = [k for k in range(n) if k != drop]
            logits = np.array([(X[r] @ W_Q[:, cols]) @ (X[k] @ W_K[:, cols]) * scale for k in keys])
            weights = np.exp(logits - logits.max())
            weights /= weights.sum()
            for w, k in zip(weights, keys):
                out[r] += w * values[i, k]
    return out, values


@pytest.mark.parametrize("h", HEAD_CHOICES)
@pytest.mark.parametrize("scale", ["seed", "none", "tau"])
def test_norms_and_leaving_a_key_out_against_loops(h, scale):
    d_k = 8 // h
    scales = {"seed": 1 / np.sqrt(d_k), "none": 1.0, "tau": 1 / (TAU * np.sqrt(d_k))}
    X, W, result = example(h, seed=h + 1, scale=scales[scale])
    s = result.scale
    infl = influence(result, W[3])
    out, values = loop_layer(X, W, h, s)
    n = len(X)
    np.testing.assert_allclose(out, result.output, atol=1e-12)  # the loop is the layer
    A = result.A
    for r in range(n):
        for j in range(n):
            pieces = [A[i, r, j] * values[i, j] for i in range(h)]
            for i in range(h):
                assert infl.per_head[i, r, j] == pytest.approx(np.linalg.norm(pieces[i]), abs=1e-12)
            assert infl.layer[r, j] == pytest.approx(np.linalg.norm(sum(pieces)), abs=1e-12)
    for j in range(n):
        without, _ = loop_layer(X, W, h, s, drop=j)
        np.testing.assert_allclose(infl.leave_one_out[:, j], np.linalg.norm(without - out, axis=1), atol=1e-12)
    np.testing.assert_allclose(infl.value_size, np.linalg.norm(values, axis=-1), atol=1e-12)


def finite_difference_gradient_times_input(X, W, h, scale, eps=1e-5):
    """(d output_r / d x_j) x_j for every r and j, the Jacobian by central differences coordinate by
    coordinate: (n, n, d) [r, j]."""
    n, d = X.shape
    G = np.zeros((n, n, d))
    for j in range(n):
        J = np.zeros((n, d, d))  # d output_r[a] / d x_j[c]
        for c in range(d):
            up, down = X.copy(), X.copy()
            up[j, c] += eps
            down[j, c] -= eps
            J[:, :, c] = (multi_head_attention(up, *W, h, scale=scale).output
                          - multi_head_attention(down, *W, h, scale=scale).output) / (2 * eps)
        G[:, j] = J @ X[j]
    return G


@pytest.mark.parametrize("h", HEAD_CHOICES)
@pytest.mark.parametrize("seed, size, tau", [(0, 4, 1.0), (7, 2, 0.5), (42, 3, TAU)])
def test_gradient_times_input_against_central_differences(h, seed, size, tau):
    X, W, result = example(h, seed, size, scale=1 / (tau * np.sqrt(8 // h)))
    G = gradient_times_input(result, W[3])
    G_ref = finite_difference_gradient_times_input(X, W, h, result.scale)
    np.testing.assert_allclose(G, G_ref, atol=1e-8)
    np.testing.assert_allclose(influence(result, W[3]).grad_input, np.linalg.norm(G_ref, axis=-1), atol=1e-8)
    # x_j is also the query for r = j: the diagonal is where leaving out that path would show
    assert np.abs(np.diagonal(G, axis1=0, axis2=1)).max() > 1e-3


def test_leaving_out_a_key_that_takes_all_the_weight_stays_exact():
    """A logit gap of ~800 makes A_rj round to 1 and every other weight underflow to 0: renormalising by
    1 - A_rj would divide 0 by 0. The softmax over the other keys is still well defined."""
    X, W, _ = example(2, seed=5)
    result = multi_head_attention(X, *W, 2, scale=400.0)
    assert (result.A == 1.0).any() and (result.A == 0.0).any()
    with np.errstate(divide="raise", invalid="raise", over="raise"):  # exp may underflow: that is exact enough
        infl = influence(result, W[3])
    out, _ = loop_layer(X, W, 2, 400.0)
    for j in range(len(X)):
        without, _ = loop_layer(X, W, 2, 400.0, drop=j)
        np.testing.assert_allclose(infl.leave_one_out[:, j], np.linalg.norm(without - out, axis=1), atol=1e-9)
    assert np.isfinite(infl.leave_one_out).all()


def hand_picked():
    """h = 1, d = 2, four tokens. The logit reads feature 0 and the value feature 1 (W_V keeps feature 1,
    W_O = I). Token 0 is large in feature 0 and tiny in feature 1: query 0 gives key 0 the largest weight,
    and key 0's value, (0, 0.05), is the shortest."""
    X = np.array([[2.0, 0.05], [0.5, 1.0], [0.4, 1.2], [0.1, 0.6]])
    W_Q, W_K = np.array([[1.0, 0.0], [0.0, 0.0]]), np.eye(2)
    W_V, W_O = np.array([[0.0, 0.0], [0.0, 1.0]]), np.eye(2)
    return X, (W_Q, W_K, W_V, W_O), multi_head_attention(X, W_Q, W_K, W_V, W_O, 1)


def test_a_large_weight_on_a_tiny_value_is_a_small_influence():
    X, W, result = hand_picked()
    logits = 2.0 * X[:, 0] / np.sqrt(2)  # query 0's feature 0 times each key's, times 1/sqrt(d_k)
    A = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(result.A[0, 0], A, atol=1e-12)
    sizes = np.abs(X[:, 1])  # ||v_j W_O|| = |x_j[1]|
    infl = influence(result, W[3])
    np.testing.assert_allclose(infl.per_head[0, 0], A * sizes, atol=1e-12)
    assert np.argmax(A) == 0 and A[0] > 0.75  # key 0 takes three quarters of the weight
    assert np.argmax(A * sizes) == 2 and rank(A * sizes)[0] == 3  # but comes 3rd of 4 by influence
    q = query_ranking(result, infl, 0, 0)
    assert q.mover == 0 and (q.ranks[0, 0], q.ranks[1, 0]) == (1, 3)
    assert q.passed.tolist() == [1, 2] and (sizes[[1, 2]] > sizes[0]).all()  # the keys that pass it are longer
    assert not q.top_match[0]
    # weight ranks 1 2 3 4, influence 3 2 1 4: rho = 1 - 6 (4 + 0 + 4 + 0) / (4 (16 - 1))
    assert q.rho[0] == pytest.approx(1 - 6 * 8 / 60)
    # with one head the mean weight is the weight and the layer's N is N^(1)
    np.testing.assert_allclose(q.values[2], q.values[0])
    np.testing.assert_allclose(q.values[3], q.values[1])


def test_ranks_and_spearman_against_a_count():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 9))
    ra = np.array([1 + sum(x > v for x in a) for v in a])
    assert rank(a).tolist() == ra.tolist()
    rb = np.array([1 + sum(x > v for x in b) for v in b])
    assert spearman(a, b) == pytest.approx(1 - 6 * ((ra - rb) ** 2).sum() / (9 * 80))
    tied = np.array([3.0, 1.0, 3.0, 2.0])
    assert rank(tied).tolist() == [1, 4, 1, 3] and average_rank(tied).tolist() == [1.5, 4, 1.5, 3]
    assert spearman(tied, tied) == pytest.approx(1.0) and spearman(tied, -tied) == pytest.approx(-1.0)
    assert np.isnan(spearman(np.ones(4), tied))  # one ranking all tied: no correlation to speak of
    assert spearman(np.stack([a, b]), np.stack([b, b])).shape == (2,)


@pytest.mark.parametrize("h", [2, 8])
def test_query_ranking_reads_the_measures(h):
    X, W, result = example(h, seed=11, size=5)
    infl = influence(result, W[3])
    i, r = h - 1, 7
    q = query_ranking(result, infl, i, r)
    for row, expected in zip(q.values, [result.A[i, r], infl.per_head[i, r], result.A[:, r].mean(0), infl.layer[r],
                                        infl.leave_one_out[r], infl.grad_input[r]]):
        np.testing.assert_array_equal(row, expected)
    moves = np.abs(rank(q.values[1]) - rank(q.values[0]))
    moves[q.values[1] < 0.05 * q.values[1].sum()] = 0  # only keys carrying 5% of the row's influence (issue 36)
    if moves.max():
        assert moves[q.mover] == moves.max() and q.mover == np.flatnonzero(moves == moves.max())[0]
    else:
        assert q.mover == -1
    for k, (a, b) in enumerate(PAIRS):
        assert q.top_match[k] == (np.argmax(q.values[a]) == np.argmax(q.values[b]))
        ra, rb = rank(q.values[a]), rank(q.values[b])
        assert q.rho[k] == pytest.approx(1 - 6 * ((ra - rb) ** 2).sum() / (15 * (15 ** 2 - 1)))
    with pytest.raises(ValueError):
        query_ranking(result, infl, h, 0)


def test_cell_influence_is_weight_times_length():
    X, W, result = example(4, seed=2)
    c = cell_influence(result, W[3], 2, 5, 9)
    v = X[9] @ W[2][:, 4:6]
    assert c.weight == result.A[2, 5, 9] and np.allclose(c.value, v)
    np.testing.assert_allclose(c.value_out, v @ W[3][4:6], atol=1e-12)
    assert c.influence == pytest.approx(c.weight * np.linalg.norm(v @ W[3][4:6]), abs=1e-12)
    N_row = [result.A[2, 5, k] * np.linalg.norm(X[k] @ W[2][:, 4:6] @ W[3][4:6]) for k in range(12)]
    assert c.influence_rank == 1 + sum(x > N_row[9] for x in N_row)
    assert c.weight_rank == 1 + sum(x > c.weight for x in result.A[2, 5])
    for bad in [(4, 0, 0), (0, 12, 0), (0, 0, -1), (0.5, 0, 0)]:
        with pytest.raises(ValueError):
            cell_influence(result, W[3], *bad)


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_switching_a_head_off_against_the_layer_without_it(h):
    X, W, result = example(h, seed=9)
    infl = influence(result, W[3])
    effect = head_effects(result, infl, W[3])
    d_k = 8 // h
    for i in range(h):
        W_O = W[3].copy()
        W_O[i * d_k:(i + 1) * d_k] = 0  # head i's output reaches nothing: head_i = 0
        off = multi_head_attention(X, *W[:3], W_O, h).output
        np.testing.assert_allclose(effect.switched_off[i], np.linalg.norm(off - result.output, axis=1), atol=1e-12)
        np.testing.assert_allclose(effect.total[i], [sum(infl.per_head[i, r]) for r in range(12)], atol=1e-12)
    assert (effect.total >= effect.switched_off - 1e-12).all()  # the triangle inequality: pieces can cancel


def test_the_class_question_names_the_layers_largest_influence():
    X, W, result = example(4, seed=1)
    infl = influence(result, W[3])
    for r in range(12):
        question = key_that_matters_most(infl, r)
        row = infl.layer[r]
        order = sorted(range(12), key=lambda k: -row[k])
        assert (question.answer, question.runner_up) == (order[0], order[1])
        assert question.margin == pytest.approx((row[order[0]] - row[order[1]]) / row[order[0]])
        assert question.clear == (question.margin >= QUESTION_MARGIN)
    _, W, result = hand_picked()
    question = key_that_matters_most(influence(result, W[3]), 0)
    assert (question.answer, question.runner_up) == (2, 1) and not question.clear  # 0.097 vs 0.093: too close
    with pytest.raises(ValueError):
        key_that_matters_most(infl, 12)
