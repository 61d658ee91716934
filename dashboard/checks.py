"""The checks a student can run on an attention layer, and which of them catches which bug (dashboard/bugs.py).

Each check gives a Verdict for one layer: the correct one or one with a bug switched in, on the worked example's
X and weights. A check catches a bug when the correct layer passes it and the buggy one does not; when the
correct layer fails it too (a causal layer is not permutation-equivariant), the check cannot tell. Nothing here is
typed in by hand: the table of catches is computed. Pure numpy.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from . import bugs, margins, training
from .attention import HEAD_CHOICES, MultiHeadResult, scale_rule
from .constants import CHECKS, FAST_CHECKS
from .i18n import _, clauses, format_list
from .steps import causal_mask, softmax

TOLERANCE = 1e-9  # rounding: the correct layer is within 1e-14 of each identity here
LEARNING_STEPS = 200  # half the learning lab's budget, on the same task; the verdicts are the same at 400
WORSE = 2.0  # caught when the buggy layer's test loss is more than twice the correct layer's
PERMUTATION_SALT = 60_000


class Verdict(NamedTuple):
    passed: bool
    detail: str  # the number behind it, in words (in the request's language)


class Example(NamedTuple):
    """What the fast checks run on: X (n, d), the four weights, h, the scale rule and the mask."""

    X: np.ndarray
    W: tuple  # W_Q, W_K, W_V, W_O
    h: int
    scale: object = None  # as the core's `scale`: None, a number, or a rule d_k -> scale
    causal: bool = False


def reference_attention(X, W_Q, W_K, W_V, W_O, h, scale=None, causal=False) -> tuple[np.ndarray, np.ndarray]:
    """The layer as the seed notebook writes it, one head at a time: (output (n, d), A (h, n, n))."""
    n, d = X.shape
    d_k = d // h
    factor = scale_rule(scale)(d_k)
    heads, attentions = [], []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        logits = (X @ W_Q[:, cols]) @ (X @ W_K[:, cols]).T * factor
        if causal:
            logits = np.where(causal_mask(n), logits, -np.inf)
        A_i = softmax(logits)
        heads.append(A_i @ (X @ W_V[:, cols]))
        attentions.append(A_i)
    return np.concatenate(heads, axis=1) @ W_O, np.stack(attentions)


def run(ex: Example, bug: bugs.Bug | None, X=None) -> MultiHeadResult:
    """The layer (`bug` switched in, or None) on X, by default the example's."""
    return bugs.layer(ex.X if X is None else X, *ex.W, ex.h, bug, ex.scale, ex.causal)


def permutation(n: int) -> np.ndarray:
    """The order the equivariance check feeds the tokens in: a fixed shuffle of n tokens."""
    return np.random.default_rng([n, PERMUTATION_SALT]).permutation(n)


def check_rows(r: MultiHeadResult) -> Verdict:
    gap = float(np.abs(r.A.sum(axis=-1) - 1).max())
    return Verdict(gap < TOLERANCE, _("largest |row sum − 1| = {gap:.1e}").format(gap=gap))


def check_equivariance(ex: Example, bug, r: MultiHeadResult) -> Verdict:
    perm = permutation(len(ex.X))
    gap = float(np.abs(run(ex, bug, ex.X[perm]).output - r.output[perm]).max())
    return Verdict(gap < TOLERANCE, _("largest |MultiHead(PX) − P·MultiHead(X)| = {gap:.1e}").format(gap=gap))


def check_reference(ex: Example, r: MultiHeadResult) -> Verdict:
    """The weights and the output against the reference loop's (the gap in A tells W_O's bug from the rest)."""
    output, A = reference_attention(ex.X, *ex.W, ex.h, ex.scale, ex.causal)
    gap_A, gap = float(np.abs(r.A - A).max()), float(np.abs(r.output - output).max())
    return Verdict(max(gap_A, gap) < TOLERANCE, _("largest |A − reference A| = {gap_A:.1e}, |output − reference| = "
                                                  "{gap:.1e}").format(gap_A=gap_A, gap=gap))


def expected_shapes(h: int, n: int, d: int) -> dict[str, tuple]:
    heads, square = (h, n, d // h), (h, n, n)
    return {"Q": heads, "K": heads, "V": heads, "logits": square, "A": square, "heads": heads, "concat": (n, d),
            "output": (n, d)}


def check_shapes(ex: Example, r: MultiHeadResult) -> Verdict:
    # Translators: an array's name and shape, and the shape it should have: "Q (4, 3, 2) not (4, 12, 2)"
    wrong = [_("{name} {shape} not {expected}").format(name=name, shape=getattr(r, name).shape, expected=shape)
             for name, shape in expected_shapes(ex.h, *ex.X.shape).items() if getattr(r, name).shape != shape]
    # Translators: Q, K, V, heads, logits, A, concat and output are the names of the layer's arrays: keep them
    return Verdict(not wrong, clauses(wrong) if wrong else _("Q, K, V, heads (h, n, d_k); logits, A (h, n, n); concat, "
                                                    "output (n, d): all as expected"))


def training_scale(temperature: float | None):
    """The scale rule for a temperature τ (1/(τ sqrt(d_k)), τ = 1 the seed's), or 1 with None (no scaling)."""
    return 1.0 if temperature is None else lambda d_k: 1.0 / (temperature * np.sqrt(d_k))


@lru_cache(maxsize=8 * len(HEAD_CHOICES) * (len(bugs.BUGS) + 1))
def test_loss(bug_key: str | None, h: int, causal: bool, temperature: float | None = 1.0) -> float:
    """The held-out loss of the layer trained on the learning lab's task (training seed 0, LEARNING_STEPS), with
    the page's scale: a temperature τ, or None for no scaling."""
    layer = bugs.trainable(bugs.BUGS_BY_KEY.get(bug_key), causal, training_scale(temperature))
    return training.train(h, 0, LEARNING_STEPS, layer=layer).test_loss


def learning_losses(h: int, causal: bool, temperature: float | None = 1.0) -> dict[tuple[str | None, bool], float]:
    """The test loss of every layer the clinic shows at (h, causal, the scale), by (bug key or None, causal): each
    bug's, and the correct layer's with and without the mask the bugs need. Seconds: the server runs it off the
    request path (trainer.off_request)."""
    layers = {(bug.key, bugs.is_causal(bug, causal)) for bug in bugs.BUGS}
    layers |= {(None, masked) for _key, masked in layers}
    return {(key, masked): test_loss(key, h, masked, temperature) for key, masked in sorted(layers, key=str)}


def can_learn(correct: float) -> bool:
    """Whether the training check can tell here: a layer within WORSE times the correct one's loss still beats
    the best fixed mixing (3/8) by more than margins.LOSS. Not so for a causal layer, nor for one head."""
    return margins.beats(WORSE * correct, training.SINGLE_MIXING_FLOOR, margins.LOSS, lower_is_better=True) is True


def check_learns(bug: bugs.Bug | None, h: int, causal: bool, losses: dict) -> Verdict:
    """Trained as the lab trains (same task, draws and Adam), does the layer do as well as the correct one? The
    correct layer fails it where it cannot learn the task itself (can_learn), so that the check cannot tell."""
    causal = bugs.is_causal(bug, causal)
    mine, correct = losses[(bug and bug.key, causal)], losses[(None, causal)]
    if bug is None and not can_learn(correct):
        return Verdict(False, _("test loss {mine:.3f} after {steps} steps: twice that is not clearly below 3/8 = "
                                "0.375, the loss of one fixed mixing, so this layer does not learn the task well "
                                "enough to judge a bug by it").format(mine=mine, steps=LEARNING_STEPS))
    said = (_("test loss {mine:.3f} after {steps} steps; the correct causal layer's {correct:.3f}") if causal else
            _("test loss {mine:.3f} after {steps} steps; the correct layer's {correct:.3f}"))
    return Verdict(mine <= WORSE * correct, said.format(mine=mine, steps=LEARNING_STEPS, correct=correct))


def verdicts(ex: Example, bug: bugs.Bug | None, which=FAST_CHECKS, losses: dict | None = None) -> dict[str, Verdict]:
    """The checks in `which` on one layer; the example's mask is the bug's if it needs one. "learns" reads the
    trained layers' `losses` (learning_losses(h, causal))."""
    ex = ex._replace(causal=bugs.is_causal(bug, ex.causal))
    r = run(ex, bug)
    found = {"rows": lambda: check_rows(r), "equivariance": lambda: check_equivariance(ex, bug, r),
             "reference": lambda: check_reference(ex, r), "shapes": lambda: check_shapes(ex, r),
             "learns": lambda: check_learns(bug, ex.h, ex.causal, losses)}
    return {name: found[name]() for name in which}


def catches(correct: Verdict, buggy: Verdict) -> bool | None:
    """True if the check catches the bug, False if it misses it, None if it cannot tell (the correct layer
    fails it too)."""
    return None if not correct.passed else not buggy.passed


def side_by_side(ex: Example, bug: bugs.Bug, which=FAST_CHECKS, losses=None) -> dict[str, tuple[Verdict, Verdict,
                                                                                       bool | None]]:
    """Each check on the correct layer (with the bug's mask) and on the buggy one, and whether it catches it."""
    correct = verdicts(ex._replace(causal=bugs.is_causal(bug, ex.causal)), None, which, losses)
    buggy = verdicts(ex, bug, which, losses)
    return {name: (correct[name], buggy[name], catches(correct[name], buggy[name])) for name in which}


def catch_table(ex: Example, which=FAST_CHECKS, losses=None) -> dict[str, dict[str, bool | None]]:
    """{bug key: {check: caught?}} for every bug on this example."""
    return {bug.key: {name: caught for name, (*_verdicts, caught) in side_by_side(ex, bug, which, losses).items()}
            for bug in bugs.BUGS}


def same_numbers(ex: Example, a: bugs.Bug | None, b: bugs.Bug | None) -> bool:
    """Whether two bugs (None: the correct layer) give the same layer here (at h = 1 there are no heads to split,
    …)."""
    if bugs.is_causal(a, ex.causal) != bugs.is_causal(b, ex.causal):
        return False
    return same_layer(run(ex, a), run(ex, b))


def same_layer(ra: MultiHeadResult, rb: MultiHeadResult) -> bool:
    """Whether two layers give the same weights and outputs, up to rounding."""
    return bool(np.allclose(ra.A, rb.A, rtol=0, atol=TOLERANCE)
                and np.allclose(ra.output, rb.output, rtol=0, atol=TOLERANCE))


def judge(ex: Example, mystery: bugs.Bug, answer: bugs.Bug, which=FAST_CHECKS) -> tuple[bool, str]:
    """Whether `answer` names the mystery bug (or one that computes the same numbers here), and why."""
    name, mystery_name = _(answer.name), _(mystery.name)
    if answer.key == mystery.key:
        return True, _("Right: it was “{name}”. {caught}").format(name=name,
                                                                 caught=caught_by(side_by_side(ex, mystery, which)))
    if same_numbers(ex, answer, mystery):
        return True, _("Right here: “{name}” computes exactly the numbers of the mystery bug in this setting, which "
                       "was “{mystery}”. Change h and try another mystery.").format(name=name, mystery=mystery_name)
    seen, named = verdicts(ex, mystery, which), verdicts(ex, answer, which)
    differ = [(_("“{name}” would pass “{check}”, and this layer fails it ({detail})") if named[c].passed else
               _("“{name}” would fail “{check}”, and this layer passes it ({detail})"))
              .format(name=name, check=_(CHECKS[c]), detail=seen[c].detail)
              for c in which if named[c].passed != seen[c].passed]
    if differ:
        # Translators: {differences} is one or more of the clauses above, joined as "{first}; {second}" says
        return False, _("Not that one: {differences}.").format(differences=clauses(differ))
    ra, rb = run(ex, answer), run(ex, mystery)
    gap = float(np.abs(ra.A - rb.A).max())
    if gap > TOLERANCE:
        said = _("Not that one: “{name}” fails the same checks as this layer, but its weights differ from this "
                 "layer's by up to {gap:.2f}. What it would do: {effect}")
    else:
        gap = np.abs(ra.output - rb.output).max()
        said = _("Not that one: “{name}” fails the same checks as this layer, but its weights are this layer's, but "
                 "its output differs by up to {gap:.2f}. What it would do: {effect}")
    return False, said.format(name=name, gap=gap, effect=_(answer.effect))


# Where a wrong number comes from: the numbers on the way to A^(i)_rj and output r, in the order the layer
# computes them. The first that differs between the two layers is the step where the bug entered.
PATH_STEPS = ("query", "key", "scale", "logit", "weight", "row sum", "head row", "output row")


class PathStep(NamedTuple):
    step: str  # one of PATH_STEPS
    correct: np.ndarray  # () or a vector
    buggy: np.ndarray

    @property
    def differs(self) -> bool:
        return not np.allclose(self.correct, self.buggy, rtol=0, atol=TOLERANCE)


def cell_numbers(layer: MultiHeadResult, i: int, r: int, j: int) -> tuple[np.ndarray, ...]:
    """In PATH_STEPS' order: q_r^(i) and k_j^(i) (d_k,), the scale, the scaled logit [r, j], the weight A^(i)_rj,
    row r's sum over the keys, head_i's row r (d_k,) and output row r (d,)."""
    return (layer.Q[i, r], layer.K[i, j], np.float64(layer.scale), layer.logits[i, r, j], layer.A[i, r, j],
            layer.A[i, r].sum(), layer.heads[i, r], layer.output[r])


def wrong_number_path(correct: MultiHeadResult, buggy: MultiHeadResult, i: int, r: int, j: int) -> list[PathStep]:
    """The path to A^(i)_rj and output r in the correct layer (with the bug's mask) and the buggy one."""
    return [PathStep(step, a, b) for step, a, b in zip(PATH_STEPS, cell_numbers(correct, i, r, j),
                                                        cell_numbers(buggy, i, r, j))]


def caught_by(table: dict[str, tuple[Verdict, Verdict, bool | None]]) -> str:
    """A sentence naming the checks that catch the bug, those that miss it, and those that cannot tell."""
    groups = {True: [], False: [], None: []}
    for name, (*_verdicts, caught) in table.items():
        # Translators: a check's name, quoted in a sentence (Chinese: “…”, Spanish: «…» or “…”)
        groups[caught].append(_("“{check}”").format(check=_(CHECKS[name])))
    named = {caught: format_list(names) for caught, names in groups.items()}
    # Translators: a part of "Here it is {parts}.", as are "missed by …" and "… cannot tell"; {checks}: check names
    parts = [_("caught by {checks}").format(checks=named[True]) if groups[True] else
             _("caught by none of these checks")]
    if groups[False]:
        parts.append(_("missed by {checks}").format(checks=named[False]))
    if groups[None]:
        parts.append(_("{checks} cannot tell (the correct layer fails it too)").format(checks=named[None]))
    # Translators: {parts}: "caught by …", "missed by …" and "… cannot tell (…)", as they apply, joined as the
    # message "{first}; {second}" says
    return _("Here it is {parts}.").format(parts=clauses(parts))
