"""The page: the header, then one section per tab, each built by its view module.

A view module holds its tab's layout and its callbacks side by side (see views/example.py).
"""

from __future__ import annotations

from dash import Input, Output, State, dcc, html

from .. import limits
from ..attention import HEAD_CHOICES
from ..ids import CONFIG, DISPLAY, HEADS, LECTURE, SECTION_PREFIX, SEED, NEAR, TAB, URL, section_id
from ..wiring import clientside_callback
from . import classroom, controls, equivariance, example, gate, learning, mixing, model, student

VIEWS = (example, mixing, equivariance, learning)  # in the order of limits.TABS
URL_PARAMS = [
    limits.url_param("tab", TAB, limits.DEFAULT_TAB, choices=limits.TABS),
    limits.url_param("h", HEADS, limits.DEFAULT_HEADS, choices=HEAD_CHOICES),
    limits.url_param("seed", SEED, limits.DEFAULT_SEED, count=len(limits.SEEDS)),
    limits.url_param("lecture", LECTURE, False, flag=True),
    *model.URL_PARAMS,
    *(param for view in VIEWS for param in view.URL_PARAMS),
]


def config() -> dict:
    ids = {"url": URL, "display": DISPLAY, "modelBar": model.MODEL_BAR, "section": SECTION_PREFIX, "shuffle": equivariance.SHUFFLE,
           "reverse": equivariance.REVERSE, "play": learning.LEARN_PLAY, "near": NEAR,
           "headButtonsWithAll": [example.CUBE_FOCUS]}
    return {**limits.client_config(ids, URL_PARAMS), "modelTabs": list(model.TABS), "gates": gate.client_config(),
            "classMode": classroom.client_config()}


# One view visible at a time, and the model bar where it counts; hidden views stay mounted, so their
# figures and cameras persist.
clientside_callback("showTab", Output(model.MODEL_BAR, "hidden"),
                    *[Output(section_id(tab), "hidden") for tab in limits.TABS], Input(TAB, "value"),
                    State(CONFIG, "data"))


def make_layout() -> html.Div:
    return html.Div(
        [
            dcc.Location(id=URL, refresh="callback-nav"),
            dcc.Store(id=CONFIG, data=config()),
            dcc.Store(id=DISPLAY, data={"narrow": False, "lecture": False}),
            *gate.stores(),
            controls.layout(),
            html.Main([model.layout()] + [view.layout() for view in VIEWS], className="container-xxl py-3", id="main"),
            html.Div([classroom.layout(), student.layout()], className="container-xxl py-3", id=classroom.SECTION,
                     role="main", hidden=True),
        ]
    )


# The URL holds the state (?tab=…&h=…&seed=…, and each view's own), so a link opens that view,
# and back and forward work. A missing or bad parameter means the default.
clientside_callback("syncUrl", Output(URL, "search"), *[Output(p["id"], "value") for p in URL_PARAMS],
                    Input(URL, "search"), *[Input(p["id"], "value") for p in URL_PARAMS], State(CONFIG, "data"))
