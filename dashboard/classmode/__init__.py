"""Class mode, its own app on the explorer's server under /class: the lecturer's page (lecturer.py) and the
students' (student.py), the questions with their truth from the core (questions.py), the store of sessions
and answers (store/) and the join link's QR code (qr.py). It mounts nothing of the explorer.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from . import lecturer, student
from .wiring import CALLBACKS

PATH = lecturer.PATH


def layout() -> html.Div:
    header = dbc.Navbar(dbc.Container([html.Span("Multi-head attention: class mode", className="navbar-brand"),
                                       html.A("the explorer", href="/", className="small")], fluid=True),
                        color="body", className="border-bottom")
    return html.Div([
        dcc.Location(id=lecturer.URL, refresh="callback-nav"),
        dcc.Store(id=lecturer.PAGE),
        header,
        html.Main([lecturer.layout(), student.layout()], className="container-xxl py-3"),
    ])


def build(app) -> None:
    """Class mode's layout and callbacks on a Dash app."""
    app.layout = layout()
    CALLBACKS.wire(app)
