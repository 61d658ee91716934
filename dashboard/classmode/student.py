"""Class mode, a student's page (/class/CODE): the lecturer's current question with its example, an answer
by a tap (a token, a head, no or yes) or a slider, and after the reveal the student's answer against the truth.

No name, no account: the browser keeps a random id in its localStorage. The page polls the store every
POLL_MS; a poll that finds nothing new gets no update (HTTP 204), so a class of 200 polls cheaply.
The store never hands a student the truth, or anyone's answer but their own, before the reveal.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from ..server import client_address
from .lecturer import PAGE, POLL_MS, STUDENT, store
from .questions import option_label, question_example
from .store import RateLimiter, StoreError
from .wiring import callback, clientside_callback

STUDENT_ID = "class-student-id"  # localStorage: this browser's anonymous id
SEEN = "class-student-seen"  # [question id, revealed, own answer] as last shown: a poll with the same gets no update
ASKED = "class-student-question"  # {id, kind, view} of the question shown
S_POLL = "class-student-poll"
S_STATUS, S_PROMPT, S_FIGURE, S_RESULT, S_FEEDBACK = (
    "class-student-status", "class-student-prompt", "class-student-figure", "class-student-result",
    "class-student-feedback")
CHOICES, CHOICES_BOX, SLIDER, SEND, AMOUNT_BOX = (
    "class-choices", "class-choices-box", "class-slider", "class-send", "class-amount-box")
# Answers per browser id, and per address (a classroom behind one NAT address shares that one; behind
# deploy/nginx.conf, the address nginx names).
PER_STUDENT = RateLimiter(rate=1.0, burst=5)
PER_ADDRESS = RateLimiter(rate=100.0, burst=400)
MAX_ID = 64


def layout() -> html.Div:
    return html.Div([
        html.H2("Class question", className="h4"),
        html.P("Waiting for the lecturer's question …", id=S_STATUS, role="status"),
        html.H3(id=S_PROMPT, className="h5"),
        html.Fieldset([html.Legend("Your answer", className="small mb-1"),
                       dbc.RadioItems(id=CHOICES, options=[], value=None, inline=True, className="flex-wrap",
                                      inputClassName="btn-check", labelClassName="btn btn-outline-primary class-choice",
                                      labelCheckedClassName="active")],
                      id=CHOICES_BOX, hidden=True, className="mb-2"),
        html.Div([dbc.Label("Your answer, 0 to 1", html_for=SLIDER, className="small mb-0"),
                  dcc.Slider(id=SLIDER, min=0, max=1, step=0.01, value=0.5, marks={0: "0", 0.5: "0.5", 1: "1"},
                             tooltip={"placement": "bottom", "always_visible": True}),
                  dbc.Button("send", id=SEND, color="primary", className="mt-3")],
                 id=AMOUNT_BOX, hidden=True, className="mb-2 class-amount"),
        html.P(id=S_FEEDBACK, className="small", role="status"),
        html.P(id=S_RESULT, className="class-result", **{"aria-live": "polite"}),
        html.Div(id=S_FIGURE, className="class-figure"),
        dcc.Store(id=STUDENT_ID, storage_type="local"),
        dcc.Store(id=SEEN),
        dcc.Store(id=ASKED),
        dcc.Interval(id=S_POLL, interval=POLL_MS, disabled=True),
    ], id=STUDENT, hidden=True, className="class-student")


def student_code(page) -> str:
    if not (isinstance(page, dict) and page.get("mode") == "student"):
        raise PreventUpdate
    return page.get("code")


@callback(Output(SEEN, "data"), Output(ASKED, "data"), Output(S_STATUS, "children"), Output(S_PROMPT, "children"),
          Output(S_FIGURE, "children"), Output(CHOICES, "options"), Output(CHOICES, "value"),
          Output(CHOICES_BOX, "hidden"), Output(AMOUNT_BOX, "hidden"), Output(S_RESULT, "children"),
          Output(S_FEEDBACK, "children"), Input(S_POLL, "n_intervals"), Input(STUDENT_ID, "data"), Input(PAGE, "data"),
          State(SEEN, "data"))
def poll(polls, student, page, seen):
    """The current question as this student may see it; no update when nothing changed since the last poll."""
    code = student_code(page)
    try:
        q = store().student_view(code, student)
    except StoreError as e:
        if seen == ["error", str(e)]:
            raise PreventUpdate from None
        return ["error", str(e)], None, str(e), "", no_update, [], None, True, True, "", ""
    if q is None:
        if seen == ["waiting"]:
            raise PreventUpdate
        waiting = "Waiting for the lecturer's question …"
        return ["waiting"], None, waiting, "", no_update, [], None, True, True, "", ""
    state = [q["id"], q["revealed"], q["answer"]]
    if state == seen:
        raise PreventUpdate
    new = not (isinstance(seen, list) and seen[:1] == [q["id"]])
    label = (lambda k: option_label(q["view"], q["kind"], k))
    if q["revealed"]:
        own = "You did not answer." if q["answer"] is None else f"Your answer: {label(q['answer'])}."
        right = q["answer"] is not None and (q["answer"] == q["truth"] if q["kind"] != "amount"
                                              else abs(q["answer"] - q["truth"]) <= 0.05)
        result = f"{own} The answer: {label(q['truth'])}." + (" Well predicted!" if right else "")
        status = "Revealed: answers are closed."
    else:
        result = "" if q["answer"] is None else f"Your answer so far: {label(q['answer'])}. You can change it."
        status = f"Question {q['number']}: answer until the lecturer reveals."
    options = no_update if not new else [] if q["kind"] == "amount" else \
        [{"label": label(k), "value": k} for k in range(q["n"])]
    return (state, {"id": q["id"], "kind": q["kind"], "view": q["view"]}, status, q["prompt"],
            question_example(q["view"], q["seed"]) if new else no_update, options, None if new else no_update,
            q["revealed"] or q["kind"] == "amount", q["revealed"] or q["kind"] != "amount", result,
            "" if new or q["revealed"] else no_update)


@callback(Output(S_FEEDBACK, "children", allow_duplicate=True), Input(CHOICES, "value"), Input(SEND, "n_clicks"), State(SLIDER, "value"),
          State(ASKED, "data"), State(STUDENT_ID, "data"), State(PAGE, "data"), prevent_initial_call=True)
def answer(choice, sends, amount, asked, student, page):
    """Record or change this student's answer; every value is checked by the store against the question."""
    code = student_code(page)
    value = amount if ctx.triggered_id == SEND else choice
    if value is None or not isinstance(asked, dict):  # a new question clears the choice
        raise PreventUpdate
    try:
        PER_STUDENT.check(student[:MAX_ID] if isinstance(student, str) else "")
        PER_ADDRESS.check(client_address()[:MAX_ID])
        store().answer(code, student, asked.get("id"), value)
    except StoreError as e:
        return str(e)
    return "Answer sent. You can change it until the reveal."


clientside_callback("studentId", Output(STUDENT_ID, "data"), Input(PAGE, "data"), State(STUDENT_ID, "data"))
clientside_callback("studentPoll", Output(S_POLL, "disabled"), Input(PAGE, "data"))
