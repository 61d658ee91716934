"""Class mode, its own app on the explorer's server under /class: the start page (start.py), the lecturer's
page (form.py, lecturer.py, plan.py) and the students' (student.py), the reveal (results.py, pictures.py), the
store of sessions and answers (store/) and the join link's QR code (qr.py). The questions with their truth from
the core are dashboard/questions.py, which the explorer's lecture plan shares. It mounts nothing of the explorer.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dcc, html

from .. import languages, prefs
from ..i18n import _
from ..wiring import Callbacks
from . import form, ids, lecturer, plan, start, student  # noqa: F401 (each records its callbacks)
from .store import schema
from .wiring import CALLBACKS

PATH = ids.PATH
LECTURE = "lecture"  # lecture mode here too: larger text on the projector
EXPLORER_LINK = "explorer-link"
# The header's callbacks (window.dash_clientside.header, assets/header.js): the theme and lecture mode start as
# the explorer left them in this browser (localStorage; the URL of class mode is on the projector and in the
# join link, and is no place for them), and the link back takes lecture mode to the explorer's URL.
HEADER_CALLBACKS = Callbacks("header")
prefs.wire_menu(HEADER_CALLBACKS)
languages.wire(HEADER_CALLBACKS)
HEADER_CALLBACKS.clientside_callback(
    "classPrefs", Output(prefs.THEME, "value"), Output(LECTURE, "value"), Output(EXPLORER_LINK, "href"),
    Input(prefs.THEME, "value"), Input(LECTURE, "value"), State(EXPLORER_LINK, "href"), State(prefs.THEME, "id"),
    State(LECTURE, "id"))


def header() -> dbc.Navbar:
    """The name, and behind the phone's menu button the theme, lecture mode and the way back to the explorer."""
    return dbc.Navbar(
        dbc.Container([
            # the page's h1, above its sections' h2: on a phone the short name alone
            html.H1([html.Span(_("Multi-head attention: class mode"), className="phone-hidden"),
                     html.Span(_("class mode"), className="phone-only")], className="navbar-brand mb-0"),
            *prefs.menu([prefs.theme_switch(),
                         dbc.Switch(id=LECTURE, label=_("lecture mode"), value=False, className="mb-0 small"),
                         html.A(_("the explorer"), id=EXPLORER_LINK, href="/", className="small"),
                         languages.switch()],
                        label=_("theme, lecture mode, the explorer, language")),
        ], fluid=True, className="gap-2 flex-wrap"),
        expand="sm", color="body", dark=False,  # dark=True (dbc's default) drew white text on the light page
        className="border-bottom class-header",
    )


def layout() -> html.Div:
    return html.Div([
        dcc.Location(id=ids.URL, refresh="callback-nav"),
        *languages.page_parts(),
        dcc.Store(id=ids.PAGE),
        dcc.Store(id=ids.CONTROL, storage_type="session"),
        dcc.Store(id=ids.RULES, data=schema.client_rules()),
        header(),
        html.Main([start.layout(), form.layout(), student.layout()], className="container-xxl py-3"),
    ])


layout_in = languages.in_each_language(layout)  # the page in a language, built once each


def build(app) -> None:
    """Class mode's layout and callbacks on a Dash app."""
    languages.serve(app, layout_in)
    CALLBACKS.wire(app)
    HEADER_CALLBACKS.wire(app)


def health() -> str:
    """The store's state for /healthz: 'ok', or 'down' when it cannot be reached or cannot write."""
    from .store import StoreError

    try:
        return ids.store().health()
    except StoreError:
        return "down"
