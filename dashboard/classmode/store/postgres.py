"""The store in PostgreSQL (psycopg 3), so that several hosts share a session."""

from __future__ import annotations

import os
import socket
from contextlib import contextmanager

from .db import CONNECT_TIMEOUT, DEADLINE
from .schema import TABLES

# The server ends a statement past the deadline itself (and a transaction left idle), and TCP keepalives find a
# peer that has gone (a partition); a server that is stopped but whose kernel still answers is cut by the
# client's own deadline (db.Database.run, abort below).
OPTIONS = (f"-c statement_timeout={int(DEADLINE * 1000)} -c lock_timeout={int(DEADLINE * 1000)}"
           f" -c idle_in_transaction_session_timeout={int(4 * DEADLINE * 1000)}")
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 2, "keepalives_count": 3,
              "tcp_user_timeout": 10_000}  # seconds, seconds, probes, milliseconds


class Postgres:
    # PostgreSQL's own placeholders, through psycopg's raw cursor: psycopg reads nothing in the query,
    # so a literal % or ? in it is plain SQL.
    param = "${}"
    for_update = " FOR UPDATE"  # joins to one session queue
    for_share = " FOR SHARE"  # a reveal waits for answers in flight, and they see it once it commits
    lock_sessions = "LOCK TABLE class_sessions IN SHARE ROW EXCLUSIVE MODE"  # the session bound holds
    lock_schema = "SELECT pg_advisory_xact_lock(13)"  # workers starting at once create the tables once

    def __init__(self, url: str):
        import psycopg  # only needed with DATABASE_URL

        self.psycopg, self.url = psycopg, url
        self.errors = (psycopg.Error, OSError)

    def connect(self):
        return self.psycopg.connect(self.url, autocommit=True, cursor_factory=self.psycopg.RawCursor,
                                    connect_timeout=CONNECT_TIMEOUT, options=OPTIONS, **KEEPALIVES)

    @staticmethod
    def abort(conn) -> None:
        """From another thread: shut the connection's socket down, so a thread waiting on it wakes with an error
        (a stopped server's kernel still acknowledges, so nothing else would wake it)."""
        fd = conn.pgconn.socket
        with socket.socket(fileno=os.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)

    def retryable(self, error: Exception) -> bool:
        """A connection the server dropped (a restart, a failover): a new one may well work. Nothing of the
        transaction was committed, unless the connection died between COMMIT and its reply."""
        return isinstance(error, self.psycopg.OperationalError)

    @contextmanager
    def transaction(self, conn, write: bool):
        with conn.transaction(), conn.cursor() as cur:
            yield cur

    def size(self, conn) -> int:
        return conn.execute("SELECT " + " + ".join(f"pg_total_relation_size('{t}')" for t in TABLES)).fetchone()[0]
