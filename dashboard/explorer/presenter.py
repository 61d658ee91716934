"""The presenter view and the keys that drive a lecture.

Each figure's frame has a "present" button; P presents the figure nearest the middle of the screen, and P or Esc
leaves. 1, 2, 4 and 8 choose h; ← and → step through the heads (the selected head, which the drill-down and the
outlines follow), or through the training steps on the learning tab; PageDown and PageUp (a clicker's next and
previous) step through the lecture plan (plan.py); C, R and M hide the selected weight, its row or its head's map
until the class has predicted it (predict.py); A adds the page's view to the plan; ? shows and hides the list of keys.

Every key is a button in that list: assets/explorer.js turns a key press into a click on its button (whatever was
clicked last, unless a text box, a number box or a slider has the focus and keeps its own keys), and the clientside
callback `shortcut` below does what the button says. So a key does exactly what a click does, through Dash.
"""

from __future__ import annotations

from dash import ALL, Input, Output, State, dcc, html

from .. import limits
from ..i18n import N_, _
from .ids import CONFIG, HEADS, LEARN_STEP, LECTURE, PRESENTED, SEL_HEAD, TAB
from .wiring import clientside_callback

PRESENT = "present"  # a figure frame's button: {"type": PRESENT, "graph": its graph's id}
PLAN_ADD_KEY = "key-plan-add"  # A: as the plan's "add this view" (plan.edit), which the presenter view covers
SHORTCUT_LIST = "shortcuts"
# (button, keys that press it, what it does): the list shows them, explorer.js maps the keys
SHORTCUTS = [
    ("key-h1", ["1"], N_("one head: h = 1")),
    ("key-h2", ["2"], N_("two heads: h = 2")),
    ("key-h4", ["4"], N_("four heads: h = 4")),
    ("key-h8", ["8"], N_("eight heads: h = 8")),
    ("key-previous", ["ArrowLeft"], N_("the previous head (the learning tab: the previous training step)")),
    ("key-next", ["ArrowRight"], N_("the next head (the learning tab: the next training step)")),
    ("key-present", ["p", "P"], N_("show the figure in the middle of the screen alone, full screen; P again to leave")),
    ("key-leave", ["Escape"], N_("leave the full-screen figure, or close this list")),
    ("key-hide-cell", ["c", "C"], N_("predict first: hide the selected weight on the heatmaps; C again shows it")),
    ("key-hide-row", ["r", "R"], N_("predict first: hide the selected query's row of weights; R again shows it")),
    ("key-hide-map", ["m", "M"], N_("predict first: hide the selected head's map; M again shows it")),
    ("key-plan-next", ["PageDown"], N_("the lecture plan's next step (a clicker's next)")),
    ("key-plan-previous", ["PageUp"], N_("the lecture plan's previous step")),
    (PLAN_ADD_KEY, ["a", "A"], N_("add the page's view to the lecture plan, the presented figure too")),
    ("key-help", ["?"], N_("show or hide this list")),
]
KEY_SHOWN = {"ArrowLeft": "←", "ArrowRight": "→", "Escape": "Esc", "p": "P", "c": "C", "r": "R", "m": "M", "a": "A"}
# Translators: the Page Down and Page Up keys, as a keyboard labels them
KEY_WORDS = {"PageDown": N_("PgDn"), "PageUp": N_("PgUp")}
PLAN_STEP_KEYS = {"key-plan-previous": -1, "key-plan-next": 1}  # the lecture plan's buttons (plan.step)


def present_button(graph_id: str) -> html.Button:
    # Translators: a button that shows one figure alone, full screen, for a lecture
    return html.Button(_("present"), id={"type": PRESENT, "graph": graph_id},
                       className="btn btn-sm btn-outline-secondary present-button",
                       title=_("show this figure alone, full screen (P)"), **{"aria-pressed": "false"})


def key_label(key: str) -> str:
    return _(KEY_WORDS[key]) if key in KEY_WORDS else KEY_SHOWN.get(key, key)


def shortcuts() -> html.Div:
    """The keys, each the button it presses, in a list that ? (or the button below every tab) shows and hides."""
    items = [item for button, keys, what in SHORTCUTS
             for item in (html.Dt(html.Button(html.Kbd(key_label(keys[0])), id=button,
                                              className="btn btn-sm btn-outline-secondary shortcut-key")),
                          html.Dd(_(what)))]
    return html.Div(
        [html.Button(_("keyboard shortcuts (?)"), id="key-list", className="btn btn-sm btn-link shortcuts-open"),
         html.Div([html.H2(_("Keyboard shortcuts"), className="h4"), html.Dl(items, className="shortcut-list mb-0")],
                  id=SHORTCUT_LIST, hidden=True, className="shortcut-overlay", role="dialog",
                  **{"aria-label": _("Keyboard shortcuts")}),
         dcc.Store(id=KEY_PRESSES, data={})],
        className="shortcuts small")


HEAD_KEYS = {"key-h1": 1, "key-h2": 2, "key-h4": 4, "key-h8": 8}
STEP_KEYS = {"key-previous": -1, "key-next": 1}
LIST_KEYS = ["key-help", "key-list"]  # ? and the button below every tab: the list of keys, shown or hidden
CLOSE_KEYS = ["key-leave"]  # Esc: hides the list too (it also leaves the presenter view: `present` below)
KEY_BUTTONS = [*HEAD_KEYS, *STEP_KEYS, *LIST_KEYS, *CLOSE_KEYS]  # the buttons `shortcut` below answers
KEY_PRESSES = "key-presses"  # their presses (n_clicks, by button) that `shortcut` has acted on


def client_config() -> dict:
    """Which key presses which button, and what each button changes, for explorer.js and rules.js (keyChange)."""
    return {"keys": {key: button for button, keys, _what in SHORTCUTS for key in keys}, "buttons": KEY_BUTTONS,
            "heads": HEAD_KEYS, "steps": STEP_KEYS, "lists": LIST_KEYS, "closes": CLOSE_KEYS,
            "trainingSteps": list(limits.SNAPSHOT_STEPS)}


# What the keys' buttons do: h, the selected head or the training step, or the list of keys shown or hidden. It
# runs in the browser (rules.js, keyChange) and counts the presses not yet acted on, so that each press counts:
# a server callback read the same head for every press made while the first was in flight (of three → 30 ms
# apart it counted two), and Dash runs a callback once for presses that reach it together (a page busy drawing
# queues the key events).
clientside_callback("shortcut", Output(HEADS, "value", allow_duplicate=True),
                    Output(SEL_HEAD, "value", allow_duplicate=True), Output(LEARN_STEP, "value", allow_duplicate=True),
                    Output(SHORTCUT_LIST, "hidden"), Output(KEY_PRESSES, "data"),
                    *[Input(button, "n_clicks") for button in KEY_BUTTONS],
                    State(KEY_PRESSES, "data"), State(HEADS, "value"), State(SEL_HEAD, "value"), State(TAB, "value"),
                    State(LEARN_STEP, "value"), State(SHORTCUT_LIST, "hidden"), State(CONFIG, "data"),
                    prevent_initial_call=True)


# A present button, P or Esc: the figure alone, full screen, in lecture mode; leaving puts lecture mode back. The
# URL holds which figure (PRESENTED, ?present=), so a link, a lecture plan's view, back and forward present it too.
clientside_callback("present", Output(LECTURE, "value", allow_duplicate=True),
                    Output(PRESENTED, "data", allow_duplicate=True),
                    Input({"type": PRESENT, "graph": ALL}, "n_clicks"), Input("key-present", "n_clicks"),
                    Input("key-leave", "n_clicks"), Input(PRESENTED, "data"), State(LECTURE, "value"),
                    State(TAB, "value"), prevent_initial_call=True)
