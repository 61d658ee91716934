"""The header: h and the seed drive every view, the tab picks the view; and the page's URL and width."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, html

from .. import limits
from ..attention import HEAD_CHOICES
from .ids import CONFIG, DISPLAY, HEADS, LECTURE, SEED, TAB
from .wiring import clientside_callback


def layout() -> dbc.Navbar:
    """Always in view, at the top of the page."""
    return dbc.Navbar(
        dbc.Container(
            [
                html.H1("Multi-head attention", className="navbar-brand me-3 mb-0"),
                html.Div(
                    [
                        # Native controls: a button group and a number box, both reached and set from the keyboard.
                        html.Span("heads h", id="heads-label", className="small"),
                        html.Div(dbc.RadioItems(
                            id=HEADS, options=[{"label": str(h), "value": h} for h in HEAD_CHOICES],
                            value=limits.DEFAULT_HEADS, inline=True, className="btn-group", inputClassName="btn-check",
                            labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active",
                        ), role="radiogroup", **{"aria-labelledby": "heads-label"}),
                        html.Label("example seed", htmlFor=SEED, className="small mb-0 ms-2"),
                        dbc.Input(id=SEED, type="number", min=limits.SEEDS[0], max=limits.SEEDS[-1], step=1,
                                  value=limits.DEFAULT_SEED, debounce=True, size="sm", className="seed-box"),
                    ],
                    className="d-flex align-items-center flex-wrap gap-2", role="group", **{"aria-label": "example"},
                ),
                dbc.Switch(id=LECTURE, label="lecture mode", value=False, className="mb-0 small"),
                html.A("class mode", href="/class", className="small", title="ask the room a question"),
                dbc.RadioItems(
                    id=TAB, options=[{"label": v, "value": k} for k, v in limits.TABS.items()],
                    value=limits.DEFAULT_TAB, className="btn-group flex-wrap tabbar", inputClassName="btn-check",
                    labelClassName="btn btn-outline-primary", labelCheckedClassName="active",
                ),
            ],
            fluid=True,
            className="gap-2 flex-wrap",
        ),
        sticky="top",
        color="body",  # follows the light or dark theme, as the text colours do
        dark=False,
        className="controls border-bottom",
    )


# How figures are drawn: fewer panels a row on a phone-width page, larger in lecture mode.
clientside_callback("display", Output(DISPLAY, "data"), Input(LECTURE, "value"), State(CONFIG, "data"))

