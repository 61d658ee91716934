"""Training runs for the learning lab, off the request path.

Training runs in a child process at low priority, one run at a time per server process, so that
a class pressing "train" at once neither holds this process's GIL nor takes CPU from serving.
This module imports numpy and the training code only, never Dash.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context

from . import training
from .attention import HEAD_CHOICES

TRAINER_NICENESS = 10

# One future per training seed. Callers check the seed first, so this holds one entry per allowed
# training seed at most, and a second request for a seed in training waits for the same run.
_runs: dict[int, Future] = {}
_runs_lock = threading.Lock()
_trainer: tuple[int, ProcessPoolExecutor] | None = None


def train_all(seed: int) -> tuple[training.TrainingRun, ...]:
    """One run for each h in HEAD_CHOICES, in that order."""
    return tuple(training.train(h, seed) for h in HEAD_CHOICES)


def trainer() -> ProcessPoolExecutor:
    """This process's trainer, started on first use (after gunicorn has forked its workers)."""
    global _trainer
    if _trainer is None or _trainer[0] != os.getpid():
        _trainer = (os.getpid(), ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"),
                                                     initializer=os.nice, initargs=(TRAINER_NICENESS,)))
    return _trainer[1]


def training_runs(seed: int, wait: bool = True) -> dict[int, training.TrainingRun] | None:
    """The runs (h -> run) for a checked training seed: trained once, then kept.
    With wait=False, None while the training is still going on."""
    with _runs_lock:
        future = _runs.get(seed)
        if future is None:
            future = _runs[seed] = trainer().submit(train_all, seed)
    if not (wait or future.done()):
        return None
    try:
        return dict(zip(HEAD_CHOICES, future.result()))
    except Exception:
        with _runs_lock:
            _runs.pop(seed, None)  # let a later request try again
        raise


def train_here(seed: int) -> None:
    """Train `seed` in this process now (start-up: under gunicorn --preload, once for all workers)."""
    with _runs_lock:
        if seed not in _runs:
            _runs[seed] = Future()
            _runs[seed].set_result(train_all(seed))


def shutdown() -> None:
    """Stop this process's trainer child, if it started one (at exit, and at the end of a test run)."""
    global _trainer
    if _trainer is not None and _trainer[0] == os.getpid():
        _trainer[1].shutdown(wait=True, cancel_futures=True)
    _trainer = None
