"""The store in PostgreSQL (psycopg 3), so that several hosts share a session."""

from __future__ import annotations

from contextlib import contextmanager

CONNECT_TIMEOUT = 5  # seconds: a server that does not answer is reported, not waited for


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
                                    connect_timeout=CONNECT_TIMEOUT)

    def retryable(self, error: Exception) -> bool:
        """A connection the server dropped (a restart, a failover): a new one may well work. Nothing of the
        transaction was committed, unless the connection died between COMMIT and its reply."""
        return isinstance(error, self.psycopg.OperationalError)

    @contextmanager
    def transaction(self, conn, write: bool):
        with conn.transaction(), conn.cursor() as cur:
            yield cur

    def size(self, conn) -> int:
        return conn.execute("SELECT pg_total_relation_size('class_sessions') + pg_total_relation_size("
                            "'class_questions') + pg_total_relation_size('class_answers')"
                            " + pg_total_relation_size('class_students')").fetchone()[0]
