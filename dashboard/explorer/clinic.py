"""Bug clinic: the worked example's layer with one student's mistake switched in, beside the correct layer; the
checks a student can run on both; and mystery mode, where the page hides the bug and the student names it."""

from __future__ import annotations

import secrets

import dash_bootstrap_components as dbc
from dash import Input, Output, State, ctx, dcc, html, no_update

from .. import bugs, checks, i18n, limits, trainer
from ..figures import Display
from ..figures import clinic as fig
from ..i18n import _
from ..state import SETTINGS_CACHED, Setting, bug_layers, checks_example
from ..urls import url_param
from . import clinic_text as text
from . import clinic_path, selection
from .clinic_controls import (CLINIC_BUG, CLINIC_BUGGY, CLINIC_CAUSAL, CLINIC_CELL, CLINIC_HEATMAPS, LAYERS, MYSTERY,
                              Layers, shown)
from .controls import MODEL, Cell, ModelView
from .ids import section_id
from .ui import graph, live_html
from .wiring import callback

PICKER = "clinic-picker"  # the bug's radio buttons, hidden in mystery mode
NEW_MYSTERY = "clinic-new-mystery"
LEAVE_MYSTERY = "clinic-leave-mystery"
LEAVE_BOX = "clinic-leave-box"  # shown in mystery mode only
CLINIC_CHECKS = "clinic-checks"
ANSWER_BOX = "clinic-answer-box"  # shown in mystery mode only
ANSWER = "clinic-answer"
SUBMIT = "clinic-submit"
VERDICT = "clinic-verdict"
HEADLINE = "clinic-headline"
OUTPUT = "clinic-output"
STORY = "clinic-story"
TABLE = "clinic-table"
CATCHES = "clinic-catches"
POLL = "clinic-poll"  # while the layers train for "still learns"
# the bug stays out of a mystery's URL, which names no bug
URL_PARAMS = [url_param("bug", CLINIC_BUG, limits.DEFAULT_BUG, choices=limits.BUG_NAMES, tab="clinic",
                        when=("mystery", 0)),
              url_param("mystery", MYSTERY, limits.NO_MYSTERY, count=len(limits.MYSTERIES), tab="clinic"),
              url_param("causal", CLINIC_CAUSAL, False, flag=True, tab="clinic")]

MODEL_STORE = MODEL["clinic"]


def layout() -> html.Section:
    options = [{"label": _(name), "value": key} for key, name in limits.BUG_NAMES.items()]
    controls = html.Div(
        [
            html.Fieldset([html.Legend(_("bug switched in"), className="small mb-1"),
                           dbc.RadioItems(id=CLINIC_BUG, options=options, value=limits.DEFAULT_BUG, className="small")],
                          id=PICKER),
            dbc.Switch(id=CLINIC_CAUSAL, label=_("causal mask (a decoder's): query r sees keys 0 … r"), value=False,
                       className="small mt-2"),
            html.Div([html.Label(_("mystery number (1 to 999; 0 or empty: no mystery)"), htmlFor=MYSTERY,
                                 className="small mb-0"),
                      dbc.Input(id=MYSTERY, type="number", min=limits.MYSTERIES[0], max=limits.MYSTERIES[-1], step=1,
                                value=limits.NO_MYSTERY, debounce=True, size="sm", className="seed-box"),
                      dbc.Button(_("new mystery"), id=NEW_MYSTERY, color="primary", size="sm"),
                      html.Span(dbc.Button(_("leave mystery mode"), id=LEAVE_MYSTERY, color="secondary",
                                           outline=True, size="sm"), id=LEAVE_BOX, hidden=True)],
                     className="d-flex align-items-center gap-2 flex-wrap mt-2"),
            html.Fieldset([html.Legend(_("checks to run"), className="small mb-1"),
                           dbc.Checklist(id=CLINIC_CHECKS, options=[{"label": _(name), "value": key} for key, name in
                                                             checks.CHECKS.items()],
                                         value=limits.DEFAULT_CHECKS, className="small")], className="mt-2"),
            html.Div([html.Fieldset([html.Legend(_("Which bug is it?"), className="small mb-1"),
                                     dbc.RadioItems(id=ANSWER, options=options, value=None, className="small")]),
                      dbc.Button(_("check my answer"), id=SUBMIT, color="primary", size="sm", className="mt-1"),
                      html.Div(id=VERDICT, className="clinic-verdict mt-2", **{"aria-live": "polite"})],
                     id=ANSWER_BOX, hidden=True, className="clinic-answer mt-3"),
        ],
        className="clinic-controls",
    )
    intro = html.Div(
        [html.H2(_("Bug clinic")),
         html.P(_("Students who implement attention make the same few mistakes, and most run without an error. Here "
                  "the worked example's layer (the model bar's h, seed, size, scale and weights) runs with one "
                  "mistake switched in, beside the correct layer. Run the checks on both and see which one catches "
                  "it.")),
         html.P(_("In mystery mode the page picks a bug and hides its name: run the checks, read the heatmaps, and "
                  "name it. A link with the mystery number gives the same bug to everyone.")),
         live_html(STORY, className="clinic-story")],
        className="prose",
    )
    return html.Section([
            MODEL_STORE.store(),
            dbc.Row([dbc.Col(intro, lg=5, className="explain"),
                  dbc.Col([controls, html.P(id=HEADLINE, className="live-text mt-3", **{"aria-live": "polite"}),
                           graph(CLINIC_HEATMAPS), graph(CLINIC_BUGGY), graph(OUTPUT), clinic_path.layout()], lg=7,
                          className="view")],
                 className="g-4 mb-3 align-items-start"),
         # a table wider than a phone scrolls in its box, which the keyboard reaches too
            html.Div(id=TABLE, className="clinic-table mt-3", tabIndex="0", role="region",
                     **{"aria-label": _("the checks on both layers")}),
            html.Div(id=CATCHES, className="clinic-table mt-3", tabIndex="0", role="region",
                     **{"aria-label": _("which check catches which bug")}),
            dcc.Interval(id=POLL, interval=500, disabled=True)], id=section_id("clinic"))


@i18n.lru_cache(maxsize=SETTINGS_CACHED)
def clinic_figures(s: Setting, bug_key: str, mystery: int, causal: bool, display: Display) -> tuple[dict, dict, dict,
                                                                                                     str]:
    bug, label = shown(bug_key, mystery, causal)
    layers = bug_layers(s, bug.key, causal)
    ex, right, wrong, zmax = *layers, layers.zmax
    # Translators: the correct layer's heatmaps are titled "head 1, correct"
    correct, label = _("correct"), _(label)
    name = _("mystery {number}").format(number=mystery) if mystery else _(bug.name)
    return (fig.layer_heatmaps(right.A, correct, zmax, display), fig.layer_heatmaps(wrong.A, label, zmax, display),
            fig.output_difference(right.output, wrong.output, label, display),
            text.mystery_headline(s, causal) if mystery else text.headline(s, name, right, wrong, ex.causal))


@callback(Output(CLINIC_HEATMAPS, "figure"), Output(CLINIC_BUGGY, "figure"), Output(OUTPUT, "figure"),
          Output(HEADLINE, "children"),
          inputs=dict(shared=MODEL_STORE.input, layers=LAYERS, cell=CLINIC_CELL), prevent_initial_call=True)
def update_clinic(shared, layers, cell):
    """Each head's A in both layers with the followed cell outlined, their outputs and difference, and a sentence
    with the largest gaps; a new cell only moves the outlines."""
    view, chosen, selected = ModelView.parse(shared), Layers.parse(**layers), Cell(**cell)
    s = view.setting
    if selection.only_the_cell_changed(CLINIC_CELL):  # a new cell only moves the outlines
        return selection.outline_patch(selected, s), selection.outline_patch(selected, s), no_update, no_update
    right, wrong, outputs, headline = clinic_figures(s, *chosen, view.display)
    return (selection.with_outline(right, selected, s), selection.with_outline(wrong, selected, s), outputs,
            headline)


@i18n.lru_cache(maxsize=SETTINGS_CACHED)
def checks_tables(s: Setting, bug_key: str, mystery: int, causal: bool, which: tuple[str, ...], losses: tuple):
    """The tables and the story; `losses` are the trained layers' (checks.learning_losses) as items, if "learns"
    is in `which`."""
    bug, label = shown(bug_key, mystery, causal)
    ex = checks_example(s, causal)
    found = checks.side_by_side(ex, bug, which, dict(losses))
    table = text.checks_table(found, label)
    catches = text.catch_table(checks.catch_table(ex, which, dict(losses)), which, s.h)
    story = text.mystery_note(mystery) if mystery else text.story(bug, checks.caught_by(found) if which else "",
                                                                  bugs.is_causal(bug, causal))
    return table, catches, story


def learning_losses(s: Setting, causal: bool, wait: bool = False) -> dict | None:
    """Every layer's test loss after training at the page's scale, computed once in the trainer's child; None while
    it trains."""
    temperature = None if s.scale == "none" else s.temperature
    return trainer.off_request(checks.learning_losses, s.h, causal, temperature, wait=wait)


@callback(Output(TABLE, "children"), Output(CATCHES, "children"), Output(STORY, "children"),
          Output(PICKER, "hidden"), Output(ANSWER_BOX, "hidden"), Output(LEAVE_BOX, "hidden"), Output(POLL, "disabled"),
          inputs=dict(shared=MODEL_STORE.input, layers=LAYERS, which=Input(CLINIC_CHECKS, "value"),
                      polls=Input(POLL, "n_intervals")), prevent_initial_call=True)
def update_checks(shared, layers, which, polls):
    """The chosen checks on both layers, which check catches which bug here, and the bug's story (hidden in
    mystery mode, where the answer box shows instead of the bug's buttons). "still learns" trains every layer off
    the request path: the page polls until the layers are trained, and the tables show the other checks meanwhile."""
    s, view, which = ModelView.parse(shared).setting, Layers.parse(**layers), limits.checks(which)
    losses = learning_losses(s, view.causal) if "learns" in which else {}
    if losses is None and ctx.triggered_id == POLL:
        return (no_update,) * 6 + (False,)  # still training: poll on
    ready = which if losses is not None else tuple(c for c in which if c != "learns")
    table, catches, story = checks_tables(s, *view, ready, tuple(sorted((losses or {}).items(), key=str)))
    if losses is None:
        table = html.Div([text.training_note(s.h), table])
    mystery = bool(view.mystery)
    return table, catches, story, mystery, not mystery, not mystery, losses is not None


@callback(Output(VERDICT, "children"),
          inputs=dict(clicks=Input(SUBMIT, "n_clicks"), shared=MODEL_STORE.input, layers=LAYERS,
                      answer=Input(ANSWER, "value")), prevent_initial_call=True)
def judge(clicks, shared, layers, answer):
    """Whether the named bug is the mystery's, and why; a change of the answer or the setting clears it."""
    s, view = ModelView.parse(shared).setting, Layers.parse(**layers)
    answer = None if answer is None else limits.bug(answer)
    if ctx.triggered_id != SUBMIT or not view.mystery:
        return ""
    if answer is None:
        return text.verdict(None, _("Choose a bug first."))
    ex = checks_example(s, view.causal)
    return text.verdict(*checks.judge(ex, bugs.mystery(view.mystery, view.causal), bugs.BUGS_BY_KEY[answer]))


@callback(Output(MYSTERY, "value", allow_duplicate=True), Input(NEW_MYSTERY, "n_clicks"),
          Input(LEAVE_MYSTERY, "n_clicks"), State(MYSTERY, "value"), prevent_initial_call=True)
def choose_mystery(new, leave, current):
    """"new mystery" draws another number than the one shown; "leave mystery mode" sets 0."""
    if ctx.triggered_id == LEAVE_MYSTERY:
        return limits.NO_MYSTERY
    if ctx.triggered_id != NEW_MYSTERY:
        return no_update
    last = limits.MYSTERIES[-1]
    shown_now = current if limits.is_int(current) and 1 <= current <= last else 0
    return (shown_now + secrets.randbelow(last - 1)) % last + 1 if shown_now else secrets.randbelow(last) + 1
