"""The learning lab's trainer child: replaced when it dies, gone when its parent is, and free of Dash."""

import os
import signal
import threading
import subprocess
import sys
import time

import pytest

from dashboard import state, trainer
from dashboard.attention import HEAD_CHOICES
from tests.conftest import ROOT


def alive(pid: int) -> bool:
    """A running process (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, whichever of its threads started it."""
    kids = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            kids.update(int(k) for k in f.read().split())
    return kids.union(*(descendants(k) for k in kids if alive(k)))


def wait_until(condition, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def child_pid() -> int:
    trainer.trainer()
    return trainer._trainer[2].result(timeout=30)


@pytest.mark.slow
def test_a_dead_trainer_is_replaced_on_the_next_request():
    seed = 7
    trainer._runs.pop(seed, None)
    assert trainer.training_runs(seed, wait=False) is None  # training, in the child
    old = child_pid()
    assert trainer.health() == "ok"
    os.kill(old, signal.SIGKILL)
    assert wait_until(lambda: trainer.health() == "down", 10)
    assert wait_until(lambda: trainer.training_runs(seed, wait=False) is not None)  # polls, as the page does
    runs = trainer.training_runs(seed)
    assert sorted(runs) == list(HEAD_CHOICES) and all(run.test_loss >= 0 for run in runs.values())
    assert trainer.health() == "ok" and child_pid() != old and not alive(old)


@pytest.mark.slow  # a process test: it waits for the child, behind whatever training other tests queued there
def test_other_work_runs_off_the_request_path_once():
    """The bug clinic's training (checks.learning_losses) goes through off_request: run in the child, then kept."""
    import numpy as np

    from dashboard import training

    first = trainer.off_request(training.display_example, 5, wait=False)
    assert first is None or np.array_equal(first, training.display_example(5))
    assert wait_until(lambda: trainer.off_request(training.display_example, 5, wait=False) is not None)
    kept = trainer.off_request(training.display_example, 5)
    np.testing.assert_array_equal(kept, training.display_example(5))
    assert trainer.off_request(training.display_example, 5) is kept  # computed once
    assert child_pid() != os.getpid()


def test_the_trainer_child_imports_numpy_and_the_training_code_only():
    modules = trainer.trainer().submit(eval, "sorted(__import__('sys').modules)").result(timeout=60)
    assert "numpy" in modules and "dashboard.training" in modules
    assert not [m for m in modules if m.split(".")[0] in ("dash", "flask", "plotly", "app")]


PARENT = """
import sys
from dashboard import state, trainer
trainer.training_runs(8, wait=False)
print(trainer._trainer[2].result(), flush=True)
sys.stdin.read()
"""


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_the_trainer_exits_when_its_parent_dies(sig):
    parent = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        left = descendants(parent.pid)  # the trainer and multiprocessing's resource tracker
        assert child in left and len(left) == 2
        parent.send_signal(sig)
        parent.wait(timeout=10)
        assert wait_until(lambda: not any(alive(p) for p in left), 10)
    finally:
        parent.kill()
        parent.wait()


@pytest.mark.slow
def test_a_child_that_dies_while_a_request_waits_is_sent_the_work_again_once():
    """Issue 34 item 8: a future that breaks between lost() and result() used to raise BrokenProcessPool to the
    request. The work is sent again, once; the request gets its runs. Independent of xdist's order: the kill
    happens here, on a seed no other test trains."""
    seed = 11
    trainer._runs.pop(seed, None)
    old = child_pid()
    killer = threading.Timer(0.3, os.kill, (old, signal.SIGKILL))  # while training_runs waits on the result
    killer.start()
    runs = trainer.training_runs(seed)
    killer.join()
    assert sorted(runs) == list(HEAD_CHOICES) and child_pid() != old and not alive(old)


@pytest.fixture(autouse=True, scope="module")
def a_healthy_trainer_for_the_tests_after_these():
    """These tests kill the trainer's child: afterwards the next test file in this process starts a new one, with no
    run left from a killed child (a later class-mode test failed after them, only when it shared their process)."""
    yield
    trainer.shutdown()
    for table in (trainer._runs, trainer._jobs):
        table.clear()
    state.model.cache_clear()
    state.learned_attention.cache_clear()
