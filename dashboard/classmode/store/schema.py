"""The store's tables, the formats of its codes, ids and tokens, and the checks of what clients send.

A check returns the value as stored or raises a StoreError whose message is fit to show the user.
"""

from __future__ import annotations

import hashlib
import numbers
import re

from ...attention import HEAD_CHOICES, N_TOKENS, check_int
from .errors import Invalid, NotFound

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector
CODE_LENGTH = 6
TOKEN_BYTES = 32
MAX_TOKEN = 100  # characters of a control token worth hashing
STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")  # the browser's random id
MAX_QUESTION_ID = 32
NO_QUESTION = "There is no such question in this session."
VIEW_NAME = re.compile(r"[a-z_]{1,32}")
KINDS = ("key", "amount", "head")  # which key (0..n-1), how much (0..1), which head or yes/no (0..n-1)
MAX_OPTIONS = 64
MAX_PROMPT = 200
MAX_SEED = 2**31 - 1

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


def invalid(message: str) -> Invalid:
    """check_int's error for a student: the rule, without the value it got (which may be a forged one)."""
    return Invalid(message.partition(", got ")[0].removesuffix(".") + ".")


def join_code(code) -> str:
    code = code.strip().upper() if isinstance(code, str) else ""
    if len(code) != CODE_LENGTH or not set(code) <= set(CODE_ALPHABET):
        raise NotFound(f"A join code is {CODE_LENGTH} letters and digits, such as ABC234.")
    return code


def student_id(student) -> str:
    if not (isinstance(student, str) and STUDENT_ID.fullmatch(student)):
        raise Invalid("This browser's answer id is not valid: reload the page.")
    return student


def question_id(question) -> str:
    if not (isinstance(question, str) and len(question) <= MAX_QUESTION_ID):
        raise NotFound(NO_QUESTION)
    return question


def token_hash(token) -> str | None:
    """The SHA-256 a control token is stored as; None for what cannot be a token."""
    if not (isinstance(token, str) and len(token) <= MAX_TOKEN):
        return None
    return hashlib.sha256(token.encode()).hexdigest()


def answer(kind: str, n: int | None, value, name: str = "The answer") -> float | int:
    """An answer (or the truth) to a question of this kind: an option 0..n-1, or an amount in [0, 1]."""
    if kind != "amount":
        return check_int(name, value, 0, n - 1, error=invalid)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:  # NaN fails too
        raise Invalid(f"{name} must be a number from 0 to 1.")
    return float(value)


def question(kind, truth, *, prompt, view, h, seed, n, head, query, key) -> dict:
    """A question's columns from the lecturer's arguments (see Store.pose)."""
    if kind not in KINDS:
        raise Invalid(f"A question is one of: {', '.join(KINDS)}.")
    if kind == "amount" and n is not None:
        raise Invalid("A question about an amount has no options.")
    n = None if kind == "amount" else check_int("The number of options", n, 2, MAX_OPTIONS, error=invalid)
    truth = answer(kind, n, truth, "The true answer")
    if not (isinstance(prompt, str) and 0 < len(prompt.strip()) <= MAX_PROMPT):
        raise Invalid(f"The question needs a text of at most {MAX_PROMPT} characters.")
    if not (isinstance(view, str) and VIEW_NAME.fullmatch(view)):
        raise Invalid("Unknown view.")
    h = check_int("h", h, 1, max(HEAD_CHOICES), error=invalid)
    if h not in HEAD_CHOICES:
        raise Invalid(f"h must be one of {', '.join(map(str, HEAD_CHOICES))}.")
    if (kind == "key" and key is not None) or (kind == "head" and head is not None):
        raise Invalid("A question cannot name its own answer: students would see it.")

    def index(name, value, count):
        return None if value is None else check_int(name, value, 0, count - 1, error=invalid)

    return dict(kind=kind, prompt=prompt.strip(), n=n, truth=truth, view=view, h=h,
                seed=check_int("The seed", seed, 0, MAX_SEED, error=invalid), head_index=index("The head", head, h),
                query_index=index("The query", query, N_TOKENS), key_index=index("The key", key, N_TOKENS))


def stored(kind: str, value) -> float | int:
    """A value as read from the database: a float for "amount", else an int."""
    return float(value) if kind == "amount" else int(value)


def question_row(row) -> dict:
    """A question as a dict, from a row of QUESTION_COLUMNS."""
    q = dict(zip(QUESTION_COLUMNS, row))
    q["revealed"] = bool(q["revealed"])
    q["truth"] = stored(q["kind"], q["truth"])
    return q
