"""The presenter view and the keys that drive a lecture.

Each figure's frame has a "present" button; P presents the figure nearest the middle of the screen, and P or Esc
leaves. 1, 2, 4 and 8 choose h; ← and → step through the heads (the selected head, which the drill-down and the
outlines follow), or through the training steps on the learning tab; ? shows and hides the list of keys.

Every key is a button in that list: assets/explorer.js turns a key press into a click on its button (whatever was
clicked last, unless a text box, a number box or a slider has the focus and keeps its own keys), and a clientside
callback does what the button says. So a key does exactly what a click does, through Dash.
"""

from __future__ import annotations

from dash import ALL, Input, Output, State, html

from ..i18n import N_, _
from .ids import CONFIG, HEADS, LEARN_STEP, LECTURE, SEL_HEAD, TAB
from .wiring import clientside_callback

PRESENT = "present"  # a figure frame's button: {"type": PRESENT, "graph": its graph's id}
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
    ("key-leave", ["Escape"], N_("leave the full-screen figure")),
    ("key-help", ["?"], N_("show or hide this list")),
]
KEY_SHOWN = {"ArrowLeft": "←", "ArrowRight": "→", "Escape": "Esc", "p": "P"}


def present_button(graph_id: str) -> html.Button:
    # Translators: a button that shows one figure alone, full screen, for a lecture
    return html.Button(_("present"), id={"type": PRESENT, "graph": graph_id},
                       className="btn btn-sm btn-outline-secondary present-button",
                       title=_("show this figure alone, full screen (P)"), **{"aria-pressed": "false"})


def shortcuts() -> html.Div:
    """The keys, each the button it presses, in a list that ? (or the button below every tab) shows and hides."""
    items = [item for button, keys, what in SHORTCUTS
             for item in (html.Dt(html.Button(html.Kbd(KEY_SHOWN.get(keys[0], keys[0])), id=button,
                                              className="btn btn-sm btn-outline-secondary shortcut-key")),
                          html.Dd(_(what)))]
    return html.Div(
        [html.Button(_("keyboard shortcuts (?)"), id="key-list", className="btn btn-sm btn-link shortcuts-open"),
         html.Div([html.H2(_("Keyboard shortcuts"), className="h4"), html.Dl(items, className="shortcut-list mb-0")],
                  id=SHORTCUT_LIST, hidden=True, className="shortcut-overlay", role="dialog",
                  **{"aria-label": _("Keyboard shortcuts")})],
        className="shortcuts small")


def client_config() -> dict:
    """Which key presses which button, for explorer.js."""
    return {"keys": {key: button for button, keys, _what in SHORTCUTS for key in keys}}


# What a key's button does: h, the selected head or the training step, and the list shown or hidden.
clientside_callback("shortcut", Output(HEADS, "value", allow_duplicate=True),
                    Output(SEL_HEAD, "value", allow_duplicate=True), Output(LEARN_STEP, "value", allow_duplicate=True),
                    Output(SHORTCUT_LIST, "hidden"),
                    *[Input(button, "n_clicks") for button, _keys, _what in SHORTCUTS if button not in
                      ("key-present", "key-leave")],
                    Input("key-list", "n_clicks"),
                    State(HEADS, "value"), State(SEL_HEAD, "value"), State(TAB, "value"), State(LEARN_STEP, "value"),
                    State(SHORTCUT_LIST, "hidden"), State(CONFIG, "data"), prevent_initial_call=True)

# A present button, P or Esc: the figure alone, full screen, in lecture mode; leaving puts lecture mode back.
clientside_callback("present", Output(LECTURE, "value", allow_duplicate=True),
                    Input({"type": PRESENT, "graph": ALL}, "n_clicks"), Input("key-present", "n_clicks"),
                    Input("key-leave", "n_clicks"), State(LECTURE, "value"), prevent_initial_call=True)
