"""The header: h and the seed drive every view, the tab picks the view; the theme, lecture mode and class mode;
and the page's URL and width.

On a phone-width page the header keeps one row of h and the seed, and one of the tabs (at most 12% of a
390 x 844 screen); the theme, lecture mode and the link to class mode wait behind the menu button.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, html

from .. import limits, prefs
from ..attention import HEAD_CHOICES
from ..wiring import Callbacks
from .ids import CONFIG, DISPLAY, HEADS, LECTURE, SEED, TAB
from .wiring import clientside_callback

SEED_MESSAGE = "seed-message"  # why a typed seed was refused
SEED_DEBOUNCE_MS = 500  # a typed seed applies this long after the last key (Enter and leaving the box included)
# Shorter tab labels, so five tabs make one row on a 390 px phone; screen readers keep the whole label.
PHONE_TAB_LABELS = {"example": "Example", "mixing": "Mixing", "clinic": "Bugs"}

# The header's own clientside callbacks: window.dash_clientside.header (assets/header.js).
CALLBACKS = Callbacks("header")
CLASS_LINK = "class-link"


def tab_label(tab: str, label: str):
    if tab not in PHONE_TAB_LABELS:
        return label
    return [html.Span(label, className="phone-hidden"),
            html.Span(PHONE_TAB_LABELS[tab], className="phone-only", **{"aria-hidden": "true"})]


def layout() -> dbc.Navbar:
    """Always in view, at the top of the page."""
    return dbc.Navbar(
        dbc.Container(
            [
                html.H1("Multi-head attention", className="navbar-brand me-2 mb-0 header-brand"),
                html.Div(
                    [
                        # Native controls: a button group and a number box, both reached and set from the keyboard.
                        html.Span(["heads", html.Span(" h", className="phone-hidden")], id="heads-label",
                                  className="small"),
                        html.Div(dbc.RadioItems(
                            id=HEADS, options=[{"label": str(h), "value": h} for h in HEAD_CHOICES],
                            value=limits.DEFAULT_HEADS, inline=True, className="btn-group", inputClassName="btn-check",
                            labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active",
                        ), role="radiogroup", **{"aria-labelledby": "heads-label"}),
                        html.Label([html.Span("example ", className="phone-hidden"), "seed"], htmlFor=SEED,
                                   className="small mb-0 ms-1"),
                        dbc.Input(id=SEED, type="number", min=limits.SEEDS[0], max=limits.SEEDS[-1], step=1,
                                  value=limits.DEFAULT_SEED, debounce=SEED_DEBOUNCE_MS, size="sm",
                                  className="seed-box"),
                        html.Div(id=SEED_MESSAGE, className="seed-message small", role="status"),
                    ],
                    className="header-model d-flex align-items-center gap-2", role="group",
                    **{"aria-label": "example"},
                ),
                *prefs.menu(
                    [
                        prefs.theme_switch(),
                        dbc.Switch(id=LECTURE, label="lecture mode", value=False, className="mb-0 small"),
                        html.A("class mode", id=CLASS_LINK, href="/class", className="small",
                               title="ask the room a question", **{"data-session-key": prefs.RUNNING_SESSION}),
                    ],
                    label="theme, lecture mode, class mode",
                ),
                dbc.RadioItems(
                    id=TAB, options=[{"label": tab_label(k, v), "value": k} for k, v in limits.TABS.items()],
                    value=limits.DEFAULT_TAB, className="btn-group tabbar", inputClassName="btn-check",
                    labelClassName="btn btn-outline-primary", labelCheckedClassName="active",
                ),
            ],
            fluid=True,
            className="gap-2 flex-wrap",
        ),
        expand="sm",  # below Bootstrap's sm breakpoint (limits.NARROW_WIDTH), the menu button shows
        sticky="top",
        color="body",  # follows the light or dark theme, as the text colours do
        dark=False,
        className="controls border-bottom",
    )


# How figures are drawn: fewer panels a row on a phone-width page, larger in lecture mode.
clientside_callback("display", Output(DISPLAY, "data"), Input(LECTURE, "value"), State(CONFIG, "data"))

prefs.wire_menu(CALLBACKS)
# The theme switch starts at the browser's stored choice and stores a new one; lecture mode is copied to the
# browser for class mode's pages (the explorer's own is in its URL).
CALLBACKS.clientside_callback("explorerPrefs", Output(prefs.THEME, "value"), Input(prefs.THEME, "value"),
                              Input(LECTURE, "value"), State(prefs.THEME, "id"))
# The link to class mode names a session this browser runs, so the lecturer returns to it, not to a new one.
CALLBACKS.clientside_callback("classLink", Output(CLASS_LINK, "children"), Input(CLASS_LINK, "id"))
# A seed outside limits.SEEDS is refused by every view (limits.Invalid): the box says so.
CALLBACKS.clientside_callback("seedCheck", Output(SEED, "invalid"), Output(SEED_MESSAGE, "children"),
                              Input(SEED, "value"), State(SEED, "min"), State(SEED, "max"), State(SEED, "id"),
                              State(SEED_MESSAGE, "id"))
