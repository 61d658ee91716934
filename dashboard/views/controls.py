"""The header: h and the seed drive every view, the tab picks the view; and the page's URL and width."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dcc, html

from .. import limits
from ..attention import HEAD_CHOICES
from ..ids import CONFIG, DISPLAY, HEADS, LECTURE, SEED, TAB, URL, section_id
from ..wiring import clientside_callback


def layout() -> dbc.Navbar:
    """Always in view, at the top of the page."""
    return dbc.Navbar(
        dbc.Container(
            [
                html.Span("Multi-head attention", className="navbar-brand me-3"),
                html.Div(
                    [
                        html.Label("heads h", htmlFor=HEADS, className="small mb-0"),
                        dcc.Dropdown(id=HEADS, options=[{"label": str(h), "value": h} for h in HEAD_CHOICES],
                                     value=limits.DEFAULT_HEADS, clearable=False, searchable=False,
                                     className="control"),
                        html.Label("seed", htmlFor=SEED, className="small mb-0 ms-2"),
                        dcc.Dropdown(id=SEED, options=list(limits.SEEDS), value=limits.DEFAULT_SEED,
                                     clearable=False, searchable=True, className="control"),
                    ],
                    className="d-flex align-items-center gap-2",
                ),
                dbc.Switch(id=LECTURE, label="lecture mode", value=False, className="mb-0 small"),
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
clientside_callback("display", Output(DISPLAY, "data"), Input(URL, "pathname"), Input(LECTURE, "value"),
                    State(CONFIG, "data"))

# One section visible at a time; the others stay mounted so their figures and cameras persist.
clientside_callback("showTab", *[Output(section_id(tab), "hidden") for tab in limits.TABS], Input(TAB, "value"),
                    State(CONFIG, "data"))
