"""The store's tables, the exact formats of its codes, ids and tokens, and the checks of what clients send.

Every string a client sends (join code, control token, student id, question id) is matched here against its
exact format, ASCII only, before it is hashed or reaches a query: a lone surrogate, a NUL or a megabyte is
refused like any other wrong value. A check returns the value as stored or raises a StoreError whose message
is fit to show the user.
"""

from __future__ import annotations

import hashlib
import numbers
import re

from ... import bugs, limits
from ...attention import HEAD_CHOICES, check_int
from ...constants import TIMERS
from ...i18n import N_, _
from ...limits import CODE, CODE_ALPHABET, CODE_LENGTH, MAX_TYPED_CODE
from .errors import Forbidden, BadRequest, NotFound

VERSION = 5  # a store made by another version is dropped and made again (sessions last hours, not releases)
TOKEN_BYTES, STUDENT_BYTES, QUESTION_BYTES = 32, 16, 12  # secrets.token_urlsafe(k): 43, 22, 16 characters
TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
STUDENT_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")
QUESTION_ID = re.compile(r"[A-Za-z0-9_-]{16}")
NO_SESSION = N_("There is no session with this code: it may have ended.")
NO_CONTROL = N_("This control link does not run this session.")
NO_QUESTION = N_("There is no such question in this session.")

# What a question asks (template), how it is answered (kind: one of n options, or an amount in [0, 1]), and
# its phases: vote 1, discussion, vote 2, revealed; "closed" when a later question was posed before its reveal.
TEMPLATE_KINDS = {"key": "choice", "amount": "amount", "sharpest": "choice", "entropy": "choice", "influence": "choice",
                  "bug": "choice", "role": "choice", "floor": "choice"}
PHASES = ("vote1", "discuss", "vote2", "revealed", "closed")
OPEN = {"vote1": 1, "vote2": 2}  # the phases that take answers, and the round they count in
NEXT = {"discuss": ("vote1",), "vote2": ("discuss",), "revealed": ("vote1", "discuss", "vote2")}
MAX_OPTIONS = limits.MAX_TOKENS  # a key of the largest example
MAX_PROMPT = 300  # a prompt as stored: the numbers its sentence states, which each page words in its own language
MAX_SEED = limits.SEEDS[-1]  # the one seed range: an example's, and a training seed is within it

# The schema, for both databases (SQLite takes PostgreSQL's type names). Times are Unix seconds.
TABLES = ("class_answers", "class_questions", "class_tickets", "class_students", "class_sessions", "class_schema")
SCHEMA = """
CREATE TABLE IF NOT EXISTS class_schema (
    version INTEGER NOT NULL,
    checked DOUBLE PRECISION NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS class_sessions (
    code TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    owner TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    expires DOUBLE PRECISION NOT NULL,
    active DOUBLE PRECISION NOT NULL,
    questions INTEGER NOT NULL DEFAULT 0,
    class_size INTEGER,
    joining INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS class_sessions_owner ON class_sessions (owner);
CREATE TABLE IF NOT EXISTS class_students (
    session TEXT NOT NULL REFERENCES class_sessions (code) ON DELETE CASCADE,
    id TEXT NOT NULL,
    owner TEXT NOT NULL,
    joined DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (session, id)
);
CREATE INDEX IF NOT EXISTS class_students_owner ON class_students (session, owner, joined);
CREATE TABLE IF NOT EXISTS class_tickets (
    session TEXT NOT NULL REFERENCES class_sessions (code) ON DELETE CASCADE,
    id TEXT NOT NULL,
    owner TEXT NOT NULL,
    number INTEGER NOT NULL,
    expires DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (session, id)
);
CREATE TABLE IF NOT EXISTS class_questions (
    id TEXT PRIMARY KEY,
    session TEXT NOT NULL REFERENCES class_sessions (code) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    template TEXT NOT NULL,
    kind TEXT NOT NULL,
    prompt TEXT NOT NULL,
    n INTEGER,
    truth DOUBLE PRECISION NOT NULL,
    accepted TEXT,
    tolerance DOUBLE PRECISION,
    lo DOUBLE PRECISION,
    hi DOUBLE PRECISION,
    h INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    size INTEGER NOT NULL,
    scale TEXT NOT NULL,
    tau INTEGER NOT NULL,
    weights TEXT NOT NULL,
    head_index INTEGER,
    query_index INTEGER,
    key_index INTEGER,
    bug TEXT,
    timer INTEGER NOT NULL,
    phase TEXT NOT NULL,
    rounds INTEGER NOT NULL DEFAULT 1,
    deadline DOUBLE PRECISION,
    UNIQUE (session, number)
);
CREATE TABLE IF NOT EXISTS class_answers (
    question TEXT NOT NULL REFERENCES class_questions (id) ON DELETE CASCADE,
    round INTEGER NOT NULL,
    student TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    changes INTEGER NOT NULL DEFAULT 0,
    answered DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (question, round, student)
)
"""
SETTING_COLUMNS = ("h", "seed", "size", "scale", "tau", "weights", "head_index", "query_index", "key_index", "bug")
QUESTION_COLUMNS = ("id", "number", "template", "kind", "prompt", "n", "truth", "accepted", "tolerance", "lo", "hi",
                    *SETTING_COLUMNS, "timer", "phase", "rounds", "deadline")


def client_rules() -> dict:
    """The rules the browser applies before the server does (assets/classmode.js), from this module alone: a typed
    join code (as join_code reads it) and which step each phase allows (NEXT)."""
    return {"alphabet": CODE_ALPHABET, "length": CODE_LENGTH, "typed": MAX_TYPED_CODE,
            "space": "".join(c for c in map(chr, range(128)) if c.isspace()),  # what str.strip() takes off
            "next": {step: list(phases) for step, phases in NEXT.items()}}


# ------------------------------------------------------------------ what clients send: exact formats


def join_code(code) -> str:
    """A join code as typed (any case, spaces around it) or sent, as stored: six of CODE_ALPHABET."""
    if isinstance(code, str) and len(code) <= MAX_TYPED_CODE and code.isascii():
        code = code.strip().upper()
        if CODE.fullmatch(code):
            return code
    raise NotFound(_("A join code is 6 letters and digits, such as ABC234."))  # CODE_LENGTH; assets/classmode.js too


def control_token(token) -> str:
    if not (isinstance(token, str) and TOKEN.fullmatch(token)):
        raise Forbidden(_(NO_CONTROL))
    return token


def student_id(student) -> str:
    """A student's id, as this server issued it (Store.join)."""
    if not (isinstance(student, str) and STUDENT_ID_PATTERN.fullmatch(student)):
        raise NotFound(_(NO_SESSION))
    return student


def ticket(value) -> str | None:
    """A place in the join queue, as this server issued it (Store.join), or None: anything else is a new arrival."""
    return value if isinstance(value, str) and STUDENT_ID_PATTERN.fullmatch(value) else None


def question_id(question) -> str:
    if not (isinstance(question, str) and QUESTION_ID.fullmatch(question)):
        raise NotFound(_(NO_QUESTION))
    return question


def token_hash(token: str) -> str:
    """The SHA-256 a control token is stored as; `token` has passed control_token()."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def owner(address: str) -> str:
    """Who asks, as stored: a digest of the client's address (the address itself is kept nowhere)."""
    return hashlib.sha256(str(address).encode("utf-8", "replace")).hexdigest()[:24]


def invalid(message: str) -> BadRequest:
    """check_int's error for a student: the rule, without the value it got (which may be a forged one): check_int
    reads `without_value` and says the rule alone, a whole message."""
    return BadRequest(message)


invalid.without_value = True


def answer(kind: str, n: int | None, value, name: str = N_("The answer")) -> float | int:
    """An answer (or the truth) to a question of this kind: an option 0..n-1, or an amount in [0, 1]."""
    if kind != "amount":
        return check_int(name, value, 0, n - 1, error=invalid)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:  # NaN fails too
        raise BadRequest(_("{name} must be a number from 0 to 1.").format(name=_(name)))
    return float(value)


# ------------------------------------------------------------------ what the lecturer's page poses


def _text(value, name: str, longest: int) -> str:
    if not (isinstance(value, str) and 0 < len(value.strip()) <= longest and value.isprintable()):
        raise BadRequest(f"{name} needs a text of at most {longest} printable characters.")
    return value.strip()


def _number(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise BadRequest(_("{name} must be a number from 0 to 1.").format(name=_(name)))
    return float(value)


def _member(value, allowed, name: str):
    if not any(type(value) is type(a) and value == a for a in allowed):
        raise BadRequest(f"{name} must be one of {', '.join(map(str, allowed))}.")
    return value


def options(text: str | None) -> list[int]:
    """The accepted options as stored: '2 4' -> [2, 4]."""
    return [int(k) for k in text.split()] if text else []


def question(q: dict) -> dict:
    """A question's columns (see Store.pose), checked: what the truth needs, and the whole setting."""
    q = dict(q)
    template = _member(q.pop("template", None), tuple(TEMPLATE_KINDS), "A question's template")
    kind = TEMPLATE_KINDS[template]
    h = _member(q.pop("h", None), HEAD_CHOICES, "h")
    size = check_int(N_("Tokens per cluster"), q.pop("size", limits.DEFAULT_SIZE), limits.SIZES[0], limits.SIZES[-1],
                     error=invalid)
    n_tokens = 3 * size
    out = dict(template=template, kind=kind, prompt=_text(q.pop("prompt", None), "The question", MAX_PROMPT), h=h,
               seed=check_int(N_("The seed"), q.pop("seed", None), 0, MAX_SEED, error=invalid), size=size,
               scale=_member(q.pop("scale", limits.DEFAULT_SCALE), tuple(limits.SCALES), "The scale"),
               tau=check_int("τ", q.pop("tau", limits.DEFAULT_TAU_STEP), limits.TAU_STEPS[0], limits.TAU_STEPS[-1],
                             error=invalid),
               weights=_member(q.pop("weights", limits.DEFAULT_WEIGHTS), tuple(limits.WEIGHT_CHOICES), "The weights"),
               timer=_member(q.pop("timer", 0), TIMERS, "The timer"))
    for name, count in (("head", h), ("query", n_tokens), ("key", n_tokens)):
        value = q.pop(name, None)
        out[f"{name}_index"] = None if value is None else check_int(f"The {name}", value, 0, count - 1, error=invalid)
    bug = q.pop("bug", None)  # the layer students look for the bug in: a bug clinic question's only
    out["bug"] = _member(bug, tuple(bugs.BUGS_BY_KEY), "The bug") if template == "bug" or bug is not None else None
    if (template == "bug") != (out["bug"] is not None):
        raise BadRequest("Only a question about a bug names one.")
    if (template in ("key", "influence") and out["key_index"] is not None) or (
            template in ("sharpest", "role") and out["head_index"] is not None):
        raise BadRequest("A question cannot name its own answer: students would see it.")
    if kind == "amount":
        if q.pop("n", None) is not None or q.pop("accepted", None):
            raise BadRequest("A question about an amount has no options.")
        truth = answer(kind, None, q.pop("truth", None), N_("The true answer"))
        lo, hi = _number(q.pop("lo", None), "The lowest value"), _number(q.pop("hi", None), "The highest value")
        tolerance = _number(q.pop("tolerance", None), "The tolerance")
        if not (lo <= truth <= hi and tolerance > 0):
            raise BadRequest("The true answer must lie in the range shown, with a tolerance above 0.")
        out.update(n=None, truth=truth, accepted=None, tolerance=tolerance, lo=lo, hi=hi)
    else:
        n = check_int(N_("The number of options"), q.pop("n", None), 2, MAX_OPTIONS, error=invalid)
        truth = answer(kind, n, q.pop("truth", None), N_("The true answer"))
        accepted = q.pop("accepted", None) or [truth]
        if not (isinstance(accepted, (list, tuple)) and len(accepted) <= MAX_OPTIONS):
            raise BadRequest("The accepted answers are a list of options.")
        accepted = sorted(answer(kind, n, a, "An accepted answer") for a in accepted)
        if not len(set(accepted)) == len(accepted) < n:
            raise BadRequest("The accepted answers must be distinct options, and not all of them.")
        if truth not in accepted:
            raise BadRequest("The true answer must be one of the accepted answers.")
        out.update(n=n, truth=truth, accepted=" ".join(map(str, accepted)), tolerance=None, lo=None, hi=None)
    if q.pop("tolerance", None) is not None or q.pop("lo", None) is not None or q.pop("hi", None) is not None or q:
        raise BadRequest(f"A question has no {', '.join(sorted(q)) or 'tolerance or range'} here.")
    return out


def stored(kind: str, value) -> float | int:
    """A value as read from the database: a float for "amount", else an int."""
    return float(value) if kind == "amount" else int(value)


def question_row(row) -> dict:
    """A question as a dict, from a row of QUESTION_COLUMNS."""
    q = dict(zip(QUESTION_COLUMNS, row))
    q["truth"] = stored(q["kind"], q["truth"])
    q["accepted"] = options(q["accepted"])
    return q


def right(q: dict, value) -> bool:
    """Whether an answer counts as right: an accepted option, or an amount within the tolerance."""
    if value is None:
        return False
    if q["kind"] == "amount":
        return abs(value - q["truth"]) <= q["tolerance"] + 1e-9
    return value in q["accepted"]
