"""A store that hangs cannot hold the server (issue 39 item 3): each operation gives up within its deadline, others
fail at once while it hangs, /healthz answers within 2 s and caches its write check. A backend that blocks until
it is cut stands in for the database here; tests/test_class_hosting.py stops a real PostgreSQL with SIGSTOP."""

import os
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from dashboard.classmode.store import Store, Unavailable, db, sessions
from dashboard.classmode.store.postgres import KEEPALIVES, OPTIONS
from tests.pg import postgres_server


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class Hanging:
    """A backend whose transactions block until released, or until the deadline cuts their connection."""

    param, errors = "?{}", (OSError,)

    def __init__(self):
        self.release, self.cuts, self.connects = threading.Event(), 0, 0

    def connect(self):
        self.connects += 1
        return {"cut": threading.Event()}

    def abort(self, conn):
        self.cuts += 1
        conn["cut"].set()

    def retryable(self, error):
        return True  # a dropped connection is tried again: never after a cut

    @contextmanager
    def transaction(self, conn, write):
        given_up = time.monotonic() + 5  # a broken deadline fails the test in 5 s, not never
        while not self.release.is_set():
            if conn["cut"].wait(0.01):
                raise OSError("connection cut")
            if time.monotonic() > given_up:
                raise OSError("not cut within 5 s")
        yield None


def test_an_operation_that_hangs_gives_up_at_its_deadline_and_is_not_tried_again():
    backend = Hanging()
    database = db.Database(backend)
    started = time.monotonic()
    with pytest.raises(Unavailable):
        database.run(True, lambda cur: "saved", deadline=0.3)
    took = time.monotonic() - started
    assert 0.3 <= took < 0.6 and backend.cuts == 1 and backend.connects == 1  # cut once, no retry after a cut
    backend.release.set()
    assert database.hangs()  # cut just now: the cool-down
    with pytest.raises(Unavailable):  # at once, without touching the database
        database.run(True, lambda cur: "saved")
    assert backend.connects == 1


@pytest.mark.slow
def test_while_one_operation_hangs_past_SUSPECT_the_others_fail_at_once():
    backend = Hanging()
    database = db.Database(backend)
    failed = []
    first = threading.Thread(target=database.run, args=(True, lambda cur: 1, 30))  # released below
    first.start()
    time.sleep(db.SUSPECT + 0.2)
    assert database.hangs()
    started = time.monotonic()
    for _ in range(20):
        try:
            database.run(False, lambda cur: 1)
        except Unavailable:
            failed.append(time.monotonic() - started)
    assert len(failed) == 20 and failed[-1] < 0.05  # 20 failed within 50 ms: no thread waits on the store
    backend.release.set()
    first.join(5)
    assert not database.hangs() and database.run(False, lambda cur: "read") == "read"


@pytest.mark.parametrize("age, hangs", [(db.SUSPECT - 0.01, False), (db.SUSPECT + 0.01, True)])
def test_suspect_is_exactly_half_a_second(age, hangs):
    clock = Clock()
    database = db.Database(Hanging(), clock=clock)
    database._running[1] = clock.t
    clock.t += age
    assert database.hangs() is hangs
    assert db.SUSPECT == 0.5


@pytest.mark.parametrize("after, hangs", [(db.COOL_DOWN - 0.01, True), (db.COOL_DOWN + 0.01, False)])
def test_the_cool_down_after_a_cut_is_exactly_two_seconds(after, hangs):
    clock = Clock()
    database = db.Database(Hanging(), clock=clock)
    database._cut({})
    clock.t += after
    assert database.hangs() is hangs
    assert db.COOL_DOWN == 2.0


@pytest.mark.slow
def test_at_most_IN_FLIGHT_threads_wait_on_the_database_and_another_gives_up_once_they_are_suspect():
    backend = Hanging()
    database = db.Database(backend)
    waiting = [threading.Thread(target=database.run, args=(True, lambda cur: 1, 30)) for _ in range(db.IN_FLIGHT)]
    for t in waiting:
        t.start()
    time.sleep(0.05)  # both inside, neither suspect yet
    assert not database.hangs()
    started = time.monotonic()
    with pytest.raises(Unavailable):
        database.run(False, lambda cur: 1)
    assert db.SUSPECT - 0.05 <= time.monotonic() - started < db.SUSPECT + db.SLOT_WAIT + 0.05
    assert backend.connects == db.IN_FLIGHT  # the third never reached the database
    backend.release.set()
    for t in waiting:
        t.join(5)
    assert database.run(False, lambda cur: "read") == "read"
    assert (db.IN_FLIGHT, db.SLOT_WAIT) == (2, 0.05)


def test_the_stated_times():
    assert (db.DEADLINE, db.CONNECT_TIMEOUT, db.GIVE_UP) == (3.0, 2, 5.0)
    assert (sessions.HEALTH_EVERY, sessions.HEALTH_DEADLINE) == (3.0, 1.0)
    assert "statement_timeout=3000" in OPTIONS and "lock_timeout=3000" in OPTIONS
    assert KEEPALIVES["keepalives"] == 1 and KEEPALIVES["keepalives_count"] >= 1


def test_health_writes_at_most_every_HEALTH_EVERY_seconds(tmp_path, monkeypatch):
    store = Store(data_dir=tmp_path)
    writes = []
    run = store.db.run
    monkeypatch.setattr(store.db, "run", lambda write, body, **kw: (writes.append(write), run(write, body, **kw))[1])
    now = [100.0]
    monkeypatch.setattr(sessions.time, "monotonic", lambda: now[0])
    assert [store.health() for _ in range(50)] == ["ok"] * 50 and len(writes) == 1
    now[0] += sessions.HEALTH_EVERY - 0.01
    assert store.health() == "ok" and len(writes) == 1  # just inside: the answer kept
    now[0] += 0.02
    assert store.health() == "ok" and len(writes) == 2  # just past: written again


def test_health_is_down_at_once_while_the_store_hangs(tmp_path):
    store = Store(data_dir=tmp_path)
    store.db._cut({})
    started = time.monotonic()
    assert store.health() == "down" and time.monotonic() - started < 0.05


@pytest.mark.slow
def test_health_answers_within_its_deadline_whatever_the_write_waits_on(tmp_path, monkeypatch):
    """A write that blocks past the deadline without the database's deadline cutting it (a new connection to a
    hung PostgreSQL takes libpq's 2 s connect_timeout): /healthz says down after HEALTH_DEADLINE, not after the
    write. Just inside the deadline, the write's answer counts."""
    store = Store(data_dir=tmp_path)
    release = threading.Event()
    monkeypatch.setattr(store.db, "run", lambda write, body, **kw: release.wait(5))
    started = time.monotonic()
    assert store.health() == "down"
    assert sessions.HEALTH_DEADLINE <= time.monotonic() - started < sessions.HEALTH_DEADLINE + 0.2
    release.set()
    store._health = None
    monkeypatch.setattr(store.db, "run", lambda write, body, **kw: time.sleep(sessions.HEALTH_DEADLINE - 0.3))
    assert store.health() == "ok"


# ------------------------------------------------------------------ a real PostgreSQL, stopped


def cluster(url: str) -> list[int]:
    """The PostgreSQL server's processes: the postmaster and its children."""
    port = url.rsplit(":", 1)[1].split("/")[0]
    for pid_file in Path("/tmp").glob("explorer-pg-*/data/postmaster.pid"):
        lines = pid_file.read_text().splitlines()
        if lines[3] == port:
            master = int(lines[0])
            children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
            return [master, *map(int, children)]
    raise RuntimeError("no such server")


@contextmanager
def stopped(url: str):
    """The whole server stopped (SIGSTOP): its kernel still accepts and acknowledges, nothing answers."""
    pids = cluster(url)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


@pytest.mark.server
def test_a_stopped_postgresql_costs_each_operation_at_most_GIVE_UP_seconds_and_loses_nothing_acknowledged():
    with postgres_server(fsync=False) as url:
        store = Store(url)
        code, token = store.create_session()
        q = store.pose(code, token, dict(template="key", prompt="Which key?", n=12, truth=3, h=4, seed=7, head=1,
                                         query=4))
        sids = [store.join(code, f"10.9.0.{k}") for k in range(16)]
        acknowledged, took, errors = {}, [], []

        def answer(group, value):
            for s in group:
                started = time.monotonic()
                try:
                    store.answer(code, s, q, value)
                    acknowledged[s] = value
                except Unavailable:
                    pass
                except Exception as e:  # noqa: BLE001 (checked below: none)
                    errors.append(e)
                took.append(time.monotonic() - started)

        with stopped(url):
            threads = [threading.Thread(target=answer, args=(sids[i::4], 1)) for i in range(4)]
            for t in threads:
                t.start()
            started = time.monotonic()
            assert store.health() == "down" and time.monotonic() - started < 2
            for t in threads:
                t.join(20)
            assert len(took) == len(sids) and max(took) <= db.GIVE_UP + 0.5, sorted(took)[-4:]
            assert sum(t < db.SUSPECT + 0.1 for t in took) >= 8  # after the first hung ones, the rest at once
        time.sleep(db.COOL_DOWN + 0.1)
        answer(sids, 2)
        assert errors == [] and all(acknowledged[s] == 2 for s in sids)
        assert {s: store.student_view(code, s)["answers"][1] for s in sids} == acknowledged
        with psycopg.connect(url, autocommit=True) as conn:  # the server's own limits are set on each session
            assert conn.execute("SHOW statement_timeout").fetchone()[0] == "0"  # a plain connection: unset
        assert store.db.run(False, lambda cur: cur.one("SHOW statement_timeout"))[0] == "3s"
