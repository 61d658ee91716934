"""The store's API: sessions, questions and anonymous answers, each operation one transaction."""

from __future__ import annotations

import csv
import hmac
import io
import os
import secrets
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from . import schema
from .errors import Closed, Forbidden, Full, NotFound
from .postgres import Postgres
from .sqlite import SQLite

DEFAULT_TTL_HOURS = 24.0
SQLITE_FILE = "class_mode.sqlite3"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[3] / "data"

# Bounds: a live server holds at most this much, whatever clients send.
MAX_SESSIONS = 200
MAX_QUESTIONS = 100  # per session
MAX_ANSWERS = 1000  # students per question; PostgreSQL may pass it by the number of concurrent writers
MAX_CHANGES = 50  # changes of one student's answer to one question

COLUMNS = ", ".join(schema.QUESTION_COLUMNS)


class Store:
    """Class mode's state in SQLite (data_dir) or PostgreSQL (database_url).

    Safe to share between threads; each thread of each process keeps its own connection.
    """

    def __init__(self, database_url: str | None = None, data_dir: str | Path | None = None,
                 ttl_hours: float = DEFAULT_TTL_HOURS, clock=time.time):
        if database_url:
            self.db = Postgres(database_url)
        else:
            self.db = SQLite(Path(data_dir or DEFAULT_DATA_DIR) / SQLITE_FILE)
        self.ttl = ttl_hours * 3600
        self.clock = clock
        self._local = threading.local()
        with self._tx(write=True) as cur:
            if self.db.lock_schema:
                cur.execute(self.db.lock_schema)
            for statement in schema.SCHEMA.split(";"):
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
            yield Cursor(cur, self.db.param)

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
            self._local.pid = None

    def _session(self, cur, code) -> tuple[str, str]:
        """(checked code, token hash) of a live session."""
        code = schema.join_code(code)
        row = cur.one("SELECT token_hash FROM class_sessions WHERE code = {} AND expires > {}", code, self.clock())
        if row is None:
            raise NotFound("There is no session with this code: it may have ended.")
        return code, row[0]

    def _control(self, cur, code, token) -> str:
        """The checked code of a live session that this control token runs."""
        code, stored_hash = self._session(cur, code)
        given_hash = schema.token_hash(token)
        if given_hash is None or not hmac.compare_digest(given_hash, stored_hash):
            raise Forbidden("This control link does not run this session.")
        return code

    def _question(self, cur, code: str, question_id, lock: bool = False) -> dict:
        row = cur.one(f"SELECT {COLUMNS} FROM class_questions WHERE id = {{}} AND session = {{}}"
                      + (self.db.for_share if lock else ""), schema.question_id(question_id), code)
        if row is None:
            raise NotFound(schema.NO_QUESTION)
        return schema.question_row(row)

    # -------------------------------------------------------------- lecturer

    def create_session(self) -> tuple[str, str]:
        """A new session: (join code, control token). The token is shown once and never stored."""
        token = secrets.token_urlsafe(schema.TOKEN_BYTES)
        now = self.clock()
        with self._tx(write=True) as cur:
            if self.db.lock_sessions:
                cur.execute(self.db.lock_sessions)
            cur.execute("DELETE FROM class_sessions WHERE expires <= {}", now)
            if cur.one("SELECT COUNT(*) FROM class_sessions")[0] >= MAX_SESSIONS:
                raise Full("This server runs as many class sessions as it can: try again later.")
            while True:
                code = "".join(secrets.choice(schema.CODE_ALPHABET) for _ in range(schema.CODE_LENGTH))
                if cur.one("INSERT INTO class_sessions (code, token_hash, created, expires) VALUES ({}, {}, {}, {})"
                           " ON CONFLICT (code) DO NOTHING RETURNING code",
                           code, schema.token_hash(token), now, now + self.ttl):
                    return code, token

    def pose(self, code, token, kind, truth, *, prompt, h, seed, view="example", n=None,
             head=None, query=None, key=None) -> str:
        """Pose a question about the state (view, h, seed, head i, query r, key j); returns its id.

        kind "key": truth and answers are a key index 0..n-1; "head": an option 0..n-1 (a head, or
        no/yes with n = 2); "amount": a number in [0, 1] and n is None.
        """
        question = schema.question(kind, truth, prompt=prompt, view=view, h=h, seed=seed, n=n, head=head,
                                   query=query, key=key)
        question_id = secrets.token_urlsafe(12)
        with self._tx(write=True) as cur:
            code = self._control(cur, code, token)
            row = cur.one("UPDATE class_sessions SET questions = questions + 1 WHERE code = {} AND questions < {}"
                          " RETURNING questions", code, MAX_QUESTIONS)
            if row is None:
                raise Full(f"A session holds at most {MAX_QUESTIONS} questions: start a new session.")
            columns = {"id": question_id, "session": code, "number": row[0]} | question
            cur.execute(f"INSERT INTO class_questions ({', '.join(columns)})"
                        f" VALUES ({', '.join('{}' for _ in columns)})", *columns.values())
        return question_id

    def reveal(self, code, token, question_id) -> dict:
        """Close the question to answers and return its results (see results())."""
        with self._tx(write=True) as cur:
            code = self._control(cur, code, token)
            self._question(cur, code, question_id)
            cur.execute("UPDATE class_questions SET revealed = TRUE WHERE id = {}", question_id)
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
        values = [v for (v,) in cur.all("SELECT value FROM class_answers WHERE question = {} ORDER BY value",
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
            rows = cur.all(f"SELECT {', '.join('q.' + c for c in schema.QUESTION_COLUMNS)}, COUNT(a.student)"
                           " FROM class_questions q LEFT JOIN class_answers a ON a.question = q.id"
                           " WHERE q.session = {} GROUP BY q.id ORDER BY q.number", code)
        return [dict(schema.question_row(r[:-1]), count=r[-1]) for r in rows]

    def export_csv(self, code, token) -> str:
        """The session's answers as CSV, students renamed s1, s2, ... in order of first answer."""
        with self._tx(write=False) as cur:
            code = self._control(cur, code, token)
            rows = cur.all("SELECT q.number, q.kind, q.prompt, q.n, q.truth, q.revealed, a.student, a.value,"
                           " a.answered FROM class_questions q JOIN class_answers a ON a.question = q.id"
                           " WHERE q.session = {} ORDER BY q.number, a.answered, a.student", code)
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["question", "kind", "prompt", "options", "truth", "revealed", "student", "answer",
                         "answered_utc"])
        names: dict[str, str] = {}
        for number, kind, prompt, n, truth, revealed, student, value, answered in rows:
            name = names.setdefault(student, f"s{len(names) + 1}")
            writer.writerow([number, kind, prompt, n or "", schema.stored(kind, truth), bool(revealed), name,
                             schema.stored(kind, value),
                             time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(answered))])
        return out.getvalue()

    def end_session(self, code, token) -> None:
        """Delete the session, its questions and answers."""
        with self._tx(write=True) as cur:
            cur.execute("DELETE FROM class_sessions WHERE code = {}", self._control(cur, code, token))

    # --------------------------------------------------------------- students

    def student_view(self, code, student) -> dict | None:
        """The session's current question as a student may see it, or None before the first.

        Before the reveal: no truth and no other answers, only this student's own "answer" (or None).
        After it: the "truth" as well.
        """
        student = schema.student_id(student)
        with self._tx(write=False) as cur:
            code, _ = self._session(cur, code)
            row = cur.one("SELECT id FROM class_questions WHERE session = {} ORDER BY number DESC LIMIT 1", code)
            if row is None:
                return None
            q = self._question(cur, code, row[0])
            own = cur.one("SELECT value FROM class_answers WHERE question = {} AND student = {}", q["id"], student)
        answer = None if own is None else schema.stored(q["kind"], own[0])
        if not q["revealed"]:
            del q["truth"]
        return dict(q, answer=answer)

    def answer(self, code, student, question_id, value) -> int:
        """Record or change this student's answer, until the reveal. Returns the question's answer count."""
        student = schema.student_id(student)
        with self._tx(write=True) as cur:
            code, _ = self._session(cur, code)
            q = self._question(cur, code, question_id, lock=True)
            value = schema.answer(q["kind"], q["n"], value)
            if q["revealed"]:
                raise Closed("The answer has been revealed: answers are closed.")
            count = cur.one("SELECT COUNT(*) FROM class_answers WHERE question = {}", question_id)[0]
            new = cur.one("SELECT 1 FROM class_answers WHERE question = {} AND student = {}",
                          question_id, student) is None
            if new and count >= MAX_ANSWERS:
                raise Full("This question takes no more answers.")
            row = cur.one("INSERT INTO class_answers (question, student, value, answered) VALUES ({}, {}, {}, {})"
                          " ON CONFLICT (question, student) DO UPDATE SET value = excluded.value,"
                          " answered = excluded.answered, changes = class_answers.changes + 1"
                          " WHERE class_answers.changes < {} RETURNING changes",
                          question_id, student, value, self.clock(), MAX_CHANGES)
            if row is None:
                raise Full("You have changed this answer too often.")
            return count + new

    def count(self, code, question_id) -> int:
        """How many students have answered (the projector's live count)."""
        with self._tx(write=False) as cur:
            code, _ = self._session(cur, code)
            self._question(cur, code, question_id)
            return cur.one("SELECT COUNT(*) FROM class_answers WHERE question = {}", question_id)[0]

    # ------------------------------------------------------------ housekeeping

    def purge(self) -> int:
        """Delete expired sessions with their questions and answers; returns how many sessions."""
        with self._tx(write=True) as cur:
            return len(cur.all("DELETE FROM class_sessions WHERE expires <= {} RETURNING code", self.clock()))

    def size(self) -> int:
        """Bytes on disk: SQLite's file and its write-ahead log; PostgreSQL's three tables with their indexes."""
        return self.db.size(self._conn())


class Cursor:
    """A cursor that takes {} for each parameter and hands the driver its own placeholders (`param`).

    str.format puts them in: a literal brace is written {{ or }}, and any other character, ? and %
    included, reaches the database as written.
    """

    def __init__(self, cur, param: str):
        self.cur, self.param = cur, param

    def execute(self, sql: str, *params):
        self.cur.execute(sql.format(*(self.param.format(i) for i in range(1, len(params) + 1))), params)

    def one(self, sql: str, *params):
        self.execute(sql, *params)
        return self.cur.fetchone()

    def all(self, sql: str, *params) -> list:
        self.execute(sql, *params)
        return self.cur.fetchall()
