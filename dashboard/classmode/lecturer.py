"""Class mode, the lecturer's page on the projector: start a session, pose a question about the example,
watch the live count, reveal the class's answers beside the truth and the drill-down, export, end.

/class starts a session; /class/CODE is a session's page: the lecturer's when this browser tab holds the
session's control token, else a student's (student.py). The token comes in the URL's fragment
(/class/CODE#control=TOKEN), which no browser puts in a request line, so it never reaches an access log;
the page moves it to this tab's sessionStorage, out of the address bar the projector shows, and sends it
in callback bodies only. The truth is computed from the core (questions.py) and kept in the store
until the reveal.
"""

from __future__ import annotations

from functools import cache

import dash_bootstrap_components as dbc
from dash import Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from .. import attention as core
from .. import limits
from ..server import client_address
from .qr import join_qr
from .questions import KINDS, answers, question, question_example, results_view
from .store import RateLimited, RateLimiter, Store, StoreError
from .wiring import callback, clientside_callback

PATH = "/class"
URL = "class-url"
PAGE = "class-page"  # {mode: start|lecturer|student, code, token (the lecturer's only), origin}
CONTROL = "class-control"  # sessionStorage: {code, token} of the session this tab runs
STUDENT = "class-student"  # student.py's part
START, START_STATUS, START_SECTION = "class-start", "class-start-status", "class-start-section"
LECTURER = "class-lecturer"
CODE_TEXT, JOIN_LINK, QR, CONTROL_LINK, COPY_CONTROL, COPY_STATUS = (
    "class-code", "class-join", "class-qr", "class-control-link", "class-copy", "class-copy-status")
KIND, HEADS, SEED, HEAD, QUERY, KEY, TRAIN_SEED = (
    "class-kind", "class-heads", "class-seed", "class-head", "class-query", "class-key", "class-train-seed")
POSE, REVEAL, EXPORT, END, DOWNLOAD = "class-pose", "class-reveal", "class-export", "class-end", "class-download"
STATUS, QUESTION, PROMPT, FIGURE, COUNT, POLL, RESULTS = (
    "class-status", "class-question", "class-prompt", "class-figure", "class-count", "class-poll", "class-results")
POLL_MS = 2000
STARTS = RateLimiter(rate=1 / 60, burst=5)  # new sessions per address: the server holds store.MAX_SESSIONS
MAX_KEY = 64  # characters of a client's address that key its rate limit


@cache
def store() -> Store:
    """This process's store, made on first use (not at import: importing the app opens no database)."""
    return Store.from_env()


def layout() -> html.Div:
    def field(label, component):
        return html.Div([dbc.Label(label, html_for=component.id, className="small mb-0"), component])

    def number(component_id, lo, hi, value):
        return dbc.Input(id=component_id, type="number", min=lo, max=hi, step=1, value=value, size="sm",
                         className="cell-input")
    first = limits.TRAINING_SEEDS[0]
    form = html.Div([
        dbc.RadioItems(id=KIND, options=[{"label": v, "value": k} for k, v in KINDS.items()], value="key",
                       inline=True, className="mb-2"),
        html.Div([
            html.Fieldset([html.Legend("heads h", className="small mb-0"),
                           dbc.RadioItems(id=HEADS, options=[{"label": str(h), "value": h} for h in core.HEAD_CHOICES],
                                          value=limits.DEFAULT_HEADS, inline=True, className="btn-group",
                                          inputClassName="btn-check", labelClassName="btn btn-sm btn-outline-primary",
                                          labelCheckedClassName="active")]),
            field("seed", number(SEED, limits.SEEDS[0], limits.SEEDS[-1], limits.DEFAULT_SEED)),
            field("head i", number(HEAD, 1, max(core.HEAD_CHOICES), 1)),
            field("query r", number(QUERY, 0, core.N_TOKENS - 1, 0)),
            field("key j (how much?)", number(KEY, 0, core.N_TOKENS - 1, 1)),
            field("training seed (learning lab)", number(TRAIN_SEED, first, limits.TRAINING_SEEDS[-1], first)),
        ], className="d-flex flex-wrap gap-2 align-items-end mb-2"),
        html.Div([dbc.Button("pose question", id=POSE, color="primary"),
                  dbc.Button("reveal", id=REVEAL, color="success"),
                  dbc.Button("export CSV", id=EXPORT, color="secondary", outline=True),
                  dcc.ConfirmDialogProvider(dbc.Button("end session", color="danger", outline=True), id=END,
                                            message="End this session? Its questions and answers are deleted.")],
                 className="d-flex flex-wrap gap-2"),
        html.P(id=STATUS, className="small mt-2 mb-0", role="status"),
    ], className="class-form")
    join = html.Div([
        html.P("Join at", className="mb-0"),
        html.P(id=JOIN_LINK, className="join-link mb-1"),
        html.P(["code ", html.Strong(id=CODE_TEXT, className="join-code")], className="mb-2"),
        html.Img(id=QR, alt="QR code of the join link", className="qr"),
        html.Details([html.Summary("control link (private: it runs this session)"),
                      dbc.Label("control link", html_for=CONTROL_LINK, className="visually-hidden"),
                      dbc.Input(id=CONTROL_LINK, readonly=True, size="sm"),
                      dbc.Button("copy", id=COPY_CONTROL, size="sm", color="secondary", outline=True,
                                 className="mt-1"),
                      html.Span(id=COPY_STATUS, className="small ms-2", role="status")],
                     className="small mt-2"),
    ], className="class-join")
    lecturer = html.Div([
        html.H2("Class mode", className="h3 visually-hidden"),
        dbc.Row([dbc.Col(join, md=4), dbc.Col(form, md=8)], className="g-4 mb-3"),
        html.H3(id=PROMPT, className="h4"),
        html.P(id=COUNT, className="class-count", **{"aria-live": "polite"}),
        html.Div(id=RESULTS, **{"aria-live": "polite"}),
        html.Div(id=FIGURE, className="mb-3 class-figure"),
        dcc.Store(id=QUESTION),
        dcc.Interval(id=POLL, interval=POLL_MS, disabled=True),
        dcc.Download(id=DOWNLOAD),
    ], id=LECTURER, hidden=True)
    start = html.Div([
        html.H2("Class mode", className="h3"),
        html.P("Ask the room a question about the example on the projector: every student answers on a phone "
               "or laptop, with no name and no account, then the class's answers appear beside the truth."),
        dbc.Button("start a session", id=START, color="primary"),
        html.A("back to the explorer", href="/", className="ms-3"),
        html.P(id=START_STATUS, className="small mt-2", role="status"),
    ], id=START_SECTION, hidden=True)
    return html.Div([dcc.Store(id=CONTROL, storage_type="session"), start, lecturer])


# ------------------------------------------------------------------ callbacks


def control(page) -> tuple[str, str]:
    """The lecturer's (code, token) from the page; the store checks both."""
    if not (isinstance(page, dict) and page.get("mode") == "lecturer"):
        raise PreventUpdate
    return page.get("code"), page.get("token")


def shown(q: dict, count: int) -> tuple:
    """The prompt, the live count, the question's figure and the poll's state for a question q."""
    counted = answers(count) + ("" if q["revealed"] else " so far")
    return q["prompt"], counted, question_example(q["view"], q["seed"]), q["revealed"]


@callback(Output(CONTROL, "data", allow_duplicate=True), Output(URL, "pathname"), Output(START_STATUS, "children"),
          Input(START, "n_clicks"), Input(END, "submit_n_clicks"), State(PAGE, "data"), prevent_initial_call=True)
def start_or_end(starts, ends, page):
    """Start a session (this tab then holds its control token), or end this tab's session."""
    try:
        if ctx.triggered_id == END:
            store().end_session(*control(page))
            return None, PATH, "The session has ended: its answers are deleted."
        STARTS.check(client_address()[:MAX_KEY])
        code, token = store().create_session()
    except RateLimited:
        return no_update, no_update, "Too many new sessions from this address: try again in a minute."
    except StoreError as e:
        return no_update, no_update, str(e)
    return {"code": code, "token": token}, f"{PATH}/{code}", ""


@callback(Output(QR, "src"), Output(QUESTION, "data"), Output(PROMPT, "children"), Output(COUNT, "children"),
          Output(FIGURE, "children"), Output(POLL, "disabled"), Output(RESULTS, "children"), Output(STATUS, "children"),
          Input(PAGE, "data"))
def open_session(page):
    """The lecturer's page, also after a reload: the join code, and the last question with its state."""
    code, token = control(page)
    try:
        questions = store().questions(code, token)
        qr = join_qr(f"{page.get('origin')}{PATH}/{code}")
    except StoreError as e:
        return (None, None, "", "", no_update, True, "", str(e))
    except ValueError:
        qr = None
    if not questions:
        return qr, None, "", "", no_update, True, "", "Pose the first question."
    q = questions[-1]
    prompt, counted, figure, revealed = shown(q, q["count"])
    results = results_view(store().results(code, token, q["id"])) if revealed else ""
    return qr, {"id": q["id"]}, prompt, counted, figure, revealed, results, ""


@callback(Output(QUESTION, "data", allow_duplicate=True), Output(PROMPT, "children", allow_duplicate=True),
          Output(COUNT, "children", allow_duplicate=True), Output(FIGURE, "children", allow_duplicate=True),
          Output(POLL, "disabled", allow_duplicate=True), Output(RESULTS, "children", allow_duplicate=True),
          Output(STATUS, "children", allow_duplicate=True),
          Input(POSE, "n_clicks"), State(PAGE, "data"), State(KIND, "value"), State(HEADS, "value"),
          State(SEED, "value"), State(HEAD, "value"), State(QUERY, "value"), State(KEY, "value"),
          State(TRAIN_SEED, "value"), prevent_initial_call=True)
def pose(clicks, page, kind, h, seed, head, query, key, train_seed):
    code, token = control(page)
    args, message = question(limits.choice(kind, tuple(KINDS)), h, seed, head, query, key, train_seed)
    if args is None:
        return (no_update,) * 6 + (message,)
    try:
        question_id = store().pose(code, token, args.pop("kind"), args.pop("truth"), **args)
    except StoreError as e:
        return (no_update,) * 6 + (str(e),)
    prompt, counted, figure, _ = shown(dict(args, revealed=False), 0)
    return {"id": question_id}, prompt, counted, figure, False, "", "Posed: students see it now."


@callback(Output(COUNT, "children", allow_duplicate=True), Input(POLL, "n_intervals"), State(PAGE, "data"),
          State(QUESTION, "data"), prevent_initial_call=True)
def live_count(polls, page, q):
    """The projector's live count: one COUNT(*) every POLL_MS."""
    code, _ = control(page)
    try:
        count = store().count(code, q.get("id") if isinstance(q, dict) else None)
    except StoreError as e:
        return str(e)
    return answers(count) + " so far"


@callback(Output(RESULTS, "children", allow_duplicate=True), Output(COUNT, "children", allow_duplicate=True),
          Output(POLL, "disabled", allow_duplicate=True), Output(STATUS, "children", allow_duplicate=True),
          Input(REVEAL, "n_clicks"), State(PAGE, "data"), State(QUESTION, "data"), prevent_initial_call=True)
def reveal(clicks, page, q):
    code, token = control(page)
    try:
        results = store().reveal(code, token, q.get("id") if isinstance(q, dict) else None)
    except StoreError as e:
        return no_update, no_update, no_update, str(e)
    return results_view(results), shown(results, results["count"])[1], True, "Revealed: answers are closed."


@callback(Output(DOWNLOAD, "data"), Output(STATUS, "children", allow_duplicate=True), Input(EXPORT, "n_clicks"),
          State(PAGE, "data"), prevent_initial_call=True)
def export(clicks, page):
    """The session's anonymous answers as CSV (students as s1, s2, …)."""
    code, token = control(page)
    try:
        content = store().export_csv(code, token)
    except StoreError as e:
        return no_update, str(e)
    return {"content": content, "filename": f"class-{code}.csv", "type": "text/csv"}, ""


# Which page a /class address shows, and the control token from the fragment into this tab's sessionStorage.
clientside_callback("classPage", Output(PAGE, "data"), Output(CONTROL, "data"), Output(URL, "hash"),
                    Output(START_SECTION, "hidden"), Output(LECTURER, "hidden"), Output(STUDENT, "hidden"),
                    Input(URL, "pathname"), Input(URL, "hash"), Input(CONTROL, "data"))
clientside_callback("classLinks", Output(JOIN_LINK, "children"), Output(CODE_TEXT, "children"),
                    Output(CONTROL_LINK, "value"), Input(PAGE, "data"))
clientside_callback("copyLink", Output(COPY_STATUS, "children"), Input(COPY_CONTROL, "n_clicks"),
                    State(CONTROL_LINK, "id"), prevent_initial_call=True)
