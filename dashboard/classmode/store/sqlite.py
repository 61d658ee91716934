"""The store in one SQLite file (WAL mode): no setup, shared by the processes of one machine."""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager, nullcontext
from pathlib import Path

from .db import DEADLINE


class SQLite:
    param = "?{}"  # sqlite3's numbered placeholder: ?1, ?2 ...
    for_update = ""  # joins to one session queue
    for_share = ""  # BEGIN IMMEDIATE already serialises writers
    lock_sessions = lock_schema = ""
    errors = (sqlite3.Error, OSError)  # a full disk, a read-only file or folder, a missing folder ...

    def __init__(self, path: Path):
        self.path = Path(path)
        # SQLite's busy handler retries after sleeps, so a waiting writer (the reveal) can be passed
        # over by this process's other threads again and again; this lock queues them instead.
        self.write_lock = threading.Lock()

    def connect(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=DEADLINE, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        # with WAL, NORMAL loses nothing when a process is killed; a power cut loses the last commits
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    @staticmethod
    def abort(conn) -> None:
        """From another thread: stop the statement the connection runs (a hung disk, a writer that holds on)."""
        conn.interrupt()

    def retryable(self, error: Exception) -> bool:
        return False  # a local file: what failed once fails again

    @contextmanager
    def transaction(self, conn, write: bool):
        with self.write_lock if write else nullcontext():
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn.cursor()
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.rollback()
                raise

    def size(self, conn) -> int:
        return sum(os.path.getsize(p) for p in (self.path, Path(f"{self.path}-wal")) if os.path.exists(p))
