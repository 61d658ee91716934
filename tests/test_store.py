"""Class mode's store, against SQLite and a real PostgreSQL server (tests/pg.py)."""

import csv
import io
import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import psycopg
import pytest

from dashboard.classmode.store import Closed, Forbidden, Full, Invalid, NotFound, RateLimited, RateLimiter, Store
from dashboard.classmode.store import SQLITE_FILE, schema, sessions
from tests.conftest import ROOT
from tests.pg import postgres_server

STUDENTS = [f"student-{i:04d}-{'x' * 8}" for i in range(200)]


class Clock:
    def __init__(self):
        self.t = 1.9e9

    def __call__(self):
        return self.t


@pytest.fixture(scope="module")
def pg_server():
    with postgres_server(fsync=False) as url:
        yield url


_databases = itertools.count()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.server)])
def database(request, tmp_path):
    """Store arguments for an empty database: (database_url, data_dir)."""
    if request.param == "sqlite":
        return None, tmp_path
    server = request.getfixturevalue("pg_server")
    name = f"test_{next(_databases)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name, None


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(database, clock):
    return Store(*database, clock=clock)


def rows(store, table: str) -> list:
    """Every row of a table, read directly from the database."""
    with store._tx(write=False) as cur:
        return cur.all(f"SELECT * FROM {table} ORDER BY 1, 2")


def key_question(store, code, token, truth=3):
    return store.pose(code, token, "key", truth, prompt="In head 2, which key will query 5 attend to most?",
                      h=4, seed=7, n=12, head=1, query=4)


def test_a_session_has_a_short_code_and_a_long_token_stored_only_as_a_hash(store):
    code, token = store.create_session()
    code2, token2 = store.create_session()
    assert len(code) == 6 and set(code) <= set("ABCDEFGHJKMNPQRSTUVWXYZ23456789") and code != code2
    assert len(token) >= 43 and token != token2
    [(stored_code, token_hash, *_), _] = sorted(rows(store, "class_sessions"), key=lambda r: r[0] != code)
    assert stored_code == code and token not in token_hash and token_hash == schema.token_hash(token)
    assert store.questions(code.lower() + " ", token) == []  # a code typed in lower case, with a space


@pytest.mark.parametrize("forged", [None, "", "x" * 43, 12345, "x" * 10_000, ["token"]])
def test_only_the_control_token_runs_a_session(store, forged):
    code, token = store.create_session()
    other_code, other_token = store.create_session()
    q = key_question(store, code, token)
    store.answer(code, STUDENTS[0], q, 2)
    before = rows(store, "class_questions"), rows(store, "class_answers"), rows(store, "class_sessions")
    for bad in (forged, other_token):
        with pytest.raises(Forbidden):
            key_question(store, code, bad)
        for call in (store.reveal, store.results):
            with pytest.raises(Forbidden):
                call(code, bad, q)
        for call in (store.questions, store.export_csv, store.end_session):
            with pytest.raises(Forbidden):
                call(code, bad)
    assert (rows(store, "class_questions"), rows(store, "class_answers"), rows(store, "class_sessions")) == before
    assert store.count(code, q) == 1


@pytest.mark.parametrize("code", ["ZZZZZZ", "abc", "", None, 7, "ABC23O", "A" * 300])
def test_an_unknown_or_malformed_join_code_is_not_found(store, code):
    real, token = store.create_session()
    q = key_question(store, real, token)
    with pytest.raises(NotFound):
        store.student_view(code, STUDENTS[0])
    with pytest.raises(NotFound):
        store.answer(code, STUDENTS[0], q, 1)
    with pytest.raises(NotFound):
        store.count(code, q)
    assert rows(store, "class_answers") == []


BAD_QUESTIONS = [
    dict(kind="guess"),
    dict(kind="key", n=None),
    dict(kind="key", n=1),
    dict(kind="key", n=65),
    dict(kind="key", n=12.0),
    dict(kind="key", truth=12),
    dict(kind="key", truth=-1),
    dict(kind="key", truth=2.0),
    dict(kind="key", truth=True),
    dict(kind="amount", n=None, truth=float("nan")),
    dict(kind="amount", n=None, truth=1.5),
    dict(kind="amount", n=None, truth="0.5"),
    dict(kind="amount", n=3, truth=0.5),
    dict(kind="head", n=2, truth=2),
    dict(prompt=""),
    dict(prompt="   "),
    dict(prompt="x" * 201),
    dict(prompt=None),
    dict(h=3),
    dict(h=True),
    dict(h="8"),
    dict(h=4.0),
    dict(seed=-1),
    dict(seed=2**31),
    dict(seed="0"),
    dict(head=4),  # h = 4: heads 0..3
    dict(head=-1),
    dict(query=12),
    dict(key=1.5),
    dict(view="Example"),
    dict(view="x" * 40),
    dict(kind="key", key=3),  # the answer, in the state students see
    dict(kind="head", n=4, truth=1, head=1),
]


@pytest.mark.parametrize("bad", BAD_QUESTIONS, ids=[repr(b)[:40] for b in BAD_QUESTIONS])
def test_a_bad_question_is_refused_and_nothing_changes(store, bad):
    code, token = store.create_session()
    args = dict(kind="key", truth=3, prompt="Which key?", h=4, seed=7, n=12, head=1, query=4, key=None,
                view="example") | bad
    with pytest.raises(Invalid):
        store.pose(code, token, args.pop("kind"), args.pop("truth"), **args)
    assert store.questions(code, token) == [] and rows(store, "class_sessions")[0][4] == 0


def test_the_student_view_has_no_truth_before_the_reveal(store):
    code, token = store.create_session()
    assert store.student_view(code, STUDENTS[0]) is None
    q = key_question(store, code, token, truth=9)
    store.answer(code, STUDENTS[1], q, 9)
    seen = store.student_view(code, STUDENTS[0])
    assert "truth" not in seen and "counts" not in seen and "count" not in seen and seen["answer"] is None
    assert 9 not in seen.values() and not seen["revealed"]
    assert (seen["kind"], seen["n"], seen["h"], seen["seed"], seen["head_index"], seen["query_index"]) == \
        ("key", 12, 4, 7, 1, 4)
    with pytest.raises(Closed):
        store.results(code, token, q)
    store.answer(code, STUDENTS[0], q, 4)
    assert store.student_view(code, STUDENTS[0])["answer"] == 4
    store.reveal(code, token, q)
    seen = store.student_view(code, STUDENTS[0])
    assert seen["revealed"] and seen["truth"] == 9 and seen["answer"] == 4 and "counts" not in seen


def test_one_answer_per_student_changeable_until_the_reveal(store):
    code, token = store.create_session()
    q = key_question(store, code, token)
    assert store.answer(code, STUDENTS[0], q, 1) == 1
    assert store.answer(code, STUDENTS[0], q, 5) == 1  # a change, not a second answer
    assert store.answer(code, STUDENTS[1], q, 5) == 2
    assert store.answer(code, STUDENTS[2], q, 11) == 3
    assert store.count(code, q) == 3
    result = store.reveal(code, token, q)
    assert result["truth"] == 3 and result["count"] == 3
    assert result["counts"] == [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1]
    for value in (5, 3):  # a replay after the reveal, or a change to the truth
        with pytest.raises(Closed):
            store.answer(code, STUDENTS[0], q, value)
    with pytest.raises(Closed):
        store.answer(code, STUDENTS[3], q, 3)
    assert store.results(code, token, q)["counts"] == result["counts"] and store.count(code, q) == 3


@pytest.mark.parametrize("kind, n, value", [
    ("key", 12, 12), ("key", 12, -1), ("key", 12, 3.0), ("key", 12, "3"), ("key", 12, True), ("key", 12, None),
    ("key", 12, [1]), ("key", 12, 10**30), ("head", 2, 2), ("head", 8, -1),
    ("amount", None, float("nan")), ("amount", None, float("inf")), ("amount", None, -0.01),
    ("amount", None, 1.0001), ("amount", None, "0.5"), ("amount", None, False), ("amount", None, None),
])
def test_a_forged_answer_is_refused_and_nothing_changes(store, kind, n, value):
    code, token = store.create_session()
    truth = 0.5 if kind == "amount" else 1
    q = store.pose(code, token, kind, truth, prompt="?", h=8, seed=0, n=n)
    store.answer(code, STUDENTS[0], q, truth)
    before = rows(store, "class_answers")
    for student in STUDENTS[:2]:
        with pytest.raises(Invalid):
            store.answer(code, student, q, value)
    assert rows(store, "class_answers") == before


@pytest.mark.parametrize("student", ["short", "x" * 65, "a b c d e f g h i j", None, 1234567890123456789, ""])
def test_a_forged_student_id_is_refused(store, student):
    code, token = store.create_session()
    q = key_question(store, code, token)
    with pytest.raises(Invalid):
        store.answer(code, student, q, 1)
    with pytest.raises(Invalid):
        store.student_view(code, student)
    assert rows(store, "class_answers") == []


def test_a_question_id_from_another_session_is_not_found(store):
    code, token = store.create_session()
    other, other_token = store.create_session()
    q = key_question(store, code, token)
    q_other = key_question(store, other, other_token)
    for forged in (q_other, "nonsense", None, 3, "x" * 1000):
        with pytest.raises(NotFound):
            store.answer(code, STUDENTS[0], forged, 1)
        with pytest.raises(NotFound):
            store.count(code, forged)
        with pytest.raises(NotFound):
            store.reveal(code, token, forged)
    assert rows(store, "class_answers") == [] and not any(r["revealed"] for r in store.questions(other, other_token))
    store.answer(code, STUDENTS[0], q, 1)
    assert store.count(code, q) == 1 and store.count(other, q_other) == 0


def test_amount_and_yes_no_questions(store):
    code, token = store.create_session()
    amount = store.pose(code, token, "amount", 0.25, prompt="How large is A(2)_5,7?", h=4, seed=7, head=1,
                        query=4, key=6)
    yes_no = store.pose(code, token, "head", 1, prompt="Will h = 1 get below the dashed line?", view="lab",
                        h=1, seed=0, n=2)
    assert store.student_view(code, STUDENTS[0])["id"] == yes_no  # students see the current question
    for student, value in zip(STUDENTS, [0, 1, 0.5, 0.25]):
        store.answer(code, student, amount, value)
        store.answer(code, student, yes_no, int(value > 0.3))
    assert store.reveal(code, token, amount)["values"] == [0.0, 0.25, 0.5, 1.0]
    assert store.reveal(code, token, yes_no)["counts"] == [2, 2]
    assert [(q["number"], q["kind"], q["count"], q["truth"]) for q in store.questions(code, token)] == \
        [(1, "amount", 4, 0.25), (2, "head", 4, 1)]


def test_the_csv_export_is_anonymous(store):
    code, token = store.create_session()
    q1 = key_question(store, code, token)
    q2 = store.pose(code, token, "amount", 0.5, prompt="How much, =1+1?", h=8, seed=3)
    store.answer(code, STUDENTS[7], q1, 3)
    store.answer(code, STUDENTS[8], q1, 4)
    store.answer(code, STUDENTS[7], q2, 0.75)
    store.reveal(code, token, q1)
    text = store.export_csv(code, token)
    assert not any(s in text for s in STUDENTS) and token not in text
    table = list(csv.DictReader(io.StringIO(text)))
    assert [(r["question"], r["student"], r["answer"], r["truth"], r["revealed"]) for r in table] == [
        ("1", "s1", "3", "3", "True"), ("1", "s2", "4", "3", "True"), ("2", "s1", "0.75", "0.5", "False")]
    assert table[2]["prompt"] == "How much, =1+1?" and table[0]["options"] == "12"


def test_ending_a_session_deletes_it(store):
    code, token = store.create_session()
    other, other_token = store.create_session()
    q = key_question(store, code, token)
    store.answer(code, STUDENTS[0], q, 1)
    key_question(store, other, other_token)
    store.end_session(code, token)
    for call in (lambda: store.student_view(code, STUDENTS[0]), lambda: store.answer(code, STUDENTS[0], q, 2),
                 lambda: store.questions(code, token), lambda: store.end_session(code, token)):
        with pytest.raises(NotFound):
            call()
    assert rows(store, "class_answers") == [] and len(rows(store, "class_questions")) == 1
    assert [r[0] for r in rows(store, "class_sessions")] == [other]


def test_sessions_expire_and_are_purged(database, clock):
    store = Store(*database, ttl_hours=2, clock=clock)
    code, token = store.create_session()
    q = key_question(store, code, token)
    store.answer(code, STUDENTS[0], q, 1)
    clock.t += 2 * 3600 - 1
    later, later_token = store.create_session()
    assert store.count(code, q) == 1
    clock.t += 1
    for call in (lambda: store.count(code, q), lambda: store.answer(code, STUDENTS[1], q, 1),
                 lambda: store.questions(code, token)):
        with pytest.raises(NotFound):
            call()
    assert store.questions(later, later_token) == []
    assert store.purge() == 1 and store.purge() == 0
    assert [r[0] for r in rows(store, "class_sessions")] == [later] and rows(store, "class_answers") == []
    clock.t += 2 * 3600  # `later` expires
    store.create_session()  # a new session purges the expired ones
    assert later not in [r[0] for r in rows(store, "class_sessions")]


def test_the_session_lifetime_comes_from_the_environment(database, clock, monkeypatch):
    url, data_dir = database
    monkeypatch.setenv("CLASS_SESSION_HOURS", "0.5")
    monkeypatch.setenv("DATA_DIR", str(data_dir)) if data_dir else monkeypatch.setenv("DATABASE_URL", url)
    store = Store.from_env()
    assert store.ttl == 1800 and type(store.db) is (sessions.SQLite if data_dir else sessions.Postgres)


def test_everything_is_bounded(store, monkeypatch):
    monkeypatch.setattr(sessions, "MAX_SESSIONS", 3)
    monkeypatch.setattr(sessions, "MAX_QUESTIONS", 2)
    monkeypatch.setattr(sessions, "MAX_ANSWERS", 3)
    monkeypatch.setattr(sessions, "MAX_CHANGES", 2)
    code, token = store.create_session()
    store.create_session()
    store.create_session()
    with pytest.raises(Full):
        store.create_session()
    assert len(rows(store, "class_sessions")) == 3
    key_question(store, code, token)
    q = key_question(store, code, token)
    with pytest.raises(Full):
        key_question(store, code, token)
    assert len(store.questions(code, token)) == 2
    for student in STUDENTS[:3]:
        store.answer(code, student, q, 1)
    with pytest.raises(Full):
        store.answer(code, STUDENTS[3], q, 1)
    store.answer(code, STUDENTS[0], q, 2)  # a student already counted may still change the answer ...
    store.answer(code, STUDENTS[0], q, 3)
    with pytest.raises(Full):  # ... MAX_CHANGES times
        store.answer(code, STUDENTS[0], q, 4)
    assert store.reveal(code, token, q)["counts"][:4] == [0, 2, 0, 1]


def test_threads_answering_at_once_are_each_counted_once(store):
    code, token = store.create_session()
    q = key_question(store, code, token)

    def answer(students):
        for s in students:
            store.answer(code, s, q, 1)
            store.answer(code, s, q, len(s) % 12)

    threads = [threading.Thread(target=answer, args=(STUDENTS[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.count(code, q) == 200 and sum(store.reveal(code, token, q)["counts"]) == 200


@pytest.mark.parametrize("round", range(2))
def test_no_answer_slips_in_after_the_reveal(store, round, monkeypatch):
    monkeypatch.setattr(sessions, "MAX_CHANGES", 10**6)
    code, token = store.create_session()
    q = key_question(store, code, token)
    last, closed, errors = {}, [], []  # the last accepted answer of each student
    go = threading.Barrier(9, timeout=60)

    def answer(students):
        """Answer and change answers until the reveal refuses one (or 40 rounds, if it never does)."""
        go.wait()
        for k, s in enumerate(itertools.islice(itertools.cycle(students), 40 * len(students))):
            try:
                store.answer(code, s, q, k % 12)
            except Closed:
                return closed.append(s)
            except Exception as e:
                return errors.append(e)
            last[s] = k % 12

    threads = [threading.Thread(target=answer, args=(STUDENTS[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    go.wait()
    deadline = time.monotonic() + 60
    while store.count(code, q) < 20:  # reveal while answers are coming in
        assert time.monotonic() < deadline and not errors, f"answers stopped short: {errors}"
    revealed = store.reveal(code, token, q)
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads) and errors == [] and len(closed) == 8
    assert revealed["counts"] == [list(last.values()).count(v) for v in range(12)]
    assert revealed["count"] == len(last) == store.count(code, q)


def test_a_query_may_hold_a_literal_question_mark_or_percent_sign(store):
    """Placeholders are the driver's own: a ? or % written in the SQL is SQL, not a parameter."""
    code, token = store.create_session()
    store.pose(code, token, "amount", 0.5, prompt="Does 50% of the weight go to one key?", h=4, seed=7)
    key_question(store, code, token)  # its prompt ends in ? too, without 50%
    with store._tx(write=False) as cur:
        assert cur.all("SELECT number, '?%' FROM class_questions WHERE prompt LIKE '%50%?' AND session = {}",
                       code) == [(1, "?%")]


def test_the_rate_limiter_refuses_bursts_per_client():
    clock = Clock()
    limit = RateLimiter(rate=2, burst=3, clock=clock)
    for _ in range(3):
        limit.check("10.0.0.1")
    with pytest.raises(RateLimited, match="Too many answers at once") as refused:
        limit.check("10.0.0.1")
    assert refused.value.retry_after == 0.5  # when the next answer is back
    limit.check("10.0.0.2")
    clock.t += 0.5
    limit.check("10.0.0.1")
    with pytest.raises(RateLimited):
        limit.check("10.0.0.1")


def test_the_rate_limiter_forgets_clients_and_stays_bounded(monkeypatch):
    monkeypatch.setattr(RateLimiter, "MAX_CLIENTS", 10)
    clock = Clock()
    limit = RateLimiter(rate=1, burst=2, clock=clock)
    limit.check("busy")
    limit.check("busy")
    for i in range(20):
        clock.t += 1
        limit.check(f"client {i}")
    assert len(limit._buckets) <= 10
    assert "busy" not in limit._buckets  # refilled long ago
    for i in range(25):  # more busy clients than it keeps: it forgets, and stays bounded
        limit.check(f"other {i}")
        assert len(limit._buckets) <= 10


# A second process: it answers for students i0..i1 and prints each student once the answer is stored.
CHILD = """
import sys
from dashboard.classmode.store import Store
store = Store.from_env()
code, q, i0, i1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for i in range(i0, i1):
    student = f"student-{i:04d}-{'x' * 8}"
    store.answer(code, student, q, i % 12)
    print(student, flush=True)
"""


def child(database, code, q, i0, i1) -> subprocess.Popen:
    url, data_dir = database
    env = {**os.environ, "PYTHONPATH": str(ROOT)} | ({"DATABASE_URL": url} if url else {"DATA_DIR": str(data_dir)})
    return subprocess.Popen([sys.executable, "-c", CHILD, code, q, str(i0), str(i1)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)


def test_processes_share_a_session_and_answers_survive_a_killed_process(database):
    store = Store(*database)
    code, token = store.create_session()
    q = key_question(store, code, token)
    a, b = child(database, code, q, 0, 100), child(database, code, q, 100, 200)
    assert a.wait(60) == 0 and b.wait(60) == 0
    assert store.count(code, q) == 200

    q2 = key_question(store, code, token)
    killed = child(database, code, q2, 0, 10**6)  # would go on far longer than the test
    confirmed = [killed.stdout.readline().strip() for _ in range(50)]
    killed.send_signal(signal.SIGKILL)
    killed.wait(10)
    confirmed += killed.stdout.read().split()  # printed before the kill
    killed.stdout.close()
    assert killed.returncode == -signal.SIGKILL
    restarted = Store(*database)  # as a new worker would
    counted = restarted.count(code, q2)
    assert len(confirmed) <= counted <= len(confirmed) + 1  # at most the one in flight was not printed
    view = {s: restarted.student_view(code, s)["answer"] for s in confirmed}
    assert view == {s: int(s.split("-")[1]) % 12 for s in confirmed}
    restarted.answer(code, confirmed[0], q2, 11)
    assert restarted.reveal(code, token, q2)["count"] == counted


def test_the_sqlite_store_needs_no_setup_and_uses_wal(tmp_path):
    data_dir = tmp_path / "new" / "folder"
    store = Store(data_dir=data_dir)
    store.create_session()
    path = data_dir / SQLITE_FILE
    assert path.exists() and store.size() >= path.stat().st_size > 0
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_connection_is_not_shared_across_a_fork(store):
    """gunicorn --preload forks workers after the app is loaded: each must open its own connection."""
    code, token = store.create_session()
    parent_conn = store._conn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child answers through the same Store object, then exits at once
        ok = False
        try:
            ok = store._conn() is not parent_conn and store.count(code, key_question(store, code, token)) == 0
        finally:
            os.write(write, b"1" if ok else b"0")
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    assert store._conn() is parent_conn and len(store.questions(code, token)) == 1


def test_the_size_on_disk_grows_with_the_answers(store):
    code, token = store.create_session()
    q = key_question(store, code, token)
    before = store.size()
    for student in STUDENTS:
        store.answer(code, student, q, 1)
    assert store.size() > before > 0
