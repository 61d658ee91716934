import numpy as np
import pytest
from dash.exceptions import PreventUpdate

from dashboard import trainer, training
from dashboard.attention import HEAD_CHOICES
from dashboard.explorer import learning
from tests.util import decode, numeric_gradients


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_gradients_match_finite_differences(h):
    rng = np.random.default_rng(h)
    X, Y = training.make_task(3, rng)
    W = {w: rng.normal(0, 0.5, size=(8, 8)) for w in training.MATRICES}
    _, grads, _ = training.loss_and_grads(X, Y, W, h)
    numeric_of = numeric_gradients(lambda weights: training.loss_and_grads(X, Y, weights, h)[0], W)
    for w in training.MATRICES:
        numeric = numeric_of[w]
        assert np.linalg.norm(numeric - grads[w]) / np.linalg.norm(numeric) < 1e-6, w


def test_task_targets_are_own_and_next_cluster_means():
    X, Y = training.make_task(5, np.random.default_rng(0))
    for r in range(12):
        c = r // 4
        own, nxt = slice(4 * c, 4 * c + 4), slice(4 * ((c + 1) % 3), 4 * ((c + 1) % 3) + 4)
        np.testing.assert_allclose(Y[:, r, :4], X[:, own, :4].mean(1))
        np.testing.assert_allclose(Y[:, r, 4:], X[:, nxt, 4:].mean(1))
    codes = X[:, :, [0, 4]]
    angles = 2 * np.pi * (np.arange(12) // 4) / 3
    np.testing.assert_allclose(codes.mean(0), np.stack([np.cos(angles), np.sin(angles)], 1), atol=0.1)
    assert 1.5 < X[:, :, [1, 2, 3, 5, 6, 7]].std() < 2.5


def test_single_mixing_is_stuck_at_three_eighths():
    """Y_hat = A X W with one fixed mixing A (n, n) and any W (d, d), least squares on both. Theory: the
    payload features need M_own (3 of them) and M_next (3), orthogonal with |M|_F^2 = 3; one A scaled per
    feature leaves at least 3 of that 6 per pair, so the error is >= 3 pairs * var 4 * 3 / (n d) = 3/8,
    reached by any mix of the two (the cluster codes are known by position, so they cost nothing)."""
    X, Y = training.make_task(4000, np.random.default_rng(1))
    B, n, d = X.shape
    Xs, Ys = (M.transpose(1, 0, 2).reshape(n, B * d) for M in (X, Y))  # row s: token s of every example
    tol = 0.015  # 5 standard deviations of this estimate at 4000 examples

    def best_W(A):  # least squares in W for a fixed A, and its error
        Z, T = (A @ Xs).reshape(-1, d), Ys.reshape(-1, d)
        W = np.linalg.solve(Z.T @ Z, Z.T @ T)
        return W, float(np.mean((Z @ W - T) ** 2))

    def best_A(W):  # least squares in A for a fixed W
        U = (Xs.reshape(-1, d) @ W).reshape(n, -1)
        return np.linalg.solve(U @ U.T, U @ Ys.T).T

    own, nxt = training.target_mixings()
    for a in np.linspace(0, 1, 11):  # every mix of the two targets reaches the floor
        assert best_W(a * own + (1 - a) * nxt)[1] == pytest.approx(training.SINGLE_MIXING_FLOOR, abs=tol), a
    rng = np.random.default_rng(0)
    found = []  # alternating least squares from random mixings: it finds the floor, never below it
    for _ in range(3):
        A = rng.normal(size=(n, n))
        for _ in range(30):
            A = best_A(best_W(A)[0])
        found.append(best_W(A)[1])
    assert min(found) == pytest.approx(training.SINGLE_MIXING_FLOOR, abs=tol), found


@pytest.mark.slow  # a second or more on a 2-core machine: make test runs it
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_heads_beat_one_by_ten_times(seed):
    runs = trainer.training_runs(seed)  # trained once in this test process, shared with every test that asks
    one, two = runs[1], runs[2]
    assert one.test_loss > 0.3
    assert one.test_loss >= 10 * two.test_loss


def test_eight_heads_do_worse_than_two():
    runs = trainer.training_runs(0)
    assert runs[8].test_loss > 5 * runs[2].test_loss


def test_same_seed_same_run_and_other_seed_other_run():
    a, b, c = training.train(2, 4, steps=50), training.train(2, 4, steps=50), training.train(2, 5, steps=50)
    np.testing.assert_array_equal(a.losses, b.losses)
    for sa, sb in zip(a.snapshots, b.snapshots):
        for w in training.MATRICES:
            np.testing.assert_array_equal(sa[w], sb[w])
    assert not np.array_equal(a.losses, c.losses)
    assert list(a.snapshot_steps) == [0, 20, 40, 50]


def test_learned_heads_split_into_own_and_next_cluster():
    run = trainer.training_runs(0)[2]
    W = [run.snapshots[-1][w] for w in training.MATRICES]
    X, _ = training.make_task(50, np.random.default_rng(9))
    from dashboard.attention import multi_head_attention

    own, nxt = training.cluster_mass(multi_head_attention(X, *W, 2).A)
    assert sorted([own.argmax(), nxt.argmax()]) == [0, 1]  # one head each
    assert own.max() > 0.8 and nxt.max() > 0.8


@pytest.mark.parametrize("kwargs, message", [({"h": 3, "seed": 0}, "divide"), ({"h": 2, "seed": -1}, "seed"),
                                             ({"h": 2, "seed": 0, "steps": 10**6}, "at most"),
                                             ({"h": "2", "seed": 0}, "integer")])
def test_training_arguments_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        training.train(**kwargs)


def loss_view(seed, ready):
    """The loss curves' callback, as Dash calls it: the tab's store and the training seed, by name."""
    return learning.update_learning_loss(shared={"h": 2, "display": False}, trained={"seed": seed, "ready": ready})


def heads_view(values: dict):
    """The learned heads' callback from {seed, ready, h, step, display}."""
    return learning.update_learning_heads(shared={"h": values["h"], "display": values["display"]},
                                          trained={"seed": values["seed"], "ready": values["ready"]},
                                          step=values["step"])


def surgery_view(values: dict):
    """The surgery's callback from {seed, ready, h, off, uniform, swap}."""
    from dashboard.explorer import surgery
    return surgery.update_surgery(shared={"h": values["h"], "display": False},
                                  trained={"seed": values["seed"], "ready": values["ready"]},
                                  cuts={k: values[k] for k in ("off", "uniform", "swap")})


@pytest.mark.slow  # a second or more on a 2-core machine: make test runs it
def test_train_starts_in_the_background_and_is_polled():
    from dash import no_update

    seed = 7
    trainer._runs.pop(seed, None)
    ready, poll_off, status = learning.poll_training(seed, 0)
    assert ready is no_update and poll_off is False and "training seed 7" in status
    # until the page hears the runs are ready, the lab says so, and draws no other seed's runs
    waiting, text = loss_view(seed, 0)
    assert waiting["data"] == [] and "training seed 7" in waiting["layout"]["annotations"][0]["text"] and text == ""
    trainer.training_runs(seed)  # wait for it here
    assert learning.poll_training(seed, 1) == (seed, True, "")
    assert len(loss_view(seed, seed)[0]["data"]) == 4


def test_learning_callbacks_show_the_runs():
    trainer.training_runs(0)  # wait for seed 0 here: run alone, this test is the first to ask for it
    fig = loss_view(0, 0)[0]
    assert len(fig["data"]) == 4
    run = trainer.training_runs(0)[2]
    np.testing.assert_allclose(decode(fig["data"][1]["y"]), run.losses, rtol=1e-6)
    attention, sentence, table = heads_view({"seed": 0, "ready": 0, "h": 2, "step": 400,
                                                     "display": False})
    assert len(attention["data"]) == 2 and "step 400" in attention["data"][0]["hovertemplate"]
    assert "head 2" in str(table)
    # each head's role is read from its measured masses, not written in advance
    _, own, nxt, _ = learning.learned_attention(2, 0, 20)
    for i in range(2):
        expected = "its own cluster" if own[i] > nxt[i] else "the next cluster"
        assert f"most on {expected} ({own[i]:.2f} own, {nxt[i]:.2f} next)" in sentence.split("; ")[i]


@pytest.mark.parametrize("seed, h, k", [(10, 2, 0), (-1, 2, 0), ("0", 2, 0), (0.0, 2, 0), (None, 2, 0),
                                         (0, 3, 0), (0, True, 0), (0, 2, 21), (0, 2, 20.0), (0, 2, 420), (0, 2, -1), (0, 2, "5"),
                                         (0, 2, 1.5), (0, 2, [1]), (10**100, 2, 0)])
def test_forged_learning_inputs_are_refused(seed, h, k):
    """A bad h or step gets no update; a bad training seed the message a typed one gets, and no runs."""
    heads = {"seed": seed, "ready": seed, "h": h, "step": k, "display": False}
    if isinstance(seed, int) and 0 <= seed < 10:
        with pytest.raises(PreventUpdate):
            heads_view(heads)
        return
    for figure, *texts in (loss_view(seed, seed),
                           heads_view({**heads, "h": 2, "step": 0})):
        assert figure["data"] == [] and "Choose a training seed 0 to 9" in figure["layout"]["annotations"][0]["text"]
        assert all(text == "" for text in texts)
    assert learning.poll_training(seed, 0)[1:] == (True, "Choose a training seed 0 to 9.")


def test_surgery_shows_which_head_carries_which_mixing():
    """At h = 2 each head carries one of the two mixings: switching off either sends the loss back up."""
    run = trainer.training_runs(0)[2]
    weights = run.snapshots[-1]
    X, Y = training.test_set(0)
    X, Y = X[:500], Y[:500]
    untouched = training.loss_after_surgery(weights, 2, X, Y, training.Surgery())
    assert untouched == pytest.approx(run.test_loss, rel=0.2)  # the same layer, on part of the same test set
    for i in (0, 1):
        assert training.loss_after_surgery(weights, 2, X, Y, training.Surgery(off=frozenset({i}))) > 10 * untouched
        assert training.loss_after_surgery(weights, 2, X, Y, training.Surgery(uniform=frozenset({i}))) > 5 * untouched
    # swapping the two heads' attention gives each head's values the other mixing: worse than either alone off
    swapped = training.loss_after_surgery(weights, 2, X, Y, training.Surgery(swap=(0, 1)))
    assert swapped > 10 * untouched


def test_surgery_against_a_head_by_head_forward_pass():
    rng = np.random.default_rng(3)
    weights = {w: rng.normal(0, 0.5, size=(8, 8)) for w in training.MATRICES}
    X, Y = training.make_task(4, rng)
    h, d_k = 4, 2
    Q, K, V = (X @ weights[w] for w in ("W_Q", "W_K", "W_V"))
    blocks = []
    for i in range(h):
        s = slice(i * d_k, (i + 1) * d_k)
        logits = Q[..., s] @ K[..., s].swapaxes(-1, -2) / np.sqrt(d_k)
        A = np.exp(logits - logits.max(-1, keepdims=True))
        blocks.append(A / A.sum(-1, keepdims=True))
    blocks[1], blocks[3] = blocks[3], blocks[1]  # swap heads 2 and 4
    blocks[2] = np.full_like(blocks[2], 1 / 12)  # head 3 uniform
    heads = [blocks[i] @ V[..., i * d_k:(i + 1) * d_k] for i in range(h)]
    heads[0] = np.zeros_like(heads[0])  # head 1 off
    expected = np.mean((np.concatenate(heads, -1) @ weights["W_O"] - Y) ** 2)
    surgery = training.Surgery(off=frozenset({0}), uniform=frozenset({2}), swap=(1, 3))
    assert training.loss_after_surgery(weights, h, X, Y, surgery) == pytest.approx(expected, rel=1e-12)


def test_surgery_view_reports_the_loss_and_refuses_forged_heads():
    from dashboard.explorer import surgery

    runs = trainer.training_runs(0)
    result = surgery_view({"seed": 0, "ready": 0, "h": 2, "off": [1], "uniform": [], "swap": "none"})
    X, Y = training.test_set(0)
    weights = runs[2].snapshots[-1]
    before = training.loss_after_surgery(weights, 2, X, Y, training.Surgery())
    after = training.loss_after_surgery(weights, 2, X, Y, training.Surgery(off=frozenset({0})))
    text = str(result)
    assert f"{before:.4f}" in text and f"{after:.4f}" in text and after > 10 * before
    swapped = str(surgery_view({"seed": 0, "ready": 0, "h": 2, "off": [], "uniform": [], "swap": "1-2"}))
    assert "times" in swapped
    for off, uniform, swap in [([3], [], "none"), ([], [0], "none"), ([1, 1, 1], [], "none"), (["1"], [], "none"),
                               ([], [], "1-3"), ([], [], "2-1"), ([], [], None), (None, [], "none"),
                               ([True], [], "none"), ([1.0], [], "none")]:
        message = surgery_view({"seed": 0, "ready": 0, "h": 2, "off": off, "uniform": uniform,
                                          "swap": swap})
        assert message.role == "alert" and "Choose heads 1 to 2" in message.children
    assert [o["value"] for o in surgery.follow_heads({"h": 2, "display": False})[0]] == [1, 2]
    for h in [3, "2", None, True, 2.0]:
        with pytest.raises(PreventUpdate):
            surgery.follow_heads({"h": h, "display": False})
        with pytest.raises(PreventUpdate):
            surgery_view({"seed": 0, "ready": 0, "h": h, "off": [1], "uniform": [], "swap": "none"})
