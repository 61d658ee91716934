"""The lecture plan: the lecturer adds the page's view as a step (with notes), reorders, saves the plan as a file,
opens it again on another machine, and steps through it with PageDown and PageUp (a clicker's keys): a view step
sets the page's address, which sets every control (explorer.syncUrl); a question step shows its prompt and the way
to class mode. The panel is the presenter console: the current step's notes and what comes next.

The file's format and every check are dashboard/lecture_plan.py's; nothing the browser sends is trusted.
The plan and the current step live in the browser's local storage: a plan prepared today is there tomorrow on the
same machine, and a second window of the page (a notes window beside the projector's) shares it, since dcc.Store
follows another window's change of local storage. Session storage would lose the plan with the tab.
"""

from __future__ import annotations

import functools
import json

import dash_bootstrap_components as dbc
from dash import Input, Output, State, ctx, dcc, html, no_update

from .. import lecture_plan as plans, limits
from ..questions import TEMPLATE_TITLES, entry_text, prompt_text, question
from ..i18n import _, language
from .ids import URL
from .presenter import PLAN_ADD_KEY, PLAN_STEP_KEYS
from .wiring import callback

PLAN = "plan"  # {"steps": [...]}: the plan, as lecture_plan checks it
AT = "plan-at"  # the current step's index, or None before the first
NOTES = "plan-notes"
ADD = "plan-add"
SAVE = "plan-save"
PLAN_OPEN = "plan-open"
CLEAR = "plan-clear"
PLAN_DOWNLOAD = "plan-download"
MESSAGE = "plan-message"
CONSOLE = "plan-console"
PICK = "plan-pick"  # the steps, as a list to pick one from: its index
# What the picked step's buttons do to it: one set of buttons for the picked step, rather than a set per step.
MOVES = {"plan-up": -1, "plan-down": 1, "plan-remove": 0}
GO = "plan-go"  # show the picked step
RENOTE = "plan-renote"  # the notes box's text as the picked step's notes
ADD_QUESTION = "plan-add-question"
QUESTION_KIND = "plan-question-kind"
STEP_BACK, STEP_FORWARD = "plan-back", "plan-forward"  # the panel's own previous and next
CLASS_MODE = "/class"  # the header's link to class mode


def url_params() -> list[dict]:
    from . import URL_PARAMS  # the explorer's URL schema; this module is part of it, so it is read when needed
    return URL_PARAMS


def layout() -> html.Details:
    def button(label, component_id, **kw):
        return dbc.Button(label, id=component_id, size="sm", color="secondary", outline=True, **kw)

    return html.Details(
        [
            # Translators: the panel that holds a lecture plan: explorer views and class questions, in order
            html.Summary(_("Lecture plan"), className="h5"),
            dcc.Store(id=PLAN, storage_type="local"),
            dcc.Store(id=AT, storage_type="local"),
            html.Div(console([], None), id=CONSOLE, className="plan-console", role="status",
                     **{"aria-live": "polite"}),
            html.Div([button(_("previous step (PgUp)"), STEP_BACK), button(_("next step (PgDn)"), STEP_FORWARD)],
                     className="d-flex gap-2 my-2"),
            dbc.RadioItems(id=PICK, options=[], value=None, className="plan-steps", labelClassName="plan-step"),
            html.Div([button(_("show this step"), GO), button(_("move up"), "plan-up"),
                      button(_("move down"), "plan-down"), button(_("remove"), "plan-remove"),
                      button(_("give it the notes below"), RENOTE)],
                     className="d-flex flex-wrap gap-2 my-2"),
            dbc.Label(_("notes for this view (shown only here)"), html_for=NOTES, className="small mb-0"),
            dbc.Textarea(id=NOTES, maxLength=plans.MAX_NOTES, rows=2, className="plan-notes"),
            html.Div(
                [button(_("add this view"), ADD),
                 dbc.Label(_("the kind of class question"), html_for=QUESTION_KIND, className="visually-hidden"),
                 dbc.Select(id=QUESTION_KIND, value=next(iter(TEMPLATE_TITLES)), size="sm", className="w-auto",
                            options=[{"label": _(name), "value": key} for key, name in TEMPLATE_TITLES.items()]),
                 button(_("add a class question on this view"), ADD_QUESTION),
                 button(_("save plan"), SAVE, disabled=True),
                 # a larger file would not reach the server (its body limit): the browser keeps it, and the title says
                 dcc.Upload(html.Span(_("open a plan"), className="btn btn-sm btn-outline-secondary",
                                      title=_("a lecture plan's file, at most {size} kB").format(
                                          size=plans.MAX_BYTES // 1024)),
                            id=PLAN_OPEN, accept=".json,application/json", max_size=plans.MAX_BYTES),
                 button(_("clear the plan"), CLEAR),
                 html.Span(id=MESSAGE, className="small", role="status"),
                 dcc.Download(id=PLAN_DOWNLOAD)],
                className="d-flex flex-wrap align-items-center gap-2 mt-2"),
        ],
        id="plan-panel", className="plan-panel mt-3",
    )


def stored(plan) -> list[dict]:
    """The plan the browser holds, checked again (a forged store is no plan)."""
    if not isinstance(plan, dict) or not plan.get("steps"):
        return []
    try:
        return plans.check_steps(plan["steps"], url_params())
    except plans.PlanError:
        return []


def position(at, steps: list[dict]) -> int | None:
    return at if limits.is_int(at) and 0 <= at < len(steps) else None


def edited(steps: list[dict], k, do: str) -> tuple[list[dict], int | None]:
    """The steps after the picked step's button (up, down, remove), and where that step went (None: removed)."""
    if position(k, steps) is None:
        return steps, None
    steps = list(steps)
    step = steps.pop(k)
    if do == "plan-remove":
        return steps, None
    to = min(len(steps), max(0, k + MOVES[do]))
    steps.insert(to, step)
    return steps, to


# Every change of the plan: add the page's view or a question on it, the picked step's up, down, remove or new
# notes, open a file, clear.
@callback(output=dict(plan=Output(PLAN, "data"), at=Output(AT, "data"), message=Output(MESSAGE, "children"),
                      notes=Output(NOTES, "value"), pick=Output(PICK, "value")),
          inputs=dict(presses=[Input(b, "n_clicks") for b in [ADD, PLAN_ADD_KEY, ADD_QUESTION, CLEAR, RENOTE, *MOVES]],
                      upload=Input(PLAN_OPEN, "contents")),
          state=dict(search=State(URL, "search"), notes=State(NOTES, "value"), plan=State(PLAN, "data"),
                     at=State(AT, "data"), pick=State(PICK, "value"), kind=State(QUESTION_KIND, "value")),
          prevent_initial_call=True)
def edit(presses, upload, search, notes, plan, at, pick, kind):
    out = dict(plan=no_update, at=no_update, message="", notes=no_update, pick=no_update)
    button, steps = ctx.triggered_id, stored(plan)
    try:
        if button in (ADD, PLAN_ADD_KEY):  # the button, or A (in the presenter view too, which covers the button)
            steps = plans.view_step(search, notes, url_params(), steps)
            out.update(notes="", message=plans.count_text(steps), pick=len(steps) - 1)
        elif button == ADD_QUESTION:
            steps = plans.question_step(kind, search, notes, url_params(), steps)
            prompt, ok = question_prompt(plans.question_entries(steps[-1:])[0])
            if not ok and kind not in plans.LAB:  # class mode would refuse it: say why now, not in front of the class
                return {**out, "message": _("Step {number}: {problem}").format(number=len(steps), problem=prompt)}
            out.update(notes="", message=plans.count_text(steps), pick=len(steps) - 1)
        elif button == PLAN_OPEN:
            steps = plans.parse_upload(upload, url_params())
            at = None
            out.update(message=plans.count_text(steps), pick=None)
        elif button == CLEAR:
            steps, at = [], None
            out["pick"] = None
        elif button == RENOTE and position(pick, steps) is not None:
            steps = plans.check_steps([*steps[:pick], {**steps[pick], "notes": notes}, *steps[pick + 1:]], url_params())
            out["notes"] = ""
        elif button in MOVES:
            now = position(at, steps)
            steps, moved = edited(steps, pick, button)
            at = moved if now == pick else now  # the current step follows its buttons
            out["pick"] = moved
        else:
            return {**out, "message": no_update}
    except plans.PlanError as e:
        return {**out, "message": str(e)}
    return {**out, "plan": {"steps": steps}, "at": position(at, steps)}


# PageDown and PageUp (presenter.SHORTCUTS), the panel's buttons, or "show this step": a view step sets the page's
# address (its language and lecture mode kept), and the address sets every control (explorer.syncUrl).
@callback(output=dict(at=Output(AT, "data", allow_duplicate=True), search=Output(URL, "search", allow_duplicate=True)),
          inputs=dict(presses=[Input(b, "n_clicks") for b in [*PLAN_STEP_KEYS, STEP_BACK, STEP_FORWARD, GO]]),
          state=dict(plan=State(PLAN, "data"), at=State(AT, "data"), search=State(URL, "search"),
                     pick=State(PICK, "value")),
          prevent_initial_call=True)
def step(presses, plan, at, search, pick):
    steps, button = stored(plan), ctx.triggered_id
    now = position(at, steps)
    if button == GO:
        k = position(pick, steps)
    elif button in (*PLAN_STEP_KEYS, STEP_BACK, STEP_FORWARD) and steps:
        by = {**PLAN_STEP_KEYS, STEP_BACK: -1, STEP_FORWARD: 1}[button]
        k = 0 if now is None else min(len(steps) - 1, max(0, now + by))
    else:
        k = None
    if k is None or k == now and button != GO:
        return dict(at=no_update, search=no_update)
    view = steps[k]["kind"] == "view"
    return dict(at=k, search=plans.address(steps[k]["view"], search, url_params()) if view else no_update)


def question_prompt(entry: dict) -> tuple[str, bool]:
    """A question step's prompt in the page's language, as class mode will pose it (True), or why class mode
    would refuse it now (False: a learning-lab run still training may be posed later, so a refusal is not kept)."""
    prompt = posed_prompt(json.dumps(entry, sort_keys=True), language())
    return (prompt, True) if prompt is not None else (refusal(entry), False)


@functools.lru_cache(maxsize=64)
def posed_prompt(entry_json: str, lang: str) -> str | None:
    """The prompt, cached: the truth behind it is computed once per entry and language; None if refused."""
    q = question(json.loads(entry_json))[0]
    # as class mode poses it (lecturer.posed): the cell's indices under the names the prompt reads
    return None if q is None else prompt_text({**q, "head_index": q.get("head"), "query_index": q.get("query"),
                                               "key_index": q.get("key")})


def refusal(entry: dict) -> str:
    return question(entry)[1]


def describe(s: dict, mark: list = ()) -> list:
    """A step as the list shows it: its tab and address, or its question, then `mark`, then its notes as text."""
    if s["kind"] == "view":
        tab = plans.read_view(s["view"], url_params(), 0).get("tab", limits.DEFAULT_TAB)
        what = [html.Span(_(limits.TABS[tab]), className="me-1"), html.Code(s["view"] or "?")]
    else:
        what = [html.Span(_("class question"), className="badge text-bg-info me-1"), entry_text(s)]
    notes = [html.Div(s["notes"], className="plan-step-notes small text-body-secondary")] if s["notes"] else []
    return what + list(mark) + notes


def console(steps: list[dict], k: int | None) -> list:
    """The presenter console: where the lecture is, the current step's notes (or its question), what comes next."""
    if not steps:
        return [html.P(_("No plan yet: set up a view, write its notes and press 'add this view', or open a plan."))]
    if k is None:
        out = [html.P([plans.count_text(steps), " ", _("PageDown starts it.")])]
    else:
        s = steps[k]
        out = [html.H3(_("Step {number} of {count}").format(number=k + 1, count=len(steps)), className="h6"),
               html.P(s["notes"] or _("no notes"), className="plan-notes-now fs-5")]
        if s["kind"] == "question":
            prompt, ok = question_prompt(plans.question_entries([s])[0])
            out += [html.Blockquote(prompt, className="plan-question" if ok else "plan-question text-danger"),
                    html.A(_("pose it in class mode: load this plan there"), href=CLASS_MODE, target="_blank")]
    after = 0 if k is None else k + 1
    if after < len(steps):
        out.append(html.Div([html.Strong(_("Next:")), " ", *describe(steps[after])], className="plan-next small"))
    else:
        out.append(html.P(_("The plan ends here."), className="small"))
    return out


@callback(output=dict(steps=Output(PICK, "options"), console=Output(CONSOLE, "children"),
                      save=Output(SAVE, "disabled")),
          inputs=dict(plan=Input(PLAN, "data"), at=Input(AT, "data")), prevent_initial_call=True)
def show(plan, at):
    """The list and the console, when the plan or the step changes (a plan kept in local storage counts: the store
    sets it as the page loads, or as another window changes it). A page with no plan asks for nothing."""
    steps = stored(plan)
    k = position(at, steps)
    # Translators: marks the lecture plan's current step in its list
    now = [html.Span(_("now"), className="badge text-bg-primary ms-1")]
    options = [{"label": html.Span(describe(s, now if i == k else []), className="plan-step-text"), "value": i}
               for i, s in enumerate(steps)]
    return dict(steps=options, console=console(steps, k), save=not steps)


@callback(Output(PLAN_DOWNLOAD, "data"), Input(SAVE, "n_clicks"), State(PLAN, "data"), prevent_initial_call=True)
def save(clicks, plan):
    steps = stored(plan)
    if not steps:
        return no_update
    return {"content": plans.file_text(steps), "filename": "lecture-plan.json", "type": "application/json"}
