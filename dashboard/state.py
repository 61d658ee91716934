"""What the explorer and class mode share, owned by neither: the checked model setting and the cached model.

Each cache keyed by a Setting keeps the 64 most recently used: the settings the controls allow (h, seed, size,
scale, temperature) are too many to keep them all. A miss costs milliseconds; bench/bench_cache_memory.py
measures the memory when every cache is full of the largest settings.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from . import attention as core
from . import bugs, checks, limits, trainer, training

SETTINGS_CACHED = 64
MASS_EXAMPLES = 100
RUNS = len(core.HEAD_CHOICES) * len(limits.TRAINING_SEEDS) * len(limits.SNAPSHOT_STEPS)


class Setting(NamedTuple):
    """The model a page shows, checked: the worked example's seed and size, h, the softmax's scale, and its
    weights (the seed's random draw, or the learning lab's trained layer)."""

    h: int
    seed: int
    size: int = limits.DEFAULT_SIZE  # tokens per cluster
    scale: str = limits.DEFAULT_SCALE  # a key of limits.SCALES
    tau: int = limits.DEFAULT_TAU_STEP  # a limits.TAU_STEPS position; the default unless scale is "tau"
    weights: str = limits.DEFAULT_WEIGHTS  # a key of limits.WEIGHT_CHOICES

    @classmethod
    def parse(cls, h, seed, size, scale, tau, weights=limits.DEFAULT_WEIGHTS) -> Setting:
        """The model controls, checked, or limits.Invalid. τ counts only with the temperature scale."""
        scale = limits.scale(scale)
        return cls(limits.heads(h), limits.seed(seed), limits.size(size), scale,
                   limits.tau(tau) if scale == "tau" else limits.DEFAULT_TAU_STEP, limits.weights(weights))

    @property
    def n(self) -> int:
        return core.N_CLUSTERS * self.size

    @property
    def temperature(self) -> float:
        """τ: 1 unless the scale is the temperature's."""
        return 10 ** (self.tau / 10) if self.scale == "tau" else 1.0

    @property
    def softmax_scale(self) -> float:
        """The number in front of Q_i K_i^T."""
        return self.scale_at(core.D_MODEL // self.h)

    def scale_at(self, d_k: int) -> float:
        """The scale for heads of width d_k: the seed's 1/sqrt(d_k), 1, or 1/(τ sqrt(d_k)), so that a higher
        temperature flattens the softmax, as softmax(z/τ) does everywhere else."""
        if self.scale == "none":
            return 1.0
        return 1.0 / (self.temperature * np.sqrt(d_k))


def tokens(weights: str, seed: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The example's X (n, d) and each token's cluster (n,): the seed's, or an input of the learning lab's task."""
    if weights == "random":
        ex = core.worked_example(seed, size)
        return ex.X, ex.cluster
    return training.task_example(seed, size)


class Model(NamedTuple):
    """The model a setting shows: its worked example (X and the weights) and the layer's MultiHead(X)."""

    example: core.WorkedExample
    result: core.MultiHeadResult


@lru_cache(maxsize=SETTINGS_CACHED)
def model(s: Setting) -> Model:
    """The worked example and MultiHead(X) for a checked setting: with random weights the seed's, with trained
    ones the learning lab's layer for this h (training seed limits.EXAMPLE_TRAINING_SEED, last step) on one
    input of its task."""
    if s.weights == "random":
        ex = core.worked_example(s.seed, s.size)
    else:
        X, cluster = training.task_example(s.seed, s.size)
        trained = trainer.training_runs(limits.EXAMPLE_TRAINING_SEED)[s.h].snapshots[-1]
        ex = core.WorkedExample(X, *(trained[w] for w in training.MATRICES), cluster)
    return Model(ex, core.multi_head_attention(*ex[:5], s.h, scale=s.softmax_scale))


def checks_example(s: Setting, causal: bool) -> checks.Example:
    """The worked example as the bug clinic's checks take it: X and the weights, h, the scale rule, the mask."""
    ex = model(s).example
    return checks.Example(ex.X, tuple(ex[1:5]), s.h, s.scale_at, causal)


class BugLayers(NamedTuple):
    """A bug's layer beside the correct one on the worked example, as the clinic and class mode show them."""

    ex: checks.Example  # with a causal mask if asked for or if the bug needs one
    correct: core.MultiHeadResult
    buggy: core.MultiHeadResult

    @property
    def zmax(self) -> float:
        """The top of the one colour scale both layers' heatmaps share."""
        return float(max(self.correct.A.max(), self.buggy.A.max()))


@lru_cache(maxsize=SETTINGS_CACHED)
def bug_layers(s: Setting, bug_key: str, causal: bool) -> BugLayers:
    """Both layers, computed once for the heatmaps, the path, the forward pass, the export and class mode."""
    bug = bugs.BUGS_BY_KEY[bug_key]
    ex = checks_example(s, bugs.is_causal(bug, causal))
    return BugLayers(ex, checks.run(ex, None), checks.run(ex, bug))


# The learning lab's trained layers: the explorer draws them, class mode asks about them.
@lru_cache(maxsize=len(limits.TRAINING_SEEDS))
def mass_examples(seed: int) -> np.ndarray:
    """MASS_EXAMPLES held-out inputs (B, n, d) to measure where the heads attend."""
    return training.make_task(MASS_EXAMPLES, np.random.default_rng([seed, 30_000]))[0]


@lru_cache(maxsize=RUNS)
def learned_attention(h: int, seed: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """At snapshot k: A^(i) on the display example (h, n, n); per head the mean attention on the own
    and on the next cluster over the held-out examples, two (h,); and the training step."""
    run = trainer.training_runs(seed)[h]
    W = [run.snapshots[k][w] for w in training.MATRICES]
    A = core.multi_head_attention(training.display_example(seed), *W, h).A
    own, nxt = training.cluster_mass(core.multi_head_attention(mass_examples(seed), *W, h).A)
    return A, own, nxt, int(run.snapshot_steps[k])
