"""The explorer: the header, the model bar, then one section per tab, each built by its view module.

A view module holds its tab's layout and its callbacks side by side (see example.py). Class mode is another
app on the same server (dashboard/classmode): nothing here is mounted on its pages.
"""

from __future__ import annotations

from dash import Input, Output, State, dcc, html
from flask import Response, abort

from .. import languages, limits
from ..attention import HEAD_CHOICES
from ..figures.slide import slide_themes
from ..server import ONE_YEAR
from ..urls import url_param
from . import clinic, controls, equivariance, example, header, learning, mixing, model_bar, plan, presenter, ui
from .ids import CONFIG, DISPLAY, HEADS, LECTURE, PRESENTED, SEED, TAB, URL, WIDTH_CHANGED
from .wiring import CALLBACKS, clientside_callback

VIEWS = (example, mixing, equivariance, learning, clinic)  # in the order of limits.TABS
VIEWS_ID = "views"
# The figures a link or a lecture plan's view can present alone (?present=): each figure frame's present button's.
PRESENTABLE = [component_id["graph"] for view in VIEWS for component_id in view.layout()
               if isinstance(component_id, dict) and component_id.get("type") == presenter.PRESENT]
URL_PARAMS = [
    url_param("tab", TAB, limits.DEFAULT_TAB, choices=limits.TABS),
    url_param("h", HEADS, limits.DEFAULT_HEADS, choices=HEAD_CHOICES),
    url_param("seed", SEED, limits.DEFAULT_SEED, count=len(limits.SEEDS)),
    url_param("lecture", LECTURE, False, flag=True),
    url_param("present", PRESENTED, "", choices=["", *PRESENTABLE], prop="data"),
    *model_bar.URL_PARAMS,
    *example.URL_PARAMS,
    *equivariance.URL_PARAMS,
    *learning.URL_PARAMS,
    *clinic.URL_PARAMS,
]


def config() -> dict:
    """What assets/explorer.js reads: allowed values, ids, the URL schema, the gates and the head options."""
    ids = {"url": URL, "modelBar": model_bar.MODEL_BAR, "widthChanged": WIDTH_CHANGED}
    return {**limits.client_config(), "ids": ids, "url": URL_PARAMS, "keepParams": ["lang"],
            "modelTabs": list(model_bar.MODEL_TABS), "tabStores": controls.client_config(),
            "presenter": presenter.client_config(),
            "slide": slide_themes()}  # by theme, the colours a slide takes (slides.py)


# The page's two listeners, registered once: a key presses its shortcut's button (presenter.py), and a page that
# turns narrow or wide presses WIDTH_CHANGED, which the display store follows (header.py).
clientside_callback("init", Input(CONFIG, "data"))

# One view at a time, and the model bar where it counts. The views are the tabs of a dcc.Tabs whose own tab bar
# is hidden (the header's is the page's): dcc.Tabs renders only the shown tab's view, so a tab the student is not
# on costs the browser nothing (no graphs drawn; measured: with all five views rendered and hidden, a load's
# main thread worked about 2 s more in headless Chromium), while every view's components stay in Dash's layout
# for the callbacks. A return to a tab draws its figures again from what Dash holds, with no request.
clientside_callback("showTab", Output(model_bar.MODEL_BAR, "hidden"), Output(VIEWS_ID, "value"), Input(TAB, "value"),
                    State(CONFIG, "data"))

# The URL holds the state (?tab=…&h=…&seed=…, and each view's own), so a link opens that view, and back and
# forward work. A missing or bad parameter means the default. One callback both ways (Dash allows a callback's
# outputs to be its inputs): the URL, as the page loads and on back and forward, sets the controls; a control
# writes the URL.
clientside_callback("syncUrl", Output(URL, "search"), *[Output(p["id"], p["prop"]) for p in URL_PARAMS],
                    Input(URL, "search"), *[Input(p["id"], p["prop"]) for p in URL_PARAMS], State(CONFIG, "data"))


def layout() -> html.Div:
    return html.Div(
        [
            dcc.Location(id=URL, refresh="callback-nav"),
            *languages.page_parts(),
            dcc.Store(id=CONFIG, data=config()),
            dcc.Store(id=DISPLAY, data={"narrow": False, "lecture": False}),
            dcc.Store(id=PRESENTED, data=""),
            html.Button(id=WIDTH_CHANGED, hidden=True, tabIndex="-1", **{"aria-hidden": "true"}),
            header.layout(),
            html.Main([model_bar.layout(),
                       dcc.Tabs([dcc.Tab(view.layout(), value=tab) for tab, view in zip(limits.TABS, VIEWS)],
                                id=VIEWS_ID, value=limits.DEFAULT_TAB, className="d-none"),
                       plan.layout(),  # the lecture plan and its presenter console, below every tab
                       presenter.shortcuts()],
                      className="container-xxl py-3", id="main"),
        ]
    )


layout_in = languages.in_each_language(layout)  # the page in a language, built once each


def build(app) -> None:
    """The explorer's layout and callbacks on a Dash app."""
    languages.serve(app, layout_in)
    CALLBACKS.wire(app)
    header.CALLBACKS.wire(app)  # the header's own (window.dash_clientside.header, assets/header.js)
    app.server.add_url_rule(f"{ui.FORMULA_PATH}<key>.svg", "formula", formula_file)
    ui.formula_files()  # read now: under gunicorn --preload, once, before the workers fork
    learning.precompute_defaults()


def formula_file(key: str) -> Response:
    """A formula of the seed's text (ui.formula): its key names its content, so it never changes."""
    image = ui.formula_files().get(key)
    if image is None:
        abort(404)
    return Response(image, mimetype="image/svg+xml",
                    headers={"Cache-Control": f"public, max-age={ONE_YEAR}, immutable"})
