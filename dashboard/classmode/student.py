"""Class mode, a student's page (/class/CODE): the lecturer's current question with its example, an answer by
a tap (a token, a head, no or yes, down/stay/up) or a slider, in vote 1 and again in vote 2 after the
discussion, and after the reveal the student's answers against the truth.

No name, no account: on joining, the server issues the browser an id for this session (Store.join), which it
keeps in its localStorage; an id the server did not issue answers nothing. The page polls the store every
POLL_MS; a poll that finds nothing new gets no update (HTTP 204), so a class of 200 polls cheaply. The store
never hands a student the truth, or anyone's answer but their own, before the reveal.
"""

from __future__ import annotations

import unicodedata

import dash_bootstrap_components as dbc
from dash import Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from ..i18n import N_, _, format_list, sentences
from . import ids
from .pictures import question_example
from .store import JoinWait, NotFound, PlacesHeld, StoreError, TicketTooSoon, Unavailable, schema
from ..questions import option_label, prompt_text
from .wiring import callback, clientside_callback

WAITING = N_("Waiting for the lecturer's question …")
LONG_ANSWER = 11  # letters: "key 11" and "cabeza 8" fit four buttons a row on a 390 px phone, "基本不变" does not
STATUS_TEXTS = {
    "vote1": N_("Question {number} · vote 1: answer on your own, until the lecturer closes the vote."),
    "discuss": N_("Question {number}: discuss your answer with your neighbour. The second vote opens soon."),
    "vote2": N_("Question {number} · vote 2: answer again. Tap your answer again to keep it, or change it."),
    "revealed": N_("Question {number}: revealed. Answers are closed."),
    "closed": N_("Question {number} is closed: wait for the next one."),
}


def layout() -> html.Div:
    return html.Div([
        html.H2(_("Class question"), className="h4"),
        html.P(_(WAITING), id=ids.S_STATUS, role="status"),
        html.H3(id=ids.S_PROMPT, className="h5"),
        html.P(id=ids.S_CLOCK_TEXT, className="class-clock", role="timer"),  # not read out every second
        html.Fieldset([html.Legend(_("Your answer"), className="small mb-1"),
                       dbc.RadioItems(id=ids.CHOICES, options=[], value=None, inline=True, className="class-choices",
                                      inputClassName="btn-check", labelClassName="btn btn-outline-primary class-choice",
                                      labelCheckedClassName="active")],
                      id=ids.CHOICES_BOX, hidden=True, className="mb-2"),
        html.Div([dbc.Label(_("Your answer, 0 to 1"), html_for=ids.SLIDER, className="small mb-0"),
                  dcc.Slider(id=ids.SLIDER, min=0, max=1, step=0.001, value=0.5, marks={0: "0", 0.5: "0.5", 1: "1"},
                             tooltip={"placement": "bottom", "always_visible": True}),
                  dbc.Button(_("send"), id=ids.SEND, color="primary", className="mt-3")],
                 id=ids.AMOUNT_BOX, hidden=True, className="mb-2 class-amount"),
        html.P(id=ids.S_FEEDBACK, className="small", role="status"),
        html.P(id=ids.S_RESULT, className="class-result", **{"aria-live": "polite"}),
        html.Div(id=ids.S_FIGURE, className="class-figure"),
        dcc.Store(id=ids.STUDENT_ID, storage_type="local"),
        dcc.Store(id=ids.SEEN),
        dcc.Store(id=ids.S_JOIN_AGAIN, storage_type="session"),
        dcc.Store(id=ids.ASKED),
        dcc.Store(id=ids.S_CLOCK),
        dcc.Interval(id=ids.S_POLL, interval=ids.POLL_MS, disabled=True),
        dcc.Interval(id=ids.S_TICK, interval=1000, disabled=True),
    ], id=ids.STUDENT, hidden=True, className="class-student")


def student_code(page) -> str:
    if not (isinstance(page, dict) and page.get("mode") == "student"):
        raise PreventUpdate
    return page.get("code")


def own_id(stored, code) -> str | None:
    """The id the server issued this browser for this session, as the browser keeps it."""
    if isinstance(stored, dict) and stored.get("code") == code and isinstance(stored.get("id"), str):
        return stored["id"]
    return None


@callback(Output(ids.STUDENT_ID, "data"), Output(ids.S_STATUS, "children", allow_duplicate=True),
          Output(ids.S_JOIN_AGAIN, "data"), Input(ids.PAGE, "data"), Input(ids.S_POLL, "n_intervals"),
          State(ids.STUDENT_ID, "data"), State(ids.S_JOIN_AGAIN, "data"), prevent_initial_call="initial_duplicate")
def join(page, polls, stored, again):
    """Join the session: keep the id this browser has for it, else ask the server for one. Joins are limited
    per address (a class behind one school address fits; a guesser of codes gets a few a second); one the store
    asks to wait (JoinWait) is tried again at each poll, with no reload, sending back the ticket that keeps its
    place and its turn (`again`)."""
    code = student_code(page)
    if ctx.triggered_id == ids.S_POLL and again is None:
        raise PreventUpdate  # the poll joins only after a JoinWait
    student = own_id(stored, code)
    try:
        try:
            known = student is not None and ids.store().member(code, student)
        except NotFound:  # answered only once the limit below has counted this try
            known = False
        if known:
            raise PreventUpdate
        if ids.store().queued(code, again, ids.address()):  # a page keeping its turn is no guesser of codes
            ids.TICKETS.check(again)
        else:
            ids.JOINS.check(ids.address())
        student = ids.store().join(code, ids.address(), ticket=again)
    except JoinWait as e:
        return no_update, str(e), e.ticket
    except (PlacesHeld, TicketTooSoon) as e:  # the page tries again at its next poll (as a new arrival, or not)
        return no_update, str(e), True if isinstance(e, PlacesHeld) else no_update
    except Unavailable as e:  # a page that holds a place keeps it, and tries again at its next poll
        return no_update, str(e), again if again is not None else None
    except StoreError as e:
        return no_update, str(e), None
    return {"code": code, "id": student}, _(WAITING), None


def choices_class(options: list[dict]) -> str:
    """The answer buttons' grid: short answers four a row, so that "key 11" lines up with "key 1"; two a row when
    one is longer than LONG_ANSWER (a bug's name), which four a row cut word by word on a phone."""
    def width(label: str) -> int:  # in Latin letters: a Chinese character is about as wide as three of them
        return sum(3 if unicodedata.east_asian_width(c) in "WF" else 1 for c in label)
    return "class-choices" + (" long-answers" if any(width(o["label"]) > LONG_ANSWER for o in options) else "")


def words(q: dict, k) -> str:
    return option_label(q["template"], k)


def result_text(q: dict, answers: dict) -> str:
    first, second = answers.get(1), answers.get(2)
    phase = q["phase"]
    if phase == "revealed":
        mine = [words(q, a) for a in (first, second) if a is not None]
        if len(mine) == 2:
            own = _("You answered {first} then {second}.").format(first=mine[0], second=mine[1])
        else:
            own = _("You answered {answer}.").format(answer=mine[0]) if mine else _("You did not answer.")
        answer = words(q, q["truth"])
        if q["kind"] == "amount":
            truth = _("The answer: {answer} (within ±{tolerance:g} counts).").format(answer=answer,
                                                                                    tolerance=q["tolerance"])
        elif len(q["accepted"]) > 1:
            truth = _("The answer: {answer} ({accepted} count).").format(
                answer=answer, accepted=format_list(words(q, a) for a in q["accepted"]))
        else:
            truth = _("The answer: {answer}.").format(answer=answer)
        last = second if second is not None else first
        return sentences(own, truth, _("Well predicted!") if schema.right(q, last) else "")
    if phase == "vote2":
        return sentences("" if first is None else _("Your first vote: {answer}.").format(answer=words(q, first)),
                         "" if second is None else _("Your second vote so far: {answer}. You can change it.").format(
                             answer=words(q, second)))
    if first is None:
        return ""
    return _("Your first vote: {answer}.").format(answer=words(q, first)) if phase != "vote1" else \
        _("Your answer so far: {answer}. You can change it until the vote closes.").format(answer=words(q, first))


@callback(Output(ids.SEEN, "data"), Output(ids.ASKED, "data"), Output(ids.S_STATUS, "children"),
          Output(ids.S_PROMPT, "children"), Output(ids.S_FIGURE, "children"), Output(ids.CHOICES, "options"),
          Output(ids.CHOICES, "value"), Output(ids.CHOICES_BOX, "hidden"), Output(ids.AMOUNT_BOX, "hidden"),
          Output(ids.S_RESULT, "children"), Output(ids.S_FEEDBACK, "children"), Output(ids.S_CLOCK, "data"),
          Output(ids.CHOICES, "className"), Input(ids.S_POLL, "n_intervals"), Input(ids.STUDENT_ID, "data"),
          Input(ids.PAGE, "data"), State(ids.SEEN, "data"))
def poll(polls, stored, page, seen):
    """The current question as this student may see it; no update when nothing changed since the last poll."""
    code = student_code(page)
    student = own_id(stored, code)
    if student is None:
        raise PreventUpdate  # the page is joining
    try:
        q = ids.store().student_view(code, student)
    except StoreError as e:
        if seen == ["error", str(e)]:
            raise PreventUpdate from None
        return ["error", str(e)], None, str(e), "", "", [], None, True, True, "", "", None, no_update
    if q is None:
        if seen == ["waiting"]:
            raise PreventUpdate
        return ["waiting"], None, _(WAITING), "", no_update, [], None, True, True, "", "", None, no_update
    answers = [q["answers"].get(1), q["answers"].get(2)]
    state = [q["id"], q["phase"], answers, q["deadline"]]
    if state == seen:
        raise PreventUpdate
    new_question = not (isinstance(seen, list) and seen[:1] == [q["id"]])
    new_round = new_question or not (isinstance(seen, list) and seen[1:2] == [q["phase"]])
    voting = q["phase"] in ("vote1", "vote2")
    options = [] if q["kind"] == "amount" else [{"label": words(q, k), "value": k} for k in range(q["n"])]
    timer = None if q["remaining"] is None else {"key": f"{q['id']}-{q['phase']}", "remaining": q["remaining"]}
    status = STATUS_TEXTS[q["phase"]]
    return (state, {"id": q["id"], "template": q["template"]}, _(status).format(number=q["number"]),
            prompt_text(q), question_example(q) if new_question else no_update,
            options if new_round else no_update, None if new_round else no_update,
            not voting or q["kind"] == "amount", not voting or q["kind"] != "amount", result_text(q, q["answers"]),
            "" if new_round else no_update, timer, choices_class(options) if new_round else no_update)


SENT = N_("Vote {round} sent. You can change it until the vote closes.")


@callback(Output(ids.S_FEEDBACK, "children", allow_duplicate=True),
          Output(ids.CHOICES, "value", allow_duplicate=True), Input(ids.CHOICES, "value"),
          Input(ids.SEND, "n_clicks"), State(ids.SLIDER, "value"), State(ids.ASKED, "data"),
          State(ids.STUDENT_ID, "data"), State(ids.PAGE, "data"), prevent_initial_call=True)
def answer(choice, sends, amount, asked, stored, page):
    """Record or change this student's answer in the open vote; the store checks every value against the
    question, and that the server issued this id for this session. An answer that was not saved clears the
    tapped choice, so that tapping it again sends it (a selected radio sends nothing when tapped)."""
    code = student_code(page)
    tapped = ctx.triggered_id != ids.SEND
    value = choice if tapped else amount
    if value is None or not isinstance(asked, dict):  # a new round clears the choice
        raise PreventUpdate
    student = own_id(stored, code)
    try:
        ids.PER_STUDENT.check(student[:ids.MAX_KEY] if student else "")
        voted = ids.store().answer(code, student, asked.get("id"), value)
    except StoreError as e:
        return str(e), None if tapped else no_update
    return _(SENT).format(round=voted), no_update


clientside_callback("studentPoll", Output(ids.S_POLL, "disabled"), Input(ids.PAGE, "data"))
clientside_callback("clockRuns", Output(ids.S_TICK, "disabled"), Input(ids.S_CLOCK, "data"))
clientside_callback("clockText", Output(ids.S_CLOCK_TEXT, "children"), Input(ids.S_TICK, "n_intervals"),
                    Input(ids.S_CLOCK, "data"))
