"""Multi-Head Attention Explorer: the seed notebook as an interactive Dash dashboard.

Importing the package loads nothing heavy: `dashboard.attention` and `dashboard.training` need numpy only.
"""

from html import escape
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
# Each app loads the assets it uses: the explorer none of class mode's, class mode none of the explorer's.
EXPLORER_ONLY = r"(^|/)explorer\.js$"
CLASS_ONLY = r"(^|/)(classmode\.js|class\.css)$"


def create_apps(password: str | None = None) -> tuple:
    """The explorer at / and class mode at /class/: two Dash apps on one Flask server, each with its own
    layout and callbacks, served from this machine only. `password` defaults to $CLASS_PASSWORD."""
    from dash import Dash
    from flask import Flask

    from . import classmode, explorer, i18n, server
    from .figures.slide import DIVERGING_FILTER

    flask_server = Flask(__name__)

    def app(name: str, path: str, ignore: str, title: str) -> Dash:
        dash_app = Dash(name, server=flask_server, url_base_pathname=path, assets_folder=str(ASSETS),
                        assets_ignore=ignore, title=title, update_title=None, serve_locally=True,
                        compress=False)  # server.harden sets up flask-compress with gzip for streamed files too

        def index(**parts) -> str:
            """The page in its language (server.page_language): <html lang> and the title; and dark mode's filter
            for diverging colour maps (figures/slide.py), which assets/site/theme.css names."""
            lang = server.page_language()
            with i18n.use(lang):
                page = Dash.interpolate_index(dash_app, **{**parts, "title": escape(i18n._(title))})
                loading = escape(i18n._("Loading…"))
            page = page.replace("<body>", "<body>" + DIVERGING_FILTER, 1)
            return page.replace("<html>", f'<html lang="{lang}">', 1).replace("Loading...", loading, 1)

        dash_app.interpolate_index = index
        return dash_app

    explorer_app = app("explorer", "/", CLASS_ONLY, i18n.N_("Multi-head attention explorer"))
    explorer.build(explorer_app)
    class_app = app("classmode", classmode.PATH + "/", EXPLORER_ONLY, i18n.N_("Multi-head attention: class mode"))
    classmode.build(class_app)
    server.harden([explorer_app, class_app], password, {"store": classmode.health})
    # Dash sets an app up on the first request its server sees. Two threads of a fresh gunicorn worker can race
    # through that request, and the second then serves a script the first has not registered yet (a 404 on
    # React, a blank page). One request now sets both apps up before any client comes; under --preload it
    # runs once, in the master, before the workers fork.
    flask_server.test_client().get(server.HEALTH_PATH)
    return explorer_app, class_app


def create_app(password: str | None = None):
    """The explorer's Dash app; its server (`app.server`) serves class mode too."""
    return create_apps(password)[0]
