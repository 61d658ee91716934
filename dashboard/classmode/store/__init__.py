"""Shared state of class mode: sessions, questions and anonymous answers, in one database.

SQLite (WAL mode) in a file under $DATA_DIR by default, no setup needed; PostgreSQL (psycopg 3)
when $DATABASE_URL is set, so that several hosts share a session. Every operation is one
transaction, so gunicorn workers share the state and a worker restart loses nothing.
Pure Python and the database driver: no Dash. Every argument is checked here; a bad one raises
a StoreError whose message is fit to show the user, and changes nothing.

A session has a short join code for students and a long control token for the lecturer (stored
as its SHA-256, compared in constant time). The lecturer poses questions about the state on the
projector; the question keeps its true answer, which no student sees before the reveal.

schema: tables, formats and checks; sqlite, postgres: the databases; sessions: the Store API;
errors: what it refuses.
"""

from .errors import Closed, Forbidden, Full, Invalid, NotFound, RateLimited, RateLimiter, StoreError
from .sessions import MAX_SESSIONS, SQLITE_FILE, Store

__all__ = ["Closed", "Forbidden", "Full", "Invalid", "MAX_SESSIONS", "NotFound", "RateLimited", "RateLimiter",
           "SQLITE_FILE", "Store", "StoreError"]
