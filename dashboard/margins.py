"""The one rule for every comparative claim: a winner is named only when it beats the runner-up by a stated margin.

A sentence, a summary, a check's verdict or a class question's truth that says "this one is the largest (the
sharpest, the lowest loss, …)" asks `compare` first, with the margin of its kind of quantity below. When the best
does not beat the runner-up by more than the margin, the claim says that the values are too close to tell, and
gives them (`Comparison.close`). Pure Python and numpy: the core's modules and the views use it alike.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# One margin per kind of quantity (the README explains each value).
BITS = 0.05  # entropy of a row, in bits: rows of 12 weights that differ by this are a visible change of sharpness
WEIGHT = 0.02  # an attention weight (0 to 1): two keys within 2 points of each other are not told apart by eye
LOSS = 0.01  # a test loss of the learning lab's task (MSE on 2,000 held-out inputs; one fixed mixing gets 3/8 = 0.375;
#              one head's loss varies by about 0.005 over training seeds 0-9, apart from seed 4)
RANK = 0.1  # Spearman's ρ: over 12 keys, one swap of neighbours moves ρ by about 0.01, a tenth is several swaps
SHARE = 0.05  # an influence N of one key, as a share of the row's total ΣⱼN: keys under it "don't matter"


class Comparison(NamedTuple):
    """What `compare` found: the best entry, the runner-up, the gap between them, and whether it is a claim."""

    best: int  # the index of the best value (the lowest index on a tie)
    runner_up: int  # the index of the best of the others (-1 with a single value)
    gap: float  # how much the best beats the runner-up (>= 0; inf with a single value)
    margin: float
    clear: bool  # gap > margin: the best may be named
    close: tuple[int, ...]  # every index within the margin of the best (the best first): the "too close" ones

    @property
    def winner(self) -> int | None:
        """The best entry if it wins by more than the margin, else None: too close to tell."""
        return self.best if self.clear else None


def compare(values, margin: float, lower_is_better: bool = False) -> Comparison:
    """The best of `values` (the largest, or the lowest with `lower_is_better`) and whether it beats every other
    entry by more than `margin`. Every claim that names a winner uses this."""
    x = np.asarray(values, dtype=float).ravel()
    if x.size == 0 or not np.isfinite(x).all():
        raise ValueError("compare needs one or more finite values")
    if margin < 0:
        raise ValueError(f"a margin is not negative, got {margin}")
    score = -x if lower_is_better else x
    order = np.argsort(-score, kind="stable")
    best = int(order[0])
    if x.size == 1:
        return Comparison(best, -1, float("inf"), margin, True, (best,))
    runner_up = int(order[1])
    gap = float(score[best] - score[runner_up])
    close = tuple(int(k) for k in order if score[best] - score[k] <= margin)
    return Comparison(best, runner_up, gap, margin, gap > margin, close)


def beats(value: float, line: float, margin: float, lower_is_better: bool = False) -> bool | None:
    """Whether `value` is on the better side of `line` by more than `margin` (True), on the worse side by more
    than it (False), or too close to the line to tell (None)."""
    c = compare([value, line], margin, lower_is_better)
    return None if not c.clear else c.best == 0


def rank_range(values, k: int, margin: float) -> tuple[int, int]:
    """The ranks values[k] could hold among `values` (1 the largest) under the same rule: another value ranks
    above it only when it beats it by more than `margin`, below it only when it beats that one by more than
    `margin`; the ones between are too close to tell. (best, worst), equal when none is within the margin."""
    x = np.asarray(values, dtype=float).ravel()
    if margin < 0:
        raise ValueError(f"a margin is not negative, got {margin}")
    return 1 + int((x - x[k] > margin).sum()), int((x[k] - x <= margin).sum())
