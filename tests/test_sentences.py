"""Every number in every live sentence, against an independent computation.

Each test takes a sentence as a callback returns it, parses out every number in order, and compares each with
the value this file computes itself (the attention head by head, as the seed's loop; the surgery in its
documented order; the statistics from their definitions), to the precision the sentence prints it with. A
sentence that gains, loses or reorders a number fails, as does one whose claim ("below the line", "the
sharpest", "equivariant") disagrees with the numbers as shown.
"""

import re
from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pytest

from dashboard import attention as core
from dashboard import explain, figures, limits, margins, state, tables, trainer, training
from dashboard.explorer import drilldown, equivariance, example, forms, forward, learning, model_bar, summary, surgery
from tests.dash_requests import cell, heads_store, model, setting
from tests.util import fire, texts

D = 8
# A number as sentences print them: 12, 0.354, +0.120, -1.5, 1.2e-16, 2.70e5; a sign only after a space, "(" or "="
# (so "0–3" or "x_10" give no negative numbers).
NUMBER = re.compile(r"(?:(?<=[\s(=])[-+])?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


class Under(NamedTuple):
    """An expected number known only to be below `bound` (a gap at rounding level)."""

    bound: float


def tolerance(token: str) -> float:
    """Half a unit in the last printed digit: 0.354 -> 0.0005, 2.70e5 -> 500, 12 -> 0.5."""
    mantissa, _, exponent = token.partition("e")
    return 0.5 * 10.0 ** (int(exponent or 0) - len(mantissa.partition(".")[2]))


WEIGHT = 0.02  # margins.WEIGHT, written out: a broken margins.py cannot move it

def check_numbers(text: str, expected: list) -> None:
    """Every number in `text`, in order, is the expected one as printed (rounded to the digits shown)."""
    found = NUMBER.findall(text)
    assert len(found) == len(expected), f"{found} against {expected} in: {text}"
    for token, value in zip(found, expected):
        if isinstance(value, Under):
            assert abs(float(token)) < value.bound, (token, value, text)
        else:
            assert abs(float(token) - value) <= tolerance(token) * (1 + 1e-9) + 1e-12, (token, value, text)


def as_shown(x: float, digits: int = 2) -> float:
    return round(float(x), digits)


# ------------------------------------------------------------------ the model, computed here


class Case(NamedTuple):
    h: int
    seed: int
    size: int = 4
    scale: str = "seed"
    tau: int = 0
    weights: str = "random"

    @property
    def n(self) -> int:
        return 3 * self.size

    @property
    def controls(self) -> dict:
        """The model controls, by name."""
        return setting(self.h, self.seed, self.size, self.scale, self.tau, self.weights)

    @property
    def store(self) -> dict:
        """What the tab's store holds for them."""
        return model(**self.controls)

    @property
    def softmax_scale(self) -> float:
        d_k = D // self.h
        return {"seed": 1 / np.sqrt(d_k), "none": 1.0, "tau": 1 / (10 ** (self.tau / 10) * np.sqrt(d_k))}[self.scale]


CASES = [Case(1, 0), Case(2, 3), Case(4, 0), Case(8, 5),  # the seed's example
         Case(1, 0, weights="trained"), Case(2, 2, 7, "tau", -4, "trained"), Case(4, 1, 16, "tau", 10, "trained"),
         Case(8, 0, weights="trained", scale="none"), Case(4, 9, 7, "tau", 3), Case(8, 1, 2, "tau", -10),
         Case(2, 7, 16, "none")]


class Reference(NamedTuple):
    logits: np.ndarray  # (h, ..., n, n): B_i(x_r, x_j) = q·k, before the scale
    A: np.ndarray  # (h, ..., n, n)
    heads: list  # h arrays (..., n, d_k)
    output: np.ndarray  # (..., n, d)


def reference(X, W_Q, W_K, W_V, W_O, h: int, scale: float) -> Reference:
    """Multi-head attention one head at a time, like the seed's loop, for X (n, d) or a batch (B, n, d)."""
    d_k = D // h
    logits, A, heads = [], [], []
    for i in range(h):
        block = slice(i * d_k, (i + 1) * d_k)
        B = (X @ W_Q[:, block]) @ np.swapaxes(X @ W_K[:, block], -1, -2)
        e = np.exp(B * scale - (B * scale).max(-1, keepdims=True))
        logits.append(B)
        A.append(e / e.sum(-1, keepdims=True))
        heads.append(A[-1] @ (X @ W_V[:, block]))
    return Reference(np.stack(logits), np.stack(A), heads, np.concatenate(heads, -1) @ W_O)


@pytest.fixture(scope="module", autouse=True)
def trained():
    trainer.train_here(limits.EXAMPLE_TRAINING_SEED)  # the trained layer, here rather than in a child


def final_weights(h: int, seed: int = limits.EXAMPLE_TRAINING_SEED, k: int = -1) -> list:
    snapshot = trainer.training_runs(seed)[h].snapshots[k]
    return [snapshot[w] for w in training.MATRICES]


def example_inputs(c: Case) -> tuple[np.ndarray, list]:
    """X and [W_Q, W_K, W_V, W_O] of the worked example: the seed's draw, or the learning lab's trained layer on an
    input of its task."""
    if c.weights == "random":
        ex = core.worked_example(c.seed, c.size)
        return ex.X, list(ex[1:5])
    return training.task_example(c.seed, c.size)[0], final_weights(c.h)


def computed(c: Case) -> tuple[np.ndarray, list, Reference]:
    X, W = example_inputs(c)
    return X, W, reference(X, *W, c.h, c.softmax_scale)


def clusters(size: int) -> np.ndarray:
    return np.repeat(np.arange(3), size)


# ------------------------------------------------------------------ the worked example's sentences


@pytest.mark.parametrize("c", CASES, ids=str)
def test_scale_sentence(c):
    _, _, ref = computed(c)
    text = model_bar.update_scale_text(setting=c.controls)
    z = ref.logits * c.softmax_scale
    spread = z.std(axis=-1).mean()
    ratio = (ref.A.max(-1) / ref.A.min(-1)).mean()  # a row's largest weight over its smallest, on average
    check_numbers(text, [c.softmax_scale, spread, ref.A.max(-1).mean(), 1, c.n, 1 / c.n, ratio])
    flat = spread < 0.5
    assert ("Lower τ" in text and "sharpen" in text) == flat and ("Raise τ to flatten" in text) == (not flat)
    assert ("Random weights" in text) == (flat and c.weights == "random")


@pytest.mark.parametrize("c", CASES, ids=str)
def test_worked_sentence(c):
    _, _, ref = computed(c)
    text = fire(example.update_worked_text, shared=c.store)
    i, r, j = np.unravel_index(ref.A.argmax(), ref.A.shape)
    largest = ref.A[i, r, j]
    drawn = [c.seed] if c.weights == "random" else [c.h, limits.EXAMPLE_TRAINING_SEED, training.TRAINING_STEPS, c.seed]
    runner = np.sort(ref.A.ravel())[-2]
    if largest - runner > WEIGHT:  # named, with its margin over the next
        claim = [r, j, largest, WEIGHT, runner, largest * c.n]
        assert "The largest weight is" in text
    else:  # how many others are that close
        claim = [int((ref.A >= largest - WEIGHT).sum()) - 1, WEIGHT, r, j, largest, largest * c.n]
        assert "No weight is clearly the largest" in text
    check_numbers(text, [c.n, D, c.size, c.h, D // c.h, *drawn, c.softmax_scale, *claim, 1, c.n, 1 / c.n])
    assert f"{figures.head_label(int(i))}[{r}, {j}]" in text
    random = "tokens and weights drawn from seed" in text
    assert random == (c.weights == "random") and ("the learning lab's layer trained" in text) == (not random)


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forms_sentence(c):
    X, (W_Q, W_K, _, _), _ = computed(c)
    d_k = D // c.h
    ranks = [np.linalg.matrix_rank(W_Q[:, i * d_k:(i + 1) * d_k] @ W_K[:, i * d_k:(i + 1) * d_k].T)
             for i in range(c.h)]
    text = fire(forms.update_forms, shared=c.store, cell=cell())["text"]
    said = ranks[:1] if len(set(ranks)) == 1 else ranks
    directions = [d_k, D] if 1 < d_k < D else []
    check_numbers(text, [c.h, D, d_k, d_k, *said, *directions])


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_sentence(c):
    _, (_, _, _, W_O), ref = computed(c)
    text = fire(forward.update_forward, shared=c.store)["text"]
    if c.h == 1:
        check_numbers(text, [1])
        return
    d_k = D // c.h
    sizes = [np.linalg.norm(ref.heads[i] @ W_O[i * d_k:(i + 1) * d_k]) for i in range(c.h)]
    check_numbers(text, [d_k, *[v for i, size in enumerate(sizes) for v in (i + 1, size)]])


@pytest.mark.parametrize("c", CASES, ids=str)
def test_summary_caption(c):
    _, _, ref = computed(c)
    with np.errstate(divide="ignore", invalid="ignore"):
        bits = -np.where(ref.A > 0, ref.A * np.log2(ref.A), 0).sum(-1).mean(-1)  # (h,)
    same = clusters(c.size)[:, None] == clusters(c.size)[None, :]
    own = (ref.A * same).sum(-1).mean(-1)
    caption = texts(summary.update_summary(shared=c.store).children[0])[0]
    caption, _, roles = caption.partition(" Trained, the heads take roles")  # each head's role, for trained weights
    assert bool(roles) == (c.weights == "trained" and c.h > 1)  # (test_explain_views checks the roles)
    third = as_shown(1 / 3)
    if c.h == 1:
        check_numbers(caption, [bits[0], c.n, np.log2(c.n), own[0], third])
        assert "sharpest" not in caption
        return
    order = np.argsort(bits)
    gap = bits[order[1]] - bits[order[0]]
    if caption.startswith("Head "):  # a named winner: it beats the runner-up by more than the margin
        assert gap > margins.BITS and caption.startswith(f"Head {order[0] + 1} is the sharpest")
        check_numbers(caption.split(";")[0],
                      [order[0] + 1, bits[order[0]], bits[order[1]], order[1] + 1, c.n, np.log2(c.n)])
    else:  # too close to tell, and truly so: every head within the margin of the sharpest, the margin, its bits
        assert caption.startswith("No head is clearly the sharpest") and gap <= margins.BITS
        close = [k + 1 for k in range(c.h) if bits[k] - bits[order[0]] <= margins.BITS]
        check_numbers(caption.split(";")[0], [*close, margins.BITS, bits[order[0]], c.n, np.log2(c.n)])
    favour = [i + 1 for i, o in enumerate(own) if o > 1 / 3 + margins.WEIGHT]
    assert ("no head puts more than" in caption) == (not favour)
    check_numbers(caption.split(";")[1], [*favour, third, WEIGHT])  # the heads past the margin, and the margin


def cells_of(c: Case, A: np.ndarray) -> list[tuple[int, int, int]]:
    """The largest weight's cell, the last head's corner, and three more from a generator fixed per case."""
    i, r, j = (int(v) for v in np.unravel_index(A.argmax(), A.shape))
    rng = np.random.default_rng(c.h * 1000 + c.seed)
    picks = [(int(rng.integers(c.h)), int(rng.integers(c.n)), int(rng.integers(c.n))) for _ in range(3)]
    return [(i, r, j), (c.h - 1, c.n - 1, 0)] + picks


@pytest.mark.parametrize("c", CASES, ids=str)
def test_drilldown_sentence(c):
    X, (W_Q, W_K, _, _), ref = computed(c)
    d_k = D // c.h
    for i, r, j in cells_of(c, ref.A):
        block = slice(i * d_k, (i + 1) * d_k)
        score = (X[r] @ W_Q[:, block]) @ (X[j] @ W_K[:, block])
        weights = ref.A[i, r]
        best = 1 + int((weights - weights[j] > WEIGHT).sum())  # keys whose weight beats j's by more than the margin
        worst = int((weights[j] - weights <= WEIGHT).sum())  # and the keys j does not beat by more than it
        ranks = [] if best == worst == 1 else [best] if best == worst else [best, worst]
        panel = fire(drilldown.update_drilldown, shared=c.store, cell=cell(i + 1, r, j))
        text = texts(panel)[0]
        check_numbers(text, [i + 1, r, j, score, c.softmax_scale, score * c.softmax_scale, *ranks, r, c.n, WEIGHT,
                             1, r, j, weights[j], 1, c.n, 1 / c.n])
        assert ("and the largest of row" in text) == (best == worst == 1)
        assert (f"at rank {best} among" in text) == (1 < best == worst)
        assert (f"at ranks {best} to {worst} among" in text) == (best < worst)


@pytest.mark.parametrize("place", [0, 1, 4])
def test_drilldown_rank_shares_a_tie(place):
    """A key tied with key j does not push j down, nor does j claim a rank over it: both may hold either rank, too
    close to tell."""
    ex, result = state.model(state.Setting(4, 0))
    path = explain.cell_path(ex.X, result, 1, 3, 0)
    order = np.argsort(-path.weights)
    j, above = int(order[place + 1]), int(order[place])
    weights = path.weights.copy()
    weights[j] = weights[above]  # key j ties with the key ranked just above it
    text = texts(tables.explanation(path._replace(weights=weights), 1, 3, j))[0]
    best = 1 + int((weights - weights[j] > WEIGHT).sum())
    assert best <= place + 1 and f" at ranks {best} to " in text and "and the largest of row" not in text


# ------------------------------------------------------------------ the equivariance verdict


def sinusoids(n: int) -> np.ndarray:
    r, k = np.arange(n)[:, None], np.arange(D // 2)[None, :]
    E = np.empty((n, D))
    E[:, 0::2], E[:, 1::2] = np.sin(r / 10000 ** (2 * k / D)), np.cos(r / 10000 ** (2 * k / D))
    return E


@pytest.mark.parametrize("c, perm, positions", [
    (Case(4, 0), np.random.default_rng(1).permutation(12), False),
    (Case(2, 2, 7, "tau", -4, "trained"), np.random.default_rng(2).permutation(21), False),
    (Case(8, 0), np.r_[1, 0, 2:12], True),  # the gap is about 0.09: not rounding, however small
    (Case(2, 2, 7, "tau", -4, "trained"), np.random.default_rng(2).permutation(21), True),
    (Case(1, 3, 2, "none"), np.r_[5, 4, 3, 2, 1, 0], True),
], ids=["h4", "trained", "swap-with-E", "trained-with-E", "reversed-with-E"])
def test_equivariance_verdict(c, perm, positions):
    X, W, _ = computed(c)
    E = sinusoids(c.n) if positions else np.zeros_like(X)
    plain = reference(X + E, *W, c.h, c.softmax_scale)
    permuted = reference(X[perm] + E, *W, c.h, c.softmax_scale)
    output_gap = np.linalg.norm(permuted.output - plain.output[perm])
    attention_gap = max(np.linalg.norm(permuted.A[i] - plain.A[i][perm][:, perm]) for i in range(c.h))
    verdict = equivariance.update_equivariance(shared=c.store, perm=" ".join(map(str, perm)), positions=positions,
                                               head=1)[2]
    text = " ".join(texts(verdict))
    rounding = output_gap < 1e-9  # the verdict's line between rounding and a real gap
    check_numbers(text, [Under(1e-12), Under(1e-12)] if rounding else [output_gap, attention_gap])
    assert ("not equivariant" not in text) == rounding
    # each gap names what it compares: with encodings both the outputs' and the attention's are of X + E
    X_, PX_ = ("X + E", "PX + E") if positions else ("X", "PX")
    assert f"‖MultiHead({PX_}) − P·MultiHead({X_})‖" in text and f"‖A⁽ⁱ⁾({PX_}) − P A⁽ⁱ⁾({X_}) Pᵀ‖" in text
    inputs = equivariance.update_equivariance(shared=c.store, perm=" ".join(map(str, perm)), positions=positions,
                                              head=1)[0]
    assert inputs["layout"]["coloraxis"]["colorbar"]["title"]["text"] == "feature value"  # not an "x" by its 0


@pytest.mark.parametrize("gap, rounding", [(1e-9 * (1 - 1e-6), True), (1e-9 * (1 + 1e-6), False)],
                         ids=["just-inside", "just-outside"])
def test_equivariance_verdict_draws_its_line_at_1e_9(gap, rounding):
    """The line between rounding and a real gap is 1e-9, exactly: a gap just under it is rounding, just over it
    is not. The check is the core's for a reversed order, its output gap moved to either side of the line."""
    ex = core.worked_example(0)
    check = core.equivariance_check(*ex[:5], 4, np.arange(12)[::-1])._replace(output_gap=gap)
    verdict = equivariance.verdict(check, with_positions=False)
    text = " ".join(texts(verdict))
    check_numbers(text, [gap, check.attention_gap])
    assert ("not equivariant" not in text) == rounding and ("holds" in verdict.className) == rounding


# ------------------------------------------------------------------ a head index stays within 1..h


@pytest.mark.parametrize("h", core.HEAD_CHOICES)
def test_no_head_past_h(h):
    assert limits.head_index(h + 1, h) is None and limits.head_index(h, h) == h - 1
    assert limits.cell(h + 1, 0, 0, h, 12)[0] is None and limits.cell(h, 0, 0, h, 12)[0] == (h - 1, 0, 0)
    panel = fire(drilldown.update_drilldown, shared=model(h, 0), cell=cell(h + 1, 0, 1))
    assert panel.role == "alert" and f"no head {h + 1}" in panel.children
    attention = equivariance.update_equivariance(shared=model(h, 0), perm=limits.DEFAULT_PERM, positions=False,
                                                 head=h + 1)[1]
    assert attention["layout"]["annotations"][0]["text"].startswith(f"<b>{figures.head_title(0)}: A(")  # head 1's


# ------------------------------------------------------------------ the learning lab's sentences


def masses(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per head, the mean weight a token puts on its own cluster and on the next: A is (h, B, n, n)."""
    c = clusters(4)
    own, nxt = c[:, None] == c[None, :], (c[:, None] + 1) % 3 == c[None, :]
    return (A * own).sum(-1).mean(axis=(1, 2)), (A * nxt).sum(-1).mean(axis=(1, 2))


def shown_learning(seed=0) -> dict:
    return {"seed": seed, "ready": seed}


@pytest.mark.parametrize("h", core.HEAD_CHOICES)
@pytest.mark.parametrize("k", [0, 5, 20])
def test_roles_sentence(h, k):
    seed, step = 0, limits.SNAPSHOT_STEPS[k]
    W = final_weights(h, seed, k)
    shown_map = reference(training.display_example(seed), *W, h, 1 / np.sqrt(D // h)).A
    own, nxt = masses(reference(state.mass_examples(seed), *W, h, 1 / np.sqrt(D // h)).A)
    text = learning.update_learning_heads(shared=heads_store(h), trained=shown_learning(seed), step=step)[1]
    check_numbers(text, [step, *[v for pair in zip(own, nxt) for v in pair], shown_map.max(), 1 / 12])
    if h > 1:
        for part, o, x in zip(text.split("; "), own, nxt):
            picked = max(as_shown(o), as_shown(x)) > 0.5
            assert ("not picked" in part) == (not picked)
            assert ("its own" in part) == (picked and as_shown(o) > as_shown(x))
    else:  # one map for all features: no role to name ("attends to the next cluster" beside "splits the difference")
        assert "the one head, A⁽¹⁾, puts" in text and "mixes all eight features with this one map" in text
        assert not any(word in text for word in ("picked", "puts most on", "next cluster ("))


@pytest.mark.slow  # a second or more on a 2-core machine: make test runs it
@pytest.mark.parametrize("seed", [0, 4])  # seed 4's h = 1 ends above the line, seed 0's below
def test_loss_sentence(seed):
    X, Y = training.test_set(seed)
    losses = {h: np.mean((reference(X, *final_weights(h, seed), h, 1 / np.sqrt(D // h)).output - Y) ** 2)
              for h in core.HEAD_CHOICES}
    text = learning.update_learning_loss(shared=heads_store(), trained=shown_learning(seed))[1]
    gap = losses[1] - 3 / 8
    # below or above, or within the margin: each says h = 1's loss and the margin
    check_numbers(text, [seed, training.TRAINING_STEPS, *[v for h in core.HEAD_CHOICES for v in (h, losses[h])],
                         1, losses[1], margins.LOSS, 3, 8, 3 / 8])
    said = "below" if gap < -margins.LOSS else "above" if gap > margins.LOSS else "within"
    assert f"h = 1 ended {said if said != 'within' else 'at'}" in text and (said == "within") == ("too close" in text)


@pytest.mark.parametrize("gap, ended", [(-0.0101, "below"), (-0.0099, "close"), (0.0099, "close"), (0.0101, "above")])
def test_loss_sentence_is_below_the_line_only_past_its_margin(monkeypatch, gap, ended):
    """h = 1's loss a gap from 3/8, just inside and just outside margins.LOSS (0.01): below or above only past
    it, else too close to tell, with the loss and the margin; the seed's run with its test loss moved there."""
    runs = dict(trainer.training_runs(0))
    runs[1] = replace(runs[1], test_loss=3 / 8 + gap)
    monkeypatch.setattr(trainer, "training_runs", lambda seed, wait=True: runs)
    text = learning.loss_text(0)  # the sentence alone: the cached loss figure is not drawn from the moved run
    losses = [v for h, run in runs.items() for v in (h, run.test_loss)]
    if ended == "close":
        check_numbers(text, [0, training.TRAINING_STEPS, *losses, 1, runs[1].test_loss, margins.LOSS, 3, 8, 3 / 8])
        assert "within 0.01 of the dashed line" in text and "too close to tell" in text
    else:
        check_numbers(text, [0, training.TRAINING_STEPS, *losses, 1, runs[1].test_loss, margins.LOSS, 3, 8, 3 / 8])
        assert f"h = 1 ended {ended} the dashed line" in text and "too close" not in text


@lru_cache(maxsize=None)
def trained_on_test_set(h: int) -> tuple[np.ndarray, np.ndarray, Reference]:
    X, Y = training.test_set(0)
    return X, Y, reference(X, *final_weights(h), h, 1 / np.sqrt(D // h))


def surgery_loss(h: int, off=(), uniform=(), swap=None) -> float:
    """The documented order: swap two heads' attention, then make some uniform, then switch some off."""
    X, Y, ref = trained_on_test_set(h)
    A = list(ref.A)
    if swap:
        A[swap[0]], A[swap[1]] = A[swap[1]], A[swap[0]]
    for i in uniform:
        A[i] = np.full_like(A[i], 1 / A[i].shape[-1])
    d_k = D // h
    W_V, W_O = final_weights(h)[2:]
    heads = [np.zeros_like(ref.heads[i]) if i in off else A[i] @ (X @ W_V[:, i * d_k:(i + 1) * d_k])
             for i in range(h)]
    return float(np.mean((np.concatenate(heads, -1) @ W_O - Y) ** 2))


@pytest.mark.parametrize("h, off, uniform, swap", [
    (2, [1], [], None),
    (2, [], [1], (0, 1)),  # the swap comes first: head 1 is uniform, head 2 has head 1's attention
    (2, [1], [], (0, 1)),  # head 1's slot is off after the swap
    (4, [2], [2], (1, 2)),  # off wins over uniform on the same head
    (8, [1, 5], [3], (3, 6)),
    (1, [], [], None),
], ids=str)
def test_surgery_sentences(h, off, uniform, swap):
    cuts = {"off": [i + 1 for i in off], "uniform": [i + 1 for i in uniform],
            "swap": f"{swap[0] + 1}-{swap[1] + 1}" if swap else surgery.NO_SWAP}
    answer = surgery.update_surgery(shared=heads_store(h), trained=shown_learning(), cuts=cuts)
    first, second = (" ".join(texts(p)) for p in answer.children)
    before, after = surgery_loss(h), surgery_loss(h, off, uniform, swap)
    touched = bool(off or uniform or swap)
    check_numbers(first, [before, after, *([after / before] if touched else [])])
    each_off = [v for i in range(h) for v in (i + 1, surgery_loss(h, off=[i]))]
    check_numbers(second, [*each_off, 3, 8, 3 / 8])
    # 3/8 bounds a mixing that does not depend on the input, which one trained head is not (it reaches 0.354)
    assert second.endswith("is the least error of any mixing that does not depend on the input.")


@pytest.mark.parametrize("own, nxt, said", [
    (0.505, 0.49, "has not picked a cluster yet"),  # ahead by 0.015: within margins.WEIGHT
    (0.53, 0.45, "puts most on its own cluster"),
    (0.30, 0.60, "puts most on the next cluster"), (0.49, 0.30, "has not picked a cluster yet"),
    (0.50, 0.45, "has not picked a cluster yet"),  # not more than half
])
def test_a_lab_head_s_role_is_named_only_past_the_margin(own, nxt, said):
    """The learning lab names a head's role by the summary's rule (explain.role_of): more than half a row's
    weight on a cluster, ahead of the other two by more than margins.WEIGHT."""
    assert said in learning.role("A⁽¹⁾", own, nxt)
    assert (own > 0.5 or nxt > 0.5) or said == "has not picked a cluster yet"
