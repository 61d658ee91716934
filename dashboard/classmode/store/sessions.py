"""The store's API: sessions (this module), the lecturer's questions (lecture.py) and the students
(students.py), each operation one transaction."""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from pathlib import Path

from ...i18n import _, ngettext
from . import schema
from .db import Database
from .errors import Forbidden, Full, NotFound, Unavailable
from .lecture import Lecture
from .postgres import Postgres
from .sqlite import SQLite
from .students import Students

DEFAULT_TTL_HOURS = 24.0  # a session ends this long after its start, whatever happens in it
DEFAULT_IDLE_HOURS = 3.0  # ... or this long after anything last happened in it (a pose, a join, an answer)
TOUCH_EVERY = 60.0  # seconds: a session's last activity is written at most this often
SQLITE_FILE = "class_mode.sqlite3"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[3] / "data"

# Bounds: a live server holds at most this much, whatever clients send.
MAX_SESSIONS = 200
MAX_SESSIONS_PER_OWNER = 10  # live sessions started from one address
HEALTH_EVERY = 3.0  # seconds: /healthz's write check is tried at most this often in a process
HEALTH_DEADLINE = 1.0  # seconds: /healthz says 'down' when the write takes longer (it answers within 2 s on a busy server)


class Store(Lecture, Students):
    """Class mode's state in SQLite (data_dir) or PostgreSQL (database_url).

    Safe to share between threads; each thread of each process keeps its own connection. A database that
    cannot be reached or cannot write raises Unavailable, here and in every operation.
    """

    def __init__(self, database_url: str | None = None, data_dir: str | Path | None = None,
                 ttl_hours: float = DEFAULT_TTL_HOURS, clock=time.time, idle_hours: float = DEFAULT_IDLE_HOURS):
        backend = Postgres(database_url) if database_url else SQLite(Path(data_dir or DEFAULT_DATA_DIR) / SQLITE_FILE)
        self.db = Database(backend)
        self.ttl, self.idle = ttl_hours * 3600, idle_hours * 3600
        self.clock = clock
        self._health, self._health_lock = None, threading.Lock()  # (when, 'ok' or 'down'): the last write check
        self.db.run(True, self._prepare)

    def _prepare(self, cur) -> None:
        """The tables, once; those of another version are dropped first."""
        if self.db.backend.lock_schema:
            cur.execute(self.db.backend.lock_schema)
        statements = schema.SCHEMA.split(";")
        cur.execute(statements[0])
        row = cur.one("SELECT version FROM class_schema")
        if row is None or row[0] != schema.VERSION:
            for table in schema.TABLES[:-1]:
                cur.execute(f"DROP TABLE IF EXISTS {table}")
            cur.execute("DELETE FROM class_schema")
            cur.execute("INSERT INTO class_schema (version) VALUES ({})", schema.VERSION)
        for statement in statements[1:]:
            cur.execute(statement)

    @classmethod
    def from_env(cls) -> Store:
        """The store $DATABASE_URL, $DATA_DIR, $CLASS_SESSION_HOURS and $CLASS_IDLE_HOURS say."""
        return cls(os.environ.get("DATABASE_URL"), os.environ.get("DATA_DIR"),
                   float(os.environ.get("CLASS_SESSION_HOURS", DEFAULT_TTL_HOURS)),
                   idle_hours=float(os.environ.get("CLASS_IDLE_HOURS", DEFAULT_IDLE_HOURS)))

    def close(self) -> None:
        """Close this thread's connection."""
        self.db.close()

    # -------------------------------------------------------------- sessions

    def _live(self, alias: str = "") -> tuple[str, float, float]:
        """The condition a live session meets, and its two parameters: neither expired nor idle."""
        a = f"{alias}." if alias else ""
        now = self.clock()
        return f"{a}expires > {{}} AND {a}active > {{}}", now, now - self.idle

    def _session(self, cur, code) -> str:
        """The checked code of a live session."""
        code = schema.join_code(code)
        live, *times = self._live()
        if cur.one(f"SELECT 1 FROM class_sessions WHERE code = {{}} AND {live}", code, *times) is None:
            raise NotFound(_(schema.NO_SESSION))
        return code

    def _control(self, cur, code, token) -> str:
        """The checked code of a live session that this control token runs. An unknown code gets the same
        answer as a wrong token, so a control request tells a guesser nothing about codes."""
        try:
            code = schema.join_code(code)
        except NotFound:
            raise Forbidden(_(schema.NO_CONTROL)) from None
        given = schema.token_hash(schema.control_token(token))
        live, *times = self._live()
        row = cur.one(f"SELECT token_hash FROM class_sessions WHERE code = {{}} AND {live}", code, *times)
        if row is None or not hmac.compare_digest(given, row[0]):
            raise Forbidden(_(schema.NO_CONTROL))
        return code

    def _touch(self, cur, code: str) -> None:
        """Something happened in the session: it is not idle (written at most every TOUCH_EVERY seconds)."""
        now = self.clock()
        cur.execute("UPDATE class_sessions SET active = {} WHERE code = {} AND active < {}", now, code,
                    now - TOUCH_EVERY)

    def _purge(self, cur) -> int:
        now = self.clock()
        return len(cur.all("DELETE FROM class_sessions WHERE expires <= {} OR active <= {} RETURNING code",
                           now, now - self.idle))

    def create_session(self, address: str = "?") -> tuple[str, str]:
        """A new session: (join code, control token). The token is shown once and only its hash is stored.

        No session is ever deleted to make room: a start past a bound (MAX_SESSIONS_PER_OWNER from one address,
        MAX_SESSIONS on the server) is refused with a message that says why and what to do. The bounds free
        themselves: every session ends once it has been idle for the stated time, with or without a question."""
        owner = schema.owner(address)
        token = secrets.token_urlsafe(schema.TOKEN_BYTES)
        minutes = max(1, round(self.idle / 60))

        def body(cur):
            now = self.clock()
            if self.db.backend.lock_sessions:
                cur.execute(self.db.backend.lock_sessions)
            self._purge(cur)
            mine = cur.one("SELECT COUNT(*) FROM class_sessions WHERE owner = {}", owner)[0]
            if mine >= MAX_SESSIONS_PER_OWNER:
                raise Full(ngettext(
                    "This address runs {count} class session, as many as it may: end it with the 'end session' "
                    "button of its control link, or wait until it has been idle for {minutes} minutes.",
                    "This address runs {count} class sessions, as many as it may: end one with the 'end session' "
                    "button of its control link, or wait until one has been idle for {minutes} minutes.",
                    mine).format(count=mine, minutes=minutes))
            if cur.one("SELECT COUNT(*) FROM class_sessions")[0] >= MAX_SESSIONS:
                raise Full(_("This server runs as many class sessions as it can: try again later. A session ends "
                             "once it has been idle for {minutes} minutes.").format(minutes=minutes))
            while True:
                code = "".join(secrets.choice(schema.CODE_ALPHABET) for _position in range(schema.CODE_LENGTH))
                if cur.one("INSERT INTO class_sessions (code, token_hash, owner, created, expires, active)"
                           " VALUES ({}, {}, {}, {}, {}, {}) ON CONFLICT (code) DO NOTHING RETURNING code",
                           code, schema.token_hash(token), owner, now, now + self.ttl, now):
                    return code, token

        return self.db.run(True, body)

    def running(self, code, token) -> bool:
        """Whether this control link runs a live session (the start page's "back to your session")."""
        try:
            return self.db.run(False, lambda cur: bool(self._control(cur, code, token)))
        except Forbidden:
            return False

    def end_session(self, code, token) -> None:
        """Delete the session, its students, questions and answers."""
        self.db.run(True, lambda cur: cur.execute("DELETE FROM class_sessions WHERE code = {}",
                                                  self._control(cur, code, token)))

    # ------------------------------------------------------------ housekeeping

    def purge(self) -> int:
        """Delete expired and idle sessions with everything in them; returns how many sessions."""
        return self.db.run(True, self._purge)

    def health(self) -> str:
        """'ok' when the database takes a write, else 'down' (the same answer from every worker and host), within
        HEALTH_DEADLINE seconds, and at once while it hangs. The write is tried at most every HEALTH_EVERY seconds
        in a process, by one thread: the others meanwhile get the last answer, so a flood of /healthz costs the
        store nothing."""
        if self.db.hangs():
            return "down"
        now = time.monotonic()
        if self._health is not None and now - self._health[0] < HEALTH_EVERY:
            return self._health[1]
        if not self._health_lock.acquire(blocking=self._health is None):
            return self._health[1]  # another thread checks right now
        try:
            # In a thread of its own, waited for HEALTH_DEADLINE seconds at most: the write's deadline cuts a
            # statement, but a new connection to a hung PostgreSQL takes its connect_timeout (2 s, libpq's least)
            # to fail, and /healthz answered in 2.01 s in CI. A check still running then counts as down.
            done = {}
            check = threading.Thread(target=self._write_check, args=(done,), daemon=True)
            check.start()
            check.join(HEALTH_DEADLINE)
            state = done.get("state", "down")
        finally:
            self._health_lock.release()
        self._health = (time.monotonic(), state)
        return state

    def _write_check(self, done: dict) -> None:
        try:
            self.db.run(True, lambda cur: cur.execute("UPDATE class_schema SET checked = {}", self.clock()),
                        deadline=HEALTH_DEADLINE)
            done["state"] = "ok"
        except Unavailable:
            done["state"] = "down"

    def size(self) -> int:
        """Bytes on disk: SQLite's file and its write-ahead log; PostgreSQL's tables with their indexes."""
        return self.db.size()
