"""Class mode, the lecturer's page on the projector: pose a question about the example, run peer instruction
(vote 1 with the results hidden, discussion, vote 2, reveal), watch the head count, reveal both votes beside
the truth and the figure that explains it.

/class/CODE is the lecturer's page when this browser tab holds the session's control token, else a student's
(student.py). The token comes in the URL's fragment (/class/CODE#control=TOKEN), which no browser puts in a
request line, so it never reaches an access log; the page moves it to this tab's sessionStorage, out of the
address bar the projector shows, and sends it in callback bodies only. The truth is computed from the core
(dashboard/questions.py) and kept in the store until the reveal.
"""

from __future__ import annotations

import re

from dash import Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from ..i18n import N_, _, ngettext
from . import ids
from .pictures import KEPT_AT_REVEAL, ON_STAGE, question_example
from .qr import join_qr, origin_ok
from .results import reveal_views
from .store import StoreError
from ..questions import prompt_text, question
from .wiring import callback, clientside_callback

PHASE_TEXTS = {"vote1": N_("Vote 1: answer on your own. The results stay hidden until the reveal."),
               "discuss": N_("Discuss with your neighbour: convince them of your answer. Then vote again."),
               "vote2": N_("Vote 2: answer again, after the discussion."),
               "revealed": N_("Revealed."),
               "closed": N_("Closed: a later question was posed.")}
PHASE_BUTTONS = {ids.DISCUSS: "discuss", ids.VOTE2: "vote2", ids.REVEAL: "revealed"}
DONE = {"discuss": N_("Vote 1 is closed: the class discusses."), "vote2": N_("Vote 2 is open."),
        "revealed": N_("Revealed: answers are closed.")}
SELECT_INT = re.compile(r"-?[0-9]{1,4}")
STAGE = (Output(ids.QUESTION, "data"), Output(ids.PROMPT, "children"), Output(ids.PHASE, "children"),
         Output(ids.COUNT, "children"), Output(ids.CLOCK, "data"), Output(ids.FIGURE, "children"),
         Output(ids.RESULTS, "children"), Output(ids.WHY, "children"), Output(ids.POLL, "disabled"),
         Output(ids.STATUS, "children"))


def control(page) -> tuple:
    """The lecturer's (code, token) from the page; the store checks both."""
    if not (isinstance(page, dict) and page.get("mode") == "lecturer"):
        raise PreventUpdate
    return page.get("code"), page.get("token")


def from_select(value):
    """A native select's value (a string) as the int it stands for; anything else stays as it is, and the
    checks refuse it."""
    return int(value) if isinstance(value, str) and SELECT_INT.fullmatch(value) else value


def form_values(values: list) -> dict:
    """The question form's values by name (ids.FORM's order)."""
    form = dict(zip(("template", "weights", "h", "seed", "size", "scale", "tau", "head", "query", "key", "bug",
                     "train_seed", "timer"), values))
    form["tau"], form["timer"] = from_select(form["tau"]), from_select(form["timer"])
    return form


def joined_text(heads: dict) -> str:
    """Students joined, against the class size when the lecturer stated it (or closing joining took it)."""
    if heads.get("class_size") is None:
        return _("{joined} joined").format(joined=heads["joined"])
    return _("{joined} of {size} joined").format(joined=heads["joined"], size=heads["class_size"])


def head_count(heads: dict) -> str:
    """The projector's head count: students joined (of the class size), and how many answered in this round."""
    return _("{joined} · {answered} answered vote {round}").format(
        joined=joined_text(heads), answered=heads["answered"], round=heads["round"])


def roster_text(roster: dict) -> str:
    return (_("{joined}: joining is open.") if roster["joining"] else _("{joined}: joining is closed.")).format(
        joined=joined_text(roster))


def phase_text(heads: dict, results) -> str:
    """The phase; the reveal says how many answers its figures count."""
    if heads["phase"] != "revealed" or not results:
        return _(PHASE_TEXTS[heads["phase"]])
    count = results["votes"][-1]["count"]
    return ngettext("Revealed: vote {round} counts {count} answer, one per student who answered.",
                    "Revealed: vote {round} counts {count} answers, one per student who answered.",
                    count).format(round=len(results["votes"]), count=count)


def clock(heads: dict) -> dict | None:
    if heads["remaining"] is None:
        return None
    return {"key": f"{heads['id']}-{heads['phase']}", "remaining": heads["remaining"]}


def stage(q: dict, heads: dict, results=None, status: str = "", figure=no_update) -> tuple:
    """The STAGE outputs for question q in the state `heads` (Store.count's); q without its prompt keeps the one
    shown."""
    phase = heads["phase"]
    answers, why = reveal_views(results) if results else ("", "")
    if results and results["template"] not in KEPT_AT_REVEAL:
        figure = None  # the Why figure takes the question's place (pictures.KEPT_AT_REVEAL)
    return ({"id": q["id"], "phase": phase}, prompt_text(q) if "prompt" in q else no_update,
            phase_text(heads, results), head_count(heads), clock(heads), figure, answers, why, False, status)


@callback(Output(ids.QR, "src"), *STAGE, Input(ids.PAGE, "data"))
def open_session(page):
    """The lecturer's page, also after a reload: the join code, and the last question with its state."""
    code, token = control(page)
    origin = page.get("origin")
    try:
        q = ids.store().current(code, token)
        results = ids.store().results(code, token, q["id"]) if q and q["phase"] == "revealed" else None
    except StoreError as e:
        return (None, None, "", "", "", None, "", "", "", True, str(e))
    qr = join_qr(f"{origin}{ids.PATH}/{code}") if origin_ok(origin) else None
    if q is None:
        return (qr, None, "", "", "", None, "", "", "", False, _("Pose the first question."))
    return (qr, *stage(q, q, results, figure=question_example(q, ON_STAGE)))


@callback(*(Output(o.component_id, o.component_property, allow_duplicate=True) for o in STAGE),
          Input(ids.POSE, "n_clicks"), State(ids.PAGE, "data"), *(State(i, "value") for i in ids.FORM),
          prevent_initial_call=True)
def pose(clicks, page, *values):
    """Pose the form's question: its first vote opens, an earlier question closes."""
    code, token = control(page)
    q, message = question(form_values(list(values)))
    if q is None:
        # Translators: the form's question is refused; {message} says why (and a setting where it is posed)
        return (no_update,) * 9 + (_("Not posed: {message}").format(message=message),)
    return posed(code, token, q)


def posed(code, token, q: dict) -> tuple:
    try:
        question_id = ids.store().pose(code, token, q)
        heads = ids.store().count(code, token, question_id)
    except StoreError as e:
        return (no_update,) * 9 + (str(e),)
    shown = {**q, "id": question_id, "head_index": q.get("head"), "query_index": q.get("query"),
             "key_index": q.get("key")}
    return stage(shown, heads, status=_("Posed: vote 1 is open, and students see it now."),
                 figure=question_example(shown, ON_STAGE))


@callback(*(Output(o.component_id, o.component_property, allow_duplicate=True) for o in STAGE[:-2]),
          Output(ids.POLL, "disabled", allow_duplicate=True), Output(ids.STATUS, "children", allow_duplicate=True),
          Input(ids.DISCUSS, "n_clicks"), Input(ids.VOTE2, "n_clicks"), Input(ids.REVEAL, "n_clicks"),
          State(ids.PAGE, "data"), State(ids.QUESTION, "data"), prevent_initial_call=True)
def step(discuss, vote2, reveal, page, asked):
    """Peer instruction's next step: close vote 1 for the discussion, open vote 2, or reveal (from either
    vote: the second is optional)."""
    code, token = control(page)
    phase = PHASE_BUTTONS.get(ctx.triggered_id)
    if phase is None or not isinstance(asked, dict):
        raise PreventUpdate
    try:
        heads = ids.store().step(code, token, asked.get("id"), phase)
        results = ids.store().results(code, token, heads["id"]) if phase == "revealed" else None
    except StoreError as e:
        return (no_update,) * 9 + (str(e),)
    return stage(results or {"id": heads["id"]}, heads, results, status=_(DONE[phase]))


@callback(Output(ids.COUNT, "children", allow_duplicate=True), Output(ids.CLOCK, "data", allow_duplicate=True),
          Input(ids.POLL, "n_intervals"), State(ids.PAGE, "data"), State(ids.QUESTION, "data"),
          prevent_initial_call=True)
def live_count(polls, page, asked):
    """The projector's head count every POLL_MS: joined, and answered in this round (the control link's only)."""
    code, token = control(page)
    if not isinstance(asked, dict):
        raise PreventUpdate
    try:
        heads = ids.store().count(code, token, asked.get("id"))
    except StoreError as e:
        return str(e), None
    return head_count(heads), clock(heads)


@callback(Output(ids.ROSTER, "children"), Output(ids.JOINING, "children"), Output(ids.CLASS_SIZE, "value"),
          Input(ids.PAGE, "data"), Input(ids.CLASS_SIZE, "value"), Input(ids.JOINING, "n_clicks"),
          Input(ids.POLL, "n_intervals"))
def roster(page, size, toggles, polls):
    """The class: joined against the class size, and joining open or closed. The lecturer states the size (an
    empty box: none) and closes or opens joining; closing with no size takes the head count as the size."""
    code, token = control(page)
    size = None if size in (None, "") else int(size) if isinstance(size, float) and size.is_integer() else size
    try:
        if ctx.triggered_id == ids.CLASS_SIZE:
            room = ids.store().roster(code, token, size=size)
        elif ctx.triggered_id == ids.JOINING:
            room = ids.store().roster(code, token, size=size, joining=not ids.store().roster(code, token)["joining"])
        else:
            room = ids.store().roster(code, token)
    except StoreError as e:
        return str(e), no_update, no_update
    return (roster_text(room), _("close joining") if room["joining"] else _("open joining"),
            no_update if room["class_size"] == size else room["class_size"])


# Which page a /class address shows, and the control token from the fragment into this tab's sessionStorage.
clientside_callback("classPage", Output(ids.PAGE, "data"), Output(ids.CONTROL, "data"), Output(ids.RUNNING, "data"),
                    Output(ids.URL, "hash"), Output(ids.START_SECTION, "hidden"), Output(ids.LECTURER, "hidden"),
                    Output(ids.STUDENT, "hidden"), Input(ids.URL, "pathname"), Input(ids.URL, "hash"),
                    Input(ids.CONTROL, "data"))
clientside_callback("classLinks", Output(ids.JOIN_LINK_BASE, "children"),
                    Output(ids.JOIN_LINK_CODE, "children"),
                    Output(ids.CODE_TEXT, "children"), Output(ids.CONTROL_LINK, "value"), Input(ids.PAGE, "data"))
clientside_callback("copyLink", Output(ids.COPY_STATUS, "children"), Input(ids.COPY_CONTROL, "n_clicks"),
                    State(ids.CONTROL_LINK, "id"), prevent_initial_call=True)
clientside_callback("flowButtons", Output(ids.DISCUSS, "disabled"), Output(ids.VOTE2, "disabled"),
                    Output(ids.REVEAL, "disabled"), Input(ids.QUESTION, "data"), State(ids.RULES, "data"))
clientside_callback("clockRuns", Output(ids.TICK, "disabled"), Input(ids.CLOCK, "data"))
clientside_callback("classKeys", Input(ids.KEYS_STORE, "data"))
clientside_callback("clockText", Output(ids.CLOCK_TEXT, "children"), Input(ids.TICK, "n_intervals"),
                    Input(ids.CLOCK, "data"))
