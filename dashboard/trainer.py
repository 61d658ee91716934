"""Training runs for the learning lab, off the request path.

Training runs in a child process at low priority, one run at a time per server process, so that
a class pressing "train" at once neither holds this process's GIL nor takes CPU from serving.
The child is spawned, not forked: it imports numpy and the training code only, never Dash or the
app. It exits when its parent does, however the parent died, and a dead child is replaced on the
next request for a training run.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context, parent_process

from . import training
from .attention import HEAD_CHOICES

TRAINER_NICENESS = 10

# One future per training seed. Callers check the seed first, so this holds one entry per allowed
# training seed at most, and a second request for a seed in training waits for the same run.
_runs: dict[int, Future] = {}
_runs_lock = threading.Lock()
# (owner pid, pool, future of the child's pid): the owner is the server process that started it
_trainer: tuple[int, ProcessPoolExecutor, Future] | None = None


def train_all(seed: int) -> tuple[training.TrainingRun, ...]:
    """One run for each h in HEAD_CHOICES, in that order."""
    return tuple(training.train(h, seed) for h in HEAD_CHOICES)


def child_start() -> None:
    """In the child: low priority, and a thread that ends the child when its parent is gone. The parent's
    end of a pipe closes however it died (SIGKILL too), and an idle child would otherwise wait forever."""
    os.nice(TRAINER_NICENESS)
    threading.Thread(target=lambda: (parent_process().join(), os._exit(0)), daemon=True).start()


def trainer() -> ProcessPoolExecutor:
    """This process's trainer, started on first use (after gunicorn has forked its workers)."""
    global _trainer
    if _trainer is None or _trainer[0] != os.getpid():
        pool = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"), initializer=child_start)
        _trainer = (os.getpid(), pool, pool.submit(os.getpid))
    return _trainer[1]


def submit(function, *args) -> Future:
    """function(*args) in the child."""
    try:
        return trainer().submit(function, *args)
    except BrokenProcessPool:  # the child died: start another
        shutdown()
        return trainer().submit(function, *args)


def lost(future: Future) -> bool:
    """A run whose child died under it; asking again trains it again."""
    return future.done() and isinstance(future.exception(), BrokenProcessPool)


def kept(table: dict, key, function, *args, wait: bool = True):
    """function(*args) from the child, submitted once and kept in `table` under `key`; with wait=False, None while
    it runs. A child that dies under it (BrokenProcessPool, also between the check and the wait) gets the work
    again, once; any other failure is raised, and a later call tries again."""
    for attempt in (1, 2):
        with _runs_lock:
            future = table.get(key)
            if future is None or lost(future):
                future = table[key] = submit(function, *args)
        if not (wait or future.done()):
            return None
        try:
            return future.result()
        except BrokenProcessPool:
            if attempt == 2:
                with _runs_lock:
                    if table.get(key) is future:
                        table.pop(key)
                raise
        except Exception:
            with _runs_lock:
                if table.get(key) is future:
                    table.pop(key)  # let a later request try again
            raise


def training_runs(seed: int, wait: bool = True) -> dict[int, training.TrainingRun] | None:
    """The runs (h -> run) for a checked training seed: trained once, then kept.
    With wait=False, None while the training is still going on."""
    runs = kept(_runs, seed, train_all, seed, wait=wait)
    return None if runs is None else dict(zip(HEAD_CHOICES, runs))


# Other pure functions of a few allowed values, run in the child once and kept (the bug clinic's training).
_jobs: dict[tuple, Future] = {}


def off_request(function, *args, wait: bool = True):
    """function(*args), computed once in the child and then kept; with wait=False, None while it runs. `function` is
    a module-level function of numpy code only (the child imports no Dash), its args a few allowed values."""
    return kept(_jobs, (function.__module__, function.__qualname__, *args), function, *args, wait=wait)


def train_here(seed: int) -> None:
    """Train `seed` in this process now (start-up: under gunicorn --preload, once for all workers)."""
    with _runs_lock:
        if seed not in _runs:
            _runs[seed] = Future()
            _runs[seed].set_result(train_all(seed))


def health() -> str:
    """'not started', 'starting', 'ok', or 'down' (its child died; the next training request replaces it)."""
    if _trainer is None or _trainer[0] != os.getpid():
        return "not started"
    pid = _trainer[2]
    if not pid.done():
        return "starting"
    if pid.exception() is not None:
        return "down"
    try:
        os.kill(pid.result(), 0)
    except ProcessLookupError:
        return "down"
    return "ok"


def ready(timeout: float = 10.0) -> bool:
    """Whether this process can train now: its trainer runs, or none was needed yet (one starts on the first
    request). One that died is replaced here, so that every worker answers /healthz alike; False only if no
    trainer could be started within `timeout` seconds."""
    state = health()
    if state in ("not started", "ok"):
        return True
    if state == "down":
        shutdown()
    try:
        trainer()
        pid = _trainer[2].result(timeout)
        os.kill(pid, 0)
    except Exception:  # noqa: BLE001 (whatever stops a trainer from starting, this process cannot train)
        return False
    return True


def shutdown() -> None:
    """Stop this process's trainer child, if it started one (at exit, and at the end of a test run)."""
    global _trainer
    if _trainer is not None and _trainer[0] == os.getpid():
        _trainer[1].shutdown(wait=True, cancel_futures=True)
    _trainer = None
