"""Class mode, its own app on the explorer's server under /class: the start page (start.py), the lecturer's
page (form.py, lecturer.py, plan.py) and the students' (student.py), the questions with their truth from the
core (templates.py), the reveal (results.py, pictures.py), the store of sessions and answers (store/) and the
join link's QR code (qr.py). It mounts nothing of the explorer.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import dcc, html

from . import form, ids, lecturer, plan, start, student  # noqa: F401 (each records its callbacks)
from .wiring import CALLBACKS

PATH = ids.PATH


def layout() -> html.Div:
    header = dbc.Navbar(dbc.Container([html.H1("Multi-head attention: class mode", className="navbar-brand mb-0"),
                                       html.A("the explorer", href="/", className="small")], fluid=True),
                        color="body", className="border-bottom")
    return html.Div([
        dcc.Location(id=ids.URL, refresh="callback-nav"),
        dcc.Store(id=ids.PAGE),
        dcc.Store(id=ids.CONTROL, storage_type="session"),
        header,
        html.Main([start.layout(), form.layout(), student.layout()], className="container-xxl py-3"),
    ])


def build(app) -> None:
    """Class mode's layout and callbacks on a Dash app."""
    app.layout = layout()
    CALLBACKS.wire(app)


def health() -> str:
    """The store's state for /healthz: 'ok', or 'down' when it cannot be reached or cannot write."""
    from .store import StoreError

    try:
        return ids.store().health()
    except StoreError:
        return "down"
