"""The lecturer's page: the join box for the projector, the question form, peer instruction's buttons, the
lecture plan, and the stage the projector shows (the question, its phase, the head count, the reveal)."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from .. import bugs, limits
from ..attention import HEAD_CHOICES
from ..i18n import _, translated
from ..server import MAX_BODY
from . import ids
from .store.students import MAX_STUDENTS
from ..questions import TEMPLATE_TITLES, TIMER_LABELS, tau_text

TAU_CHOICES = (-10, -7, -3, 0, 3, 7, 10)  # slider steps: τ = 10^(k/10) = 0.1, 0.2, 0.5, 1, 2, 5, 10
# The largest lecture file the page takes: its upload (base64, in a callback's body with the callback's ids) stays
# under the one body limit of the app and nginx (server.MAX_BODY; deploy/serve.py gives nginx the same).
PLAN_OVERHEAD = 2048  # bytes of the upload's request around the file's base64; a real one has about 600
MAX_PLAN_BYTES = (MAX_BODY - PLAN_OVERHEAD) * 3 // 4


def field(label: str, component) -> html.Div:
    return html.Div([dbc.Label(label, html_for=component.id, className="small mb-0"), component])


def number(component_id: str, lo: int, hi: int, value: int) -> dbc.Input:
    return dbc.Input(id=component_id, type="number", min=lo, max=hi, step=1, value=value, size="sm",
                     className="cell-input")


def select(component_id: str, options: dict, value) -> dbc.Select:
    """A native select; its values travel as strings, and the server parses them (lecturer.form_values)."""
    return dbc.Select(id=component_id, options=[{"label": v, "value": str(k)} for k, v in options.items()],
                      value=str(value), size="sm")


def radios(component_id: str, options: dict, value, legend: str) -> html.Fieldset:
    return html.Fieldset([html.Legend(legend, className="small mb-0"),
                          dbc.RadioItems(id=component_id,
                                         options=[{"label": v, "value": k} for k, v in options.items()],
                                         value=value, inline=True, className="btn-group", inputClassName="btn-check",
                                         labelClassName="btn btn-sm btn-outline-primary",
                                         labelCheckedClassName="active")])


def join_box() -> html.Div:
    return html.Div([
        html.P(_("Join at"), className="mb-0"),
        html.P([html.Span(id=ids.JOIN_LINK_BASE), html.Span(id=ids.JOIN_LINK_CODE, className="text-nowrap")],
               id=ids.JOIN_LINK, className="join-link mb-1"),
        # Translators: the join code, followed by it (ABC234)
        html.P([_("code"), " ", html.Strong(id=ids.CODE_TEXT, className="join-code")], className="mb-2"),
        html.Img(id=ids.QR, alt=_("QR code of the join link"), className="qr"),
        html.Div([field(_("class size"), dbc.Input(id=ids.CLASS_SIZE, type="number", min=1, max=MAX_STUDENTS, step=1,
                                                   size="sm", className="cell-input", debounce=True)),
                  dbc.Button(_("close joining"), id=ids.JOINING, size="sm", color="secondary", outline=True)],
                 className="d-flex flex-wrap gap-2 align-items-end mt-2"),
        html.P(id=ids.ROSTER, className="small mb-0 class-roster", role="status"),
        html.Details([html.Summary(_("control link (private: it runs this session)")),
                      dbc.Label(_("control link"), html_for=ids.CONTROL_LINK, className="visually-hidden"),
                      dbc.Input(id=ids.CONTROL_LINK, readonly=True, size="sm"),
                      dbc.Button(_("copy"), id=ids.COPY_CONTROL, size="sm", color="secondary", outline=True,
                                 className="mt-1"),
                      html.Span(id=ids.COPY_STATUS, className="small ms-2", role="status")],
                     className="small mt-2"),
    ], className="class-join")


def question_form() -> html.Div:
    first = limits.TRAINING_SEEDS[0]
    tau = {k: tau_text(10 ** (k / 10)) for k in TAU_CHOICES}
    return html.Div([
        # Translators: the kind of question the lecturer poses
        radios(ids.TEMPLATE, translated(TEMPLATE_TITLES), "key", _("question")),
        html.Div([
            radios(ids.WEIGHTS, {"trained": _("trained"), "random": _("random")}, "trained", _("weights")),
            # Translators: h, the number of attention heads
            radios(ids.HEADS, {h: str(h) for h in HEAD_CHOICES}, limits.DEFAULT_HEADS, _("heads h")),
            field(_("example seed"), number(ids.SEED, limits.SEEDS[0], limits.SEEDS[-1], limits.DEFAULT_SEED)),
            field(_("tokens per cluster"), number(ids.SIZE, limits.SIZES[0], limits.SIZES[-1], limits.DEFAULT_SIZE)),
            field(_("scale"), select(ids.SCALE, translated(limits.SCALES), limits.DEFAULT_SCALE)),
            field(_("temperature"), select(ids.TAU, tau, limits.DEFAULT_TAU_STEP)),
        ], className="d-flex flex-wrap gap-2 align-items-end mb-2"),
        html.Div([
            # Translators: an attention head, its index i
            field(_("head i"), number(ids.HEAD, 1, max(HEAD_CHOICES), 2)),  # posed at the defaults (head 1, query 0 is too close)
            # Translators: an attention query (a token that attends), its index r
            field(_("query r"), number(ids.QUERY, 0, limits.MAX_TOKENS - 1, 1)),
            # Translators: an attention key (a token attended to), its index j; for the question "How much?"
            field(_("key j (how much?)"), number(ids.KEY, 0, limits.MAX_TOKENS - 1, 1)),
            field(_("bug (which bug?)"), select(ids.BUG, translated(bugs.BUG_NAMES), bugs.BUGS[0].key)),
            field(_("training seed (learning lab)"),
                  number(ids.TRAIN_SEED, first, limits.TRAINING_SEEDS[-1], first)),
            field(_("timer per vote"), select(ids.TIMER, translated(TIMER_LABELS), 0)),
        ], className="d-flex flex-wrap gap-2 align-items-end mb-2"),
        html.Div([dbc.Button(_("export CSV"), id=ids.EXPORT, color="secondary", outline=True, size="sm"),
                  dbc.Button(_("save lecture plan"), id=ids.SAVE_PLAN, color="secondary", outline=True, size="sm"),
                  html.Label(dcc.Upload(html.Span(_("load lecture plan"), className="btn btn-sm btn-outline-secondary"),
                                        id=ids.LOAD_PLAN, accept=".json,application/json", max_size=MAX_PLAN_BYTES),
                             className="mb-0"),  # the label names the upload's file input
                  dcc.ConfirmDialogProvider(dbc.Button(_("end session"), color="danger", outline=True, size="sm"),
                                            id=ids.END,
                                            message=_("End this session? Its questions and answers are deleted."))],
                 className="d-flex flex-wrap gap-2 align-items-center"),
        html.P(id=ids.PLAN_TEXT, className="small mt-1 mb-0"),
        html.P(_("keys: PgDn poses the plan's next question; D, V and R discuss, vote again and reveal"),
               className="small text-body-secondary mt-1 mb-0"),
        html.P(id=ids.STATUS, className="small mt-2 mb-0", role="status"),
    ], className="class-form")


# The lecturer's keys, so that a lecture runs from the keyboard or a clicker's next (PageDown): each presses its
# button when it is shown and enabled (assets/classmode.js classKeys; a box being typed in keeps its keys).
LECTURER_KEYS = {"PageDown": ids.PLAN_NEXT, "d": ids.DISCUSS, "D": ids.DISCUSS, "v": ids.VOTE2,
                 "V": ids.VOTE2, "r": ids.REVEAL, "R": ids.REVEAL}


def stage_buttons() -> html.Div:
    """What runs the lecture, above the stage, so that the question posed is in view: pose the form's question
    (below) or the plan's next, then peer instruction's steps."""
    return html.Div([
        dbc.Button(_("pose question"), id=ids.POSE, color="primary"),
        dbc.Button(_("pose next from plan"), id=ids.PLAN_NEXT, color="primary", outline=True, disabled=True),
        html.Div(
            [dbc.Button(_("discuss"), id=ids.DISCUSS, color="primary", outline=True, disabled=True,
                        title=_("close vote 1: the class discusses with their neighbours")),
             dbc.Button(_("vote again"), id=ids.VOTE2, color="primary", outline=True, disabled=True,
                        title=_("open vote 2")),
             dbc.Button(_("reveal"), id=ids.REVEAL, color="success", disabled=True,
                        title=_("show both votes beside the truth (the second vote is optional)"))],
            className="d-flex flex-wrap gap-2", role="group", **{"aria-label": _("peer instruction")}),
        dcc.Store(id=ids.KEYS_STORE, data=LECTURER_KEYS),
    ], className="d-flex flex-wrap gap-2 mb-2 class-stage-buttons")


def layout() -> html.Div:
    # The stage the projector shows comes first in its column, under the buttons that run it, in two columns on a
    # wide screen (class.css): the question, its phase, the count, the timer and at the reveal the answers; beside
    # them the question's figure, and at the reveal the figure that explains the truth in its place (the buggy layer
    # stays under it: pictures.KEPT_AT_REVEAL). At 1920 x 1080 they fit
    # under the header; the form for the next question follows. Before the first question the stage is empty and
    # takes no room.
    stage = html.Div([
        html.Div([
            html.H3(id=ids.PROMPT, className="h4"),
            html.P(id=ids.PHASE, className="class-phase", **{"aria-live": "polite"}),
            html.P(id=ids.COUNT, className="class-count mb-0", **{"aria-live": "polite"}),
            html.P(id=ids.CLOCK_TEXT, className="class-clock mb-0", role="timer"),  # not read out every second
            html.Div(id=ids.RESULTS, className="class-results mt-2", **{"aria-live": "polite"}),
        ], className="class-stage-text"),
        html.Div([html.Div(id=ids.WHY, className="class-why"), html.Div(id=ids.FIGURE, className="class-figure")],
                 className="class-stage-picture"),
    ], className="class-stage mb-3")
    explorer = html.P(html.A(_("open the explorer in a new tab"), href="/", target="_blank", rel="noopener"),
                      className="small mb-2")
    return html.Div([
        html.H2(_("Class mode"), className="h3 visually-hidden"),
        dbc.Row([dbc.Col([explorer, join_box()], md=4, xl=2, className="class-join-col"),
                 dbc.Col([stage_buttons(), stage, question_form()], md=8, xl=10, className="class-stage-col")],
                className="g-4 mb-3"),
        dcc.Store(id=ids.QUESTION),
        dcc.Store(id=ids.CLOCK),
        dcc.Store(id=ids.PLAN, storage_type="session"),
        dcc.Interval(id=ids.POLL, interval=ids.POLL_MS, disabled=True),
        dcc.Interval(id=ids.TICK, interval=1000, disabled=True),
        dcc.Download(id=ids.DOWNLOAD),
    ], id=ids.LECTURER, hidden=True)
