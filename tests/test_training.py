import numpy as np
import pytest
from dash.exceptions import PreventUpdate

from dashboard import trainer, training
from dashboard.attention import HEAD_CHOICES
from dashboard.views import learning
from tests.util import decode


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_gradients_match_finite_differences(h):
    rng = np.random.default_rng(h)
    X, Y = training.make_task(3, rng)
    W = {w: rng.normal(0, 0.5, size=(8, 8)) for w in training.WEIGHTS}
    _, grads, _ = training.loss_and_grads(X, Y, W, h)
    eps = 1e-6
    for w in training.WEIGHTS:
        numeric = np.zeros((8, 8))
        for i in range(8):
            for j in range(8):
                up, down = ({k: v.copy() for k, v in W.items()} for _ in range(2))
                up[w][i, j] += eps
                down[w][i, j] -= eps
                numeric[i, j] = (training.loss_and_grads(X, Y, up, h)[0]
                                 - training.loss_and_grads(X, Y, down, h)[0]) / (2 * eps)
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
    """The floor the task is built on: the best single A for the own half is the worst for the other."""
    X, Y = training.make_task(4000, np.random.default_rng(1))
    own, nxt = training.target_mixings()
    for a in np.linspace(0, 1, 11):  # A = a * own + (1 - a) * next, the best a single head could do
        A = a * own + (1 - a) * nxt
        assert np.mean((A @ X - Y) ** 2) > 0.3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_heads_beat_one_by_ten_times(seed):
    one, two = training.train(1, seed), training.train(2, seed)
    assert one.test_loss > 0.3
    assert one.test_loss >= 10 * two.test_loss


def test_eight_heads_do_worse_than_two():
    assert training.train(8, 0).test_loss > 5 * training.train(2, 0).test_loss


def test_same_seed_same_run_and_other_seed_other_run():
    a, b, c = training.train(2, 4, steps=50), training.train(2, 4, steps=50), training.train(2, 5, steps=50)
    np.testing.assert_array_equal(a.losses, b.losses)
    for sa, sb in zip(a.snapshots, b.snapshots):
        for w in training.WEIGHTS:
            np.testing.assert_array_equal(sa[w], sb[w])
    assert not np.array_equal(a.losses, c.losses)
    assert list(a.snapshot_steps) == [0, 20, 40, 50]


def test_learned_heads_split_into_own_and_next_cluster():
    run = training.train(2, 0)
    W = [run.snapshots[-1][w] for w in training.WEIGHTS]
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


def test_train_starts_in_the_background_and_is_polled():
    from dash import no_update

    seed = 7
    trainer._runs.pop(seed, None)
    ready, poll_off, status = learning.poll_training(seed, 0, "learning")
    assert ready is no_update and poll_off is False and "training seed 7" in status
    with pytest.raises(PreventUpdate):  # nothing to show until the runs exist
        learning.update_learning_loss(seed, "learning", False)
    trainer.training_runs(seed)  # wait for it here
    assert learning.poll_training(seed, 1, "learning") == (seed, True, "")
    assert len(learning.update_learning_loss(seed, "learning", False)["data"]) == 4


def test_learning_callbacks_show_the_runs():
    fig = learning.update_learning_loss(0, "learning", False)
    assert len(fig["data"]) == 4
    run = trainer.training_runs(0)[2]
    np.testing.assert_allclose(decode(fig["data"][1]["y"]), run.losses, rtol=1e-6)
    attention, sentence, table = learning.update_learning_heads(0, 2, 400, "learning", False)
    assert len(attention["data"]) == 2 and "step 400" in attention["data"][0]["hovertemplate"]
    assert "head 2" in str(table)
    # each head's role is read from its measured masses, not written in advance
    _, own, nxt, _ = learning.learned_attention(2, 0, 20)
    for i in range(2):
        expected = "its own cluster" if own[i] > nxt[i] else "the next cluster"
        assert f"{expected} ({max(own[i], nxt[i]):.2f})" in sentence.split("; ")[i]


@pytest.mark.parametrize("seed, h, k", [(10, 2, 0), (-1, 2, 0), ("0", 2, 0), (0.0, 2, 0), (None, 2, 0),
                                         (0, 3, 0), (0, True, 0), (0, 2, 21), (0, 2, 20.0), (0, 2, 420), (0, 2, -1), (0, 2, "5"),
                                         (0, 2, 1.5), (0, 2, [1]), (10**100, 2, 0)])
def test_forged_learning_inputs_are_refused(seed, h, k):
    with pytest.raises(PreventUpdate):
        learning.update_learning_heads(seed, h, k, "learning", False)
    if not (isinstance(seed, int) and 0 <= seed < 10):
        for call in (lambda: learning.update_learning_loss(seed, "learning", False),
                     lambda: learning.poll_training(seed, 0, "learning")):
            with pytest.raises(PreventUpdate):
                call()
