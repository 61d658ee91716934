"""Class mode's component ids, and the process's store and limits, shared by its pages: the start page
(start.py), the lecturer's (lecturer.py, form.py, plan.py) and the students' (student.py)."""

from __future__ import annotations

from functools import cache

from .. import prefs
from ..server import client_address
from .store import JoinLimiter, RateLimiter, Store, TicketLimiter

PATH = "/class"
POLL_MS = 2000

# The frame: which page a /class address shows, and the control token of the session this tab runs.
URL, PAGE = "class-url", "class-page"  # PAGE: {mode: start|lecturer|student, code, token (the lecturer's), origin}
CONTROL = "class-control"  # sessionStorage: {code, token} of the session this tab runs
RUNNING = prefs.RUNNING_SESSION  # localStorage: {code, token} of the session this browser started or ran last
RULES = "class-rules"  # the rules the browser applies before the server: store.schema.client_rules()

# The start page.
START_SECTION, START, START_STATUS = "class-start-section", "class-start", "class-start-status"
JOIN_CODE, JOIN, JOIN_STATUS = "class-join-code", "class-join-button", "class-join-status"
RESUME = "class-resume"

# The lecturer's page.
LECTURER = "class-lecturer"
CODE_TEXT, JOIN_LINK, QR, CONTROL_LINK, COPY_CONTROL, COPY_STATUS = (
    "class-code", "class-join", "class-qr", "class-control-link", "class-copy", "class-copy-status")
# The join link's address up to /class/, which may break anywhere, and its code, which never breaks.
JOIN_LINK_BASE, JOIN_LINK_CODE = "class-join-link-base", "class-join-link-code"
TEMPLATE, WEIGHTS, HEADS, SEED, SIZE, SCALE, TAU, HEAD, QUERY, KEY, BUG, TRAIN_SEED, TIMER = (
    "class-template", "class-weights", "class-heads", "class-seed", "class-size", "class-scale", "class-tau",
    "class-head", "class-query", "class-key", "class-bug", "class-train-seed", "class-timer")
FORM = (TEMPLATE, WEIGHTS, HEADS, SEED, SIZE, SCALE, TAU, HEAD, QUERY, KEY, BUG, TRAIN_SEED, TIMER)
POSE, DISCUSS, VOTE2, REVEAL = "class-pose", "class-discuss", "class-vote2", "class-reveal"
EXPORT, END, DOWNLOAD = "class-export", "class-end", "class-download"
CLASS_SIZE, JOINING, ROSTER = "class-size-of-class", "class-joining", "class-roster"  # the room: size, open/closed
SAVE_PLAN, LOAD_PLAN, PLAN, PLAN_NEXT, PLAN_TEXT = (
    "class-save-plan", "class-load-plan", "class-plan", "class-plan-next", "class-plan-text")
KEYS_STORE = "class-keys"  # the lecturer's keys: {key: the button it presses} (form.LECTURER_KEYS)
STATUS, QUESTION, PROMPT, PHASE, FIGURE, COUNT, POLL, RESULTS, WHY = (
    "class-status", "class-question", "class-prompt", "class-phase", "class-figure", "class-count", "class-poll",
    "class-results", "class-why")
CLOCK, CLOCK_TEXT, TICK = "class-clock", "class-clock-text", "class-tick"  # the vote's timer, counted down here

# A student's page.
STUDENT = "class-student"
STUDENT_ID = "class-student-id"  # localStorage: {code, id}, the id the server issued for that session
SEEN = "class-student-seen"  # the state last shown: a poll that finds the same gets no update
ASKED = "class-student-question"  # {id, template, n} of the question shown
S_POLL = "class-student-poll"
S_STATUS, S_PROMPT, S_FIGURE, S_RESULT, S_FEEDBACK = (
    "class-student-status", "class-student-prompt", "class-student-figure", "class-student-result",
    "class-student-feedback")
CHOICES, CHOICES_BOX, SLIDER, SEND, AMOUNT_BOX = (
    "class-choices", "class-choices-box", "class-slider", "class-send", "class-amount-box")
S_CLOCK, S_CLOCK_TEXT, S_TICK = "class-student-clock", "class-student-clock-text", "class-student-tick"
# a join asked to wait: its ticket (store.JoinWait), which each poll sends back, or True: try again as a new arrival
# (store.PlacesHeld); kept for the browser's tab (sessionStorage), so that a reload keeps its place
S_JOIN_AGAIN = "class-student-join-again"

# Limits in this process (each gunicorn worker has its own). Joining: the store paces joins from one address
# (store/students.py: a class of 200 behind one school address is in within 50 s, its phones trying again at
# every poll); here a guesser of join codes gets JOINS.rate tries a second (31^6 codes: with 200 sessions live,
# one hit in ~40 h per process). Answers: per student id, which the server issued, so a made-up id costs nobody
# else anything.
JOINS = JoinLimiter(rate=30.0, burst=300)
TICKETS = TicketLimiter(rate=1.0, burst=3)  # a page sends its ticket back every POLL_MS: faster is a script
PER_STUDENT = RateLimiter(rate=1.0, burst=5)
MAX_KEY = 64  # characters of a client's address or id that key a limit


@cache
def store() -> Store:
    """This process's store, made on first use (not at import: importing the app opens no database). A store
    that cannot be made raises Unavailable, and the next call tries again."""
    return Store.from_env()


def address() -> str:
    """The client's address, as far as it keys a limit or a per-address bound."""
    return client_address()[:MAX_KEY]
