"""One database for the store: a connection per thread and process, each operation one transaction, and
driver failures turned into a message for the user (Unavailable) after one retry on a dropped connection.

A database that hangs (a stopped server, a hung host, a partition: its kernel may still acknowledge every packet)
cannot hold the server's threads: every operation gives up after DEADLINE seconds, its connection cut from
another thread; while one has been running for more than SUSPECT seconds, and for COOL_DOWN seconds after one
gave up, others fail at once; and at most IN_FLIGHT of a process's threads wait on the database at all. So a class's requests all get "try again" within GIVE_UP seconds, and the threads
stay free for the explorer, which never waits on the store.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from .errors import Unavailable

log = logging.getLogger(__name__)
MAX_LOGGED = 200  # characters of a driver's message in the log
CONNECT_TIMEOUT = 2  # seconds to open a connection (PostgreSQL's smallest connect_timeout)
DEADLINE = 3.0  # seconds an operation may take before its connection is cut; a real one takes milliseconds
GIVE_UP = DEADLINE + CONNECT_TIMEOUT  # the most an operation takes to raise Unavailable, its retry included
SUSPECT = 0.5  # seconds: an operation running longer means the database hangs, and no other waits on it
COOL_DOWN = 2.0  # seconds after an operation was cut during which others fail at once
IN_FLIGHT = 2  # operations at once in a process: half a gunicorn worker's 4 threads (deploy/serve.py); another
SLOT_WAIT = 0.05  # waits for one in steps of this many seconds, and gives up once the database seems to hang


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


class Database:
    """A backend (sqlite.SQLite or postgres.Postgres) shared by threads; no connection crosses a fork."""

    def __init__(self, backend, clock=time.monotonic):
        self.backend = backend
        self.clock = clock
        self._local = threading.local()
        self._state = threading.Lock()
        self._running: dict[int, float] = {}  # thread: when its operation started
        self._hung_until = 0.0  # clock time until which operations fail at once
        self._slots = threading.BoundedSemaphore(IN_FLIGHT)

    def _conn(self):
        local = self._local
        conn = getattr(local, "conn", None)
        if getattr(local, "pid", None) != os.getpid() or conn is None or getattr(conn, "closed", False):
            local.conn, local.pid = None, os.getpid()
            local.conn = self.backend.connect()
        return local.conn

    def hangs(self) -> bool:
        """Whether the database seems to hang: an operation was cut less than COOL_DOWN seconds ago, or one
        has been running for more than SUSPECT seconds."""
        now = self.clock()
        with self._state:
            return now < self._hung_until or any(now - start > SUSPECT for start in self._running.values())

    def _cut(self, holder: dict) -> None:
        """From a timer thread: the operation is past its deadline; cut its connection, so its thread wakes."""
        holder["cut"] = True
        with self._state:
            self._hung_until = self.clock() + COOL_DOWN
        conn = holder.get("conn")
        if conn is not None:
            try:
                self.backend.abort(conn)
            except Exception:  # noqa: BLE001 (a connection closed meanwhile: nothing to cut)
                pass

    def run(self, write: bool, body, deadline: float = DEADLINE):
        """body(cursor) in one transaction; its result. A StoreError it raises rolls the transaction back and
        reaches the caller. A failure of the database does too, as Unavailable, after one retry on a new
        connection when the old one was dropped (a server restart); so does a database that hangs, within
        `deadline` seconds plus CONNECT_TIMEOUT, and at once while it seems to hang (hangs())."""
        while not self._slots.acquire(timeout=SLOT_WAIT):
            if self.hangs():
                raise Unavailable()
        if self.hangs():
            self._slots.release()
            raise Unavailable()
        me, holder = threading.get_ident(), {}
        timer = threading.Timer(deadline, self._cut, (holder,))
        timer.daemon = True
        with self._state:
            self._running[me] = self.clock()
        timer.start()
        try:
            for attempt in (1, 2):
                try:
                    holder["conn"] = self._conn()
                    with self.backend.transaction(holder["conn"], write) as cur:
                        return body(Cursor(cur, self.backend.param))
                except self.backend.errors as error:
                    self.close()
                    if attempt == 1 and self.backend.retryable(error) and not holder.get("cut"):
                        continue
                    why = "no answer within the deadline" if holder.get("cut") else str(error)
                    log.warning("class store unavailable: %s: %s", type(error).__name__,
                                why.replace("\n", " ")[:MAX_LOGGED])
                    raise Unavailable() from None
        finally:
            timer.cancel()
            with self._state:
                self._running.pop(me, None)
            self._slots.release()

    def close(self) -> None:
        """Close this thread's connection (a broken one too)."""
        conn, self._local.conn = getattr(self._local, "conn", None), None
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            try:
                conn.close()
            except Exception:  # noqa: BLE001 (closing a broken connection may fail; it is dropped anyway)
                pass

    def size(self) -> int:
        return self.run(False, lambda cur: self.backend.size(self._local.conn))
