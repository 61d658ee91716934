"""One database for the store: a connection per thread and process, each operation one transaction, and
driver failures turned into a message for the user (Unavailable) after one retry on a dropped connection."""

from __future__ import annotations

import logging
import os
import threading

from .errors import Unavailable

log = logging.getLogger(__name__)
MAX_LOGGED = 200  # characters of a driver's message in the log


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

    def __init__(self, backend):
        self.backend = backend
        self._local = threading.local()

    def _conn(self):
        local = self._local
        conn = getattr(local, "conn", None)
        if getattr(local, "pid", None) != os.getpid() or conn is None or getattr(conn, "closed", False):
            local.conn, local.pid = None, os.getpid()
            local.conn = self.backend.connect()
        return local.conn

    def run(self, write: bool, body):
        """body(cursor) in one transaction; its result. A StoreError it raises rolls the transaction back and
        reaches the caller. A failure of the database does too, as Unavailable, after one retry on a new
        connection when the old one was dropped (a server restart)."""
        for attempt in (1, 2):
            try:
                with self.backend.transaction(self._conn(), write) as cur:
                    return body(Cursor(cur, self.backend.param))
            except self.backend.errors as error:
                self.close()
                if attempt == 1 and self.backend.retryable(error):
                    continue
                text = str(error).replace("\n", " ")[:MAX_LOGGED]
                log.warning("class store unavailable: %s: %s", type(error).__name__, text)
                raise Unavailable() from None

    def close(self) -> None:
        """Close this thread's connection (a broken one too)."""
        conn, self._local.conn = getattr(self._local, "conn", None), None
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            try:
                conn.close()
            except Exception:  # noqa: BLE001 (closing a broken connection may fail; it is dropped anyway)
                pass

    def size(self) -> int:
        try:
            return self.backend.size(self._conn())
        except self.backend.errors:
            self.close()
            raise Unavailable() from None
