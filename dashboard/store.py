"""Shared state of class mode: sessions, questions and anonymous answers, in one database.

SQLite (WAL mode) in a file under $DATA_DIR by default, no setup needed; PostgreSQL (psycopg 3)
when $DATABASE_URL is set, so that several hosts share a session. Every operation is one
transaction, so gunicorn workers share the state and a worker restart loses nothing.
Pure Python and the database driver: no Dash. Every argument is checked here; a bad one raises
a StoreError whose message is fit to show the user, and changes nothing.

A session has a short join code for students and a long control token for the lecturer (stored
as its SHA-256, compared in constant time). The lecturer poses questions about the state on the
projector; the question keeps its true answer, which no student sees before the reveal.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import numbers
import os
import re
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

from .attention import HEAD_CHOICES, N_TOKENS

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector
CODE_LENGTH = 6
TOKEN_BYTES = 32
STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")  # the browser's random id
VIEW_NAME = re.compile(r"[a-z_]{1,32}")
KINDS = ("key", "amount", "head")  # which key (0..n-1), how much (0..1), which head or yes/no (0..n-1)
MAX_OPTIONS = 64
MAX_PROMPT = 200
MAX_SEED = 2**31 - 1
DEFAULT_TTL_HOURS = 24.0

# Bounds: a live server holds at most this much, whatever clients send.
MAX_SESSIONS = 200
MAX_QUESTIONS = 100  # per session
MAX_ANSWERS = 1000  # students per question; PostgreSQL may pass it by the number of concurrent writers
MAX_CHANGES = 50  # changes of one student's answer to one question

SQLITE_FILE = "class_mode.sqlite3"

# The schema, for both databases (SQLite takes PostgreSQL's type names). Times are Unix seconds.
SCHEMA = """
CREATE TABLE IF NOT EXISTS class_sessions (
    code TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    expires DOUBLE PRECISION NOT NULL,
    questions INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS class_sessions_expires ON class_sessions (expires);
CREATE TABLE IF NOT EXISTS class_questions (
    id TEXT PRIMARY KEY,
    session TEXT NOT NULL REFERENCES class_sessions (code) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    prompt TEXT NOT NULL,
    n INTEGER,
    truth DOUBLE PRECISION NOT NULL,
    view TEXT NOT NULL,
    h INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    head_index INTEGER,
    query_index INTEGER,
    key_index INTEGER,
    revealed BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (session, number)
);
CREATE TABLE IF NOT EXISTS class_answers (
    question TEXT NOT NULL REFERENCES class_questions (id) ON DELETE CASCADE,
    student TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    changes INTEGER NOT NULL DEFAULT 0,
    answered DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (question, student)
)
"""
QUESTION_COLUMNS = ("id", "number", "kind", "prompt", "n", "truth", "view", "h", "seed",
                    "head_index", "query_index", "key_index", "revealed")


class StoreError(Exception):
    """A request the store refuses; str(error) is a message for the user."""


class NotFound(StoreError):
    pass


class Forbidden(StoreError):
    pass


class Invalid(StoreError):
    pass


class Closed(StoreError):
    """The question is revealed (no more answers) or not yet (no results)."""


class Full(StoreError):
    pass


class RateLimited(StoreError):
    pass


# ------------------------------------------------------------------ checks


def _int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not lo <= value <= hi:
        raise Invalid(f"{name} must be a whole number from {lo} to {hi}.")
    return int(value)


def _optional_int(name: str, value, lo: int, hi: int) -> int | None:
    return None if value is None else _int(name, value, lo, hi)


def _amount(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:  # NaN fails too
        raise Invalid(f"{name} must be a number from 0 to 1.")
    return float(value)


def _value(kind: str, n: int | None, value, name: str = "The answer") -> float:
    """An answer (or the truth) for a question of this kind, as stored."""
    return _amount(name, value) if kind == "amount" else _int(name, value, 0, n - 1)


def _code(code) -> str:
    code = code.strip().upper() if isinstance(code, str) else ""
    if len(code) != CODE_LENGTH or not set(code) <= set(CODE_ALPHABET):
        raise NotFound(f"A join code is {CODE_LENGTH} letters and digits, such as ABC234.")
    return code


def _student(student) -> str:
    if not (isinstance(student, str) and STUDENT_ID.fullmatch(student)):
        raise Invalid("This browser's answer id is not valid: reload the page.")
    return student


def _stored(kind: str, value):
    """A value as read from the database: a float for "amount", else an int."""
    return float(value) if kind == "amount" else int(value)


def _question_dict(row) -> dict:
    q = dict(zip(QUESTION_COLUMNS, row))
    q["revealed"] = bool(q["revealed"])
    q["truth"] = _stored(q["kind"], q["truth"])
    return q


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --------------------------------------------------------------- databases


class _SQLite:
    placeholder = "?"
    for_share = ""  # BEGIN IMMEDIATE already serialises writers
    lock_sessions = lock_schema = ""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        # SQLite's busy handler retries after sleeps, so a waiting writer (the reveal) can be passed
        # over by this process's other threads again and again; this lock queues them instead.
        self.write_lock = threading.Lock()

    def connect(self):
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # with WAL: a killed process loses nothing; a power cut, the last commits
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    @contextmanager
    def transaction(self, conn, write: bool):
        with self.write_lock if write else nullcontext():
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn.cursor()
                conn.execute("COMMIT")
            except BaseException:
                conn.rollback()
                raise

    def size(self, conn) -> int:
        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))


class _Postgres:
    placeholder = "%s"
    for_share = " FOR SHARE"  # a reveal waits for answers in flight, and they see it once it commits
    lock_sessions = "LOCK TABLE class_sessions IN SHARE ROW EXCLUSIVE MODE"  # the session bound holds
    lock_schema = "SELECT pg_advisory_xact_lock(13)"  # workers starting at once create the tables once

    def __init__(self, url: str):
        import psycopg  # only needed with DATABASE_URL

        self.psycopg, self.url = psycopg, url

    def connect(self):
        return self.psycopg.connect(self.url, autocommit=True)

    @contextmanager
    def transaction(self, conn, write: bool):
        with conn.transaction(), conn.cursor() as cur:
            yield cur

    def size(self, conn) -> int:
        return conn.execute("SELECT pg_total_relation_size('class_sessions') + pg_total_relation_size("
                            "'class_questions') + pg_total_relation_size('class_answers')").fetchone()[0]


class Store:
    """Class mode's state in SQLite (data_dir) or PostgreSQL (database_url).

    Safe to share between threads; each thread of each process keeps its own connection.
    """

    def __init__(self, database_url: str | None = None, data_dir: str | Path | None = None,
                 ttl_hours: float = DEFAULT_TTL_HOURS, clock=time.time):
        if database_url:
            self.db = _Postgres(database_url)
        else:
            self.db = _SQLite(Path(data_dir or Path(__file__).resolve().parents[1] / "data") / SQLITE_FILE)
        self.ttl = ttl_hours * 3600
        self.clock = clock
        self._local = threading.local()
        with self._tx(write=True) as cur:
            if self.db.lock_schema:
                cur.execute(self.db.lock_schema)
            for statement in SCHEMA.split(";"):
                cur.execute(statement)

    @classmethod
    def from_env(cls) -> Store:
        """The store $DATABASE_URL, $DATA_DIR and $CLASS_SESSION_HOURS say."""
        return cls(os.environ.get("DATABASE_URL"), os.environ.get("DATA_DIR"),
                   float(os.environ.get("CLASS_SESSION_HOURS", DEFAULT_TTL_HOURS)))

    # One connection per thread and process: a connection never crosses a fork.
    def _conn(self):
        local = self._local
        if getattr(local, "pid", None) != os.getpid() or getattr(local.conn, "closed", False):
            local.conn, local.pid = self.db.connect(), os.getpid()
        return local.conn

    @contextmanager
    def _tx(self, write: bool):
        with self.db.transaction(self._conn(), write) as cur:
            yield _Cursor(cur, self.db.placeholder)

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
            self._local.pid = None

    def _session(self, cur, code) -> tuple[str, str]:
        """(checked code, token hash) of a live session."""
        code = _code(code)
        row = cur.one("SELECT token_hash FROM class_sessions WHERE code = ? AND expires > ?", code, self.clock())
        if row is None:
            raise NotFound("There is no session with this code: it may have ended.")
        return code, row[0]

    def _control(self, cur, code, token) -> str:
        """The checked code of a live session that this control token runs."""
        code, token_hash = self._session(cur, code)
        if not (isinstance(token, str) and len(token) <= 100 and hmac.compare_digest(_hash(token), token_hash)):
            raise Forbidden("This control link does not run this session.")
        return code

    def _question(self, cur, code: str, question_id, lock: bool = False) -> dict:
        if not isinstance(question_id, str) or len(question_id) > 32:
            raise NotFound("There is no such question in this session.")
        row = cur.one(f"SELECT {', '.join(QUESTION_COLUMNS)} FROM class_questions WHERE id = ? AND session = ?"
                      + (self.db.for_share if lock else ""), question_id, code)
        if row is None:
            raise NotFound("There is no such question in this session.")
        return _question_dict(row)

    # -------------------------------------------------------------- lecturer

    def create_session(self) -> tuple[str, str]:
        """A new session: (join code, control token). The token is shown once and never stored."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        now = self.clock()
        with self._tx(write=True) as cur:
            if self.db.lock_sessions:
                cur.execute(self.db.lock_sessions)
            cur.execute("DELETE FROM class_sessions WHERE expires <= ?", now)
            if cur.one("SELECT COUNT(*) FROM class_sessions")[0] >= MAX_SESSIONS:
                raise Full("This server runs as many class sessions as it can: try again later.")
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if cur.one("INSERT INTO class_sessions (code, token_hash, created, expires) VALUES (?, ?, ?, ?)"
                           " ON CONFLICT (code) DO NOTHING RETURNING code", code, _hash(token), now, now + self.ttl):
                    return code, token

    def pose(self, code, token, kind, truth, *, prompt, h, seed, view="example", n=None,
             head=None, query=None, key=None) -> str:
        """Pose a question about the state (view, h, seed, head i, query r, key j); returns its id.

        kind "key": truth and answers are a key index 0..n-1; "head": an option 0..n-1 (a head, or
        no/yes with n = 2); "amount": a number in [0, 1] and n is None.
        """
        if kind not in KINDS:
            raise Invalid(f"A question is one of: {', '.join(KINDS)}.")
        if kind == "amount" and n is not None:
            raise Invalid("A question about an amount has no options.")
        n = None if kind == "amount" else _int("The number of options", n, 2, MAX_OPTIONS)
        truth = _value(kind, n, truth, "The true answer")
        if not (isinstance(prompt, str) and 0 < len(prompt.strip()) <= MAX_PROMPT):
            raise Invalid(f"The question needs a text of at most {MAX_PROMPT} characters.")
        if not (isinstance(view, str) and VIEW_NAME.fullmatch(view)):
            raise Invalid("Unknown view.")
        if isinstance(h, bool) or not isinstance(h, numbers.Integral) or h not in HEAD_CHOICES:
            raise Invalid(f"h must be one of {', '.join(map(str, HEAD_CHOICES))}.")
        if (kind == "key" and key is not None) or (kind == "head" and head is not None):
            raise Invalid("A question cannot name its own answer: students would see it.")
        seed = _int("The seed", seed, 0, MAX_SEED)
        head = _optional_int("The head", head, 0, h - 1)
        query = _optional_int("The query", query, 0, N_TOKENS - 1)
        key = _optional_int("The key", key, 0, N_TOKENS - 1)
        question_id = secrets.token_urlsafe(12)
        with self._tx(write=True) as cur:
            code = self._control(cur, code, token)
            row = cur.one("UPDATE class_sessions SET questions = questions + 1 WHERE code = ? AND questions < ?"
                          " RETURNING questions", code, MAX_QUESTIONS)
            if row is None:
                raise Full(f"A session holds at most {MAX_QUESTIONS} questions: start a new session.")
            cur.execute("INSERT INTO class_questions (id, session, number, kind, prompt, n, truth, view, h, seed,"
                        " head_index, query_index, key_index) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        question_id, code, row[0], kind, prompt.strip(), n, truth, view, int(h), seed,
                        head, query, key)
        return question_id

    def reveal(self, code, token, question_id) -> dict:
        """Close the question to answers and return its results (see results())."""
        with self._tx(write=True) as cur:
            code = self._control(cur, code, token)
            self._question(cur, code, question_id)
            cur.execute("UPDATE class_questions SET revealed = TRUE WHERE id = ?", question_id)
            return self._results(cur, code, question_id)

    def results(self, code, token, question_id) -> dict:
        """After the reveal: the question with its truth, the answer count and their distribution:
        "counts" per option for "key" and "head", the sorted "values" for "amount"."""
        with self._tx(write=False) as cur:
            return self._results(cur, self._control(cur, code, token), question_id)

    def _results(self, cur, code: str, question_id) -> dict:
        q = self._question(cur, code, question_id)
        if not q["revealed"]:
            raise Closed("The answers are shown after the reveal.")
        values = [v for (v,) in cur.all("SELECT value FROM class_answers WHERE question = ? ORDER BY value",
                                        question_id)]
        q["count"] = len(values)
        if q["kind"] == "amount":
            q["values"] = values
        else:
            q["counts"] = [0] * q["n"]
            for v in values:
                q["counts"][int(v)] += 1
        return q

    def questions(self, code, token) -> list[dict]:
        """Every question of the session, in order, with its truth and live answer count (the lecturer's list)."""
        with self._tx(write=False) as cur:
            code = self._control(cur, code, token)
            rows = cur.all(f"SELECT {', '.join('q.' + c for c in QUESTION_COLUMNS)}, COUNT(a.student)"
                           " FROM class_questions q LEFT JOIN class_answers a ON a.question = q.id"
                           " WHERE q.session = ? GROUP BY q.id ORDER BY q.number", code)
        return [dict(_question_dict(r[:-1]), count=r[-1]) for r in rows]

    def export_csv(self, code, token) -> str:
        """The session's answers as CSV, students renamed s1, s2, ... in order of first answer."""
        with self._tx(write=False) as cur:
            code = self._control(cur, code, token)
            rows = cur.all("SELECT q.number, q.kind, q.prompt, q.n, q.truth, q.revealed, a.student, a.value,"
                           " a.answered FROM class_questions q JOIN class_answers a ON a.question = q.id"
                           " WHERE q.session = ? ORDER BY q.number, a.answered, a.student", code)
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["question", "kind", "prompt", "options", "truth", "revealed", "student", "answer",
                         "answered_utc"])
        names: dict[str, str] = {}
        for number, kind, prompt, n, truth, revealed, student, value, answered in rows:
            name = names.setdefault(student, f"s{len(names) + 1}")
            writer.writerow([number, kind, prompt, n or "", _stored(kind, truth), bool(revealed), name,
                             _stored(kind, value),
                             time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(answered))])
        return out.getvalue()

    def end_session(self, code, token) -> None:
        """Delete the session, its questions and answers."""
        with self._tx(write=True) as cur:
            cur.execute("DELETE FROM class_sessions WHERE code = ?", self._control(cur, code, token))

    # --------------------------------------------------------------- students

    def student_view(self, code, student) -> dict | None:
        """The session's current question as a student may see it, or None before the first.

        Before the reveal: no truth and no other answers, only this student's own "answer" (or None).
        After it: the "truth" as well.
        """
        student = _student(student)
        with self._tx(write=False) as cur:
            code, _ = self._session(cur, code)
            row = cur.one("SELECT id FROM class_questions WHERE session = ? ORDER BY number DESC LIMIT 1", code)
            if row is None:
                return None
            q = self._question(cur, code, row[0])
            own = cur.one("SELECT value FROM class_answers WHERE question = ? AND student = ?", q["id"], student)
        answer = None if own is None else _stored(q["kind"], own[0])
        if not q["revealed"]:
            del q["truth"]
        return dict(q, answer=answer)

    def answer(self, code, student, question_id, value) -> int:
        """Record or change this student's answer, until the reveal. Returns the question's answer count."""
        student = _student(student)
        with self._tx(write=True) as cur:
            code, _ = self._session(cur, code)
            q = self._question(cur, code, question_id, lock=True)
            value = _value(q["kind"], q["n"], value)
            if q["revealed"]:
                raise Closed("The answer has been revealed: answers are closed.")
            count = cur.one("SELECT COUNT(*) FROM class_answers WHERE question = ?", question_id)[0]
            new = cur.one("SELECT 1 FROM class_answers WHERE question = ? AND student = ?",
                          question_id, student) is None
            if new and count >= MAX_ANSWERS:
                raise Full("This question takes no more answers.")
            row = cur.one("INSERT INTO class_answers (question, student, value, answered) VALUES (?, ?, ?, ?)"
                          " ON CONFLICT (question, student) DO UPDATE SET value = excluded.value,"
                          " answered = excluded.answered, changes = class_answers.changes + 1"
                          " WHERE class_answers.changes < ? RETURNING changes",
                          question_id, student, value, self.clock(), MAX_CHANGES)
            if row is None:
                raise Full("You have changed this answer too often.")
            return count + new

    def count(self, code, question_id) -> int:
        """How many students have answered (the projector's live count)."""
        with self._tx(write=False) as cur:
            code, _ = self._session(cur, code)
            self._question(cur, code, question_id)
            return cur.one("SELECT COUNT(*) FROM class_answers WHERE question = ?", question_id)[0]

    # ------------------------------------------------------------ housekeeping

    def purge(self) -> int:
        """Delete expired sessions with their questions and answers; returns how many sessions."""
        with self._tx(write=True) as cur:
            return len(cur.all("DELETE FROM class_sessions WHERE expires <= ? RETURNING code", self.clock()))

    def size(self) -> int:
        """Bytes on disk: SQLite's file and its write-ahead log; PostgreSQL's three tables with their indexes."""
        return self.db.size(self._conn())


class _Cursor:
    """A cursor that takes "?" placeholders on either database."""

    def __init__(self, cur, placeholder: str):
        self.cur, self.placeholder = cur, placeholder

    def execute(self, sql: str, *params):
        self.cur.execute(sql.replace("?", self.placeholder), params)

    def one(self, sql: str, *params):
        self.execute(sql, *params)
        return self.cur.fetchone()

    def all(self, sql: str, *params) -> list:
        self.execute(sql, *params)
        return self.cur.fetchall()


class RateLimiter:
    """Answers per client (e.g. its address) in this process: a token bucket of `burst`, refilled at
    `rate` per second. Each gunicorn worker keeps its own, so a client gets at most workers x this."""

    MAX_CLIENTS = 10_000

    def __init__(self, rate: float = 2.0, burst: int = 10, clock=time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def check(self, client: str) -> None:
        """Take one answer from the client's bucket, or raise RateLimited."""
        now = self.clock()
        with self._lock:
            if len(self._buckets) >= self.MAX_CLIENTS:  # forget clients whose buckets are full again
                self._buckets = {c: (t, s) for c, (t, s) in self._buckets.items()
                                 if t + (now - s) * self.rate < self.burst}
                if len(self._buckets) >= self.MAX_CLIENTS:  # that many busy clients: start afresh
                    self._buckets.clear()
            tokens, since = self._buckets.get(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - since) * self.rate)
            if tokens < 1:
                self._buckets[client] = (tokens, now)
                raise RateLimited("Too many answers at once: wait a moment.")
            self._buckets[client] = (tokens - 1, now)
