"""Shared state of class mode: sessions, students, questions and anonymous answers, in one database.

SQLite (WAL mode) in a file under $DATA_DIR by default, no setup needed; PostgreSQL (psycopg 3)
when $DATABASE_URL is set, so that several hosts share a session. Every operation is one
transaction, so gunicorn workers share the state and a worker restart loses nothing.
Pure Python and the database driver: no Dash. Every argument is checked here; a bad one raises
a StoreError whose message is fit to show the user, and changes nothing. A database that cannot
be reached or cannot write raises Unavailable, which says so.

A session has a short join code for students and a long control token for the lecturer (stored
as its SHA-256, compared in constant time). Each student gets an id from the server on joining.
The lecturer poses questions about the state on the projector; the question keeps its true answer,
which no student sees before the reveal.

schema: tables, formats and checks; db: connections, transactions, failures; sqlite, postgres: the
databases; sessions: the Store; lecture, students: its operations; errors: what it refuses.
"""

from .errors import (Closed, Forbidden, Full, BadRequest, JoinLimiter, JoinsLimited, JoinWait, NotFound, PlacesHeld,
                     RateLimited, RateLimiter, StoreError, TicketLimiter, TicketTooSoon, Unavailable)
from .sessions import MAX_SESSIONS, SQLITE_FILE, Store

__all__ = ["Closed", "Forbidden", "Full", "BadRequest", "JoinLimiter", "JoinsLimited", "JoinWait", "MAX_SESSIONS",
           "NotFound", "PlacesHeld", "RateLimited", "RateLimiter", "SQLITE_FILE", "Store", "StoreError",
           "TicketLimiter", "TicketTooSoon", "Unavailable"]
