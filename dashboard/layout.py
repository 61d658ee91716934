"""The page: components, their ids, and the seed's text beside the view that shows it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import dash_bootstrap_components as dbc
from dash import dcc, html

from . import figures, training
from .attention import HEAD_CHOICES, N_TOKENS

CONTENT = Path(__file__).parent / "content"
# The same text as HTML, its LaTeX typeset to SVG by tools/build_assets.sh, so the page loads no MathJax.
RENDERED = CONTENT / "rendered"

# ---- ids: every callback refers to these, never to a literal string
URL = "url"
CONFIG = "config"
NARROW = "narrow"  # true on a phone-width page: figures put fewer panels in a row
HEADS = "heads"
SEED = "seed"
TAB = "tab"
TOKENS = "tokens"
BLOCKS = "blocks"
HEATMAPS = "heatmaps"
CUBE = "cube"
CUBE_FOCUS = "cube-focus"
MIX_SINGLE = "mixing-single"
MIX_MULTI = "mixing-multi"
PERM = "perm"
PERM_FEEDBACK = "perm-feedback"
SHUFFLE = "perm-shuffle"
REVERSE = "perm-reverse"
IDENTITY = "perm-identity"
POSITIONS = "positions"
EQ_HEAD = "eq-head"
EQ_CHECK = "eq-check"
EQ_INPUTS = "eq-inputs"
EQ_ATTENTION = "eq-attention"
LEARN_SEED = "learn-seed"
LEARN_TRAIN = "learn-train"
LEARN_REQUESTED = "learn-requested"  # the training seed asked for with "train"
LEARN_READY = "learn-ready"  # the training seed whose runs are shown
LEARN_POLL = "learn-poll"
LEARN_STATUS = "learn-status"
LEARN_TASK = "learn-task"
LEARN_LOSS = "learn-loss"
LEARN_STEP = "learn-step"
LEARN_PLAY = "learn-play"
LEARN_TIMER = "learn-timer"
LEARN_ATTENTION = "learn-attention"
LEARN_MASS = "learn-mass"

SEEDS = range(100)
TRAINING_SEEDS = range(10)
SNAPSHOTS = range(training.STEPS // training.SNAPSHOT_EVERY + 1)  # slider positions: step = k * SNAPSHOT_EVERY
DEFAULT_HEADS = 4
DEFAULT_SEED = 0
DEFAULT_PERM = " ".join(map(str, range(N_TOKENS)))
TABS = {  # value -> label, in the seed's order
    "example": "Worked example",
    "mixing": "Single vs multi-head",
    "equivariance": "Equivariance",
    "learning": "Learning",
}
DEFAULT_TAB = "example"
NARROW_WIDTH = 576  # px: Bootstrap's "sm" breakpoint, below which the page is a phone's
# A focus of 0 means "all heads"; k >= 1 brings head k forward.
ALL_HEADS = 0


SECTION_PREFIX = "section-"


def section_id(tab: str) -> str:
    return SECTION_PREFIX + tab


@cache
def markdown(name: str) -> dcc.Markdown:
    """A section of the seed's text. Its raw HTML is our own build output, never user input."""
    text = (RENDERED / f"{name}.html").read_text(encoding="utf-8")
    return dcc.Markdown(text, dangerously_allow_html=True, className="prose")


def graph(graph_id: str, figure: dict | None = None, **kwargs) -> dcc.Graph:
    return dcc.Graph(id=graph_id, figure=figure or {"data": [], "layout": figures.base_layout()},
                     config=figures.GRAPH_CONFIG, **kwargs)


def text_beside_view(texts: list[str], view) -> dbc.Row:
    """The seed's explanation on the left, the view it describes on the right (stacked on a phone)."""
    return dbc.Row(
        [dbc.Col([markdown(t) for t in texts], lg=5, className="explain"), dbc.Col(view, lg=7, className="view")],
        className="g-4 mb-4 align-items-start",
    )


def head_buttons(button_id: str, label: str, include_all: bool) -> html.Div:
    """A radio group of buttons ['all',] 'head 1' … 'head h'; the browser sets the options to match h."""
    options = head_options(DEFAULT_HEADS, include_all)
    return html.Div(
        [html.Span(label, className="me-2 small text-body-secondary"),
         dbc.RadioItems(id=button_id, options=options, value=options[0]["value"], inline=True,
                        className="btn-group flex-wrap", inputClassName="btn-check",
                        labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active")],
        className="d-flex align-items-center flex-wrap gap-1 mb-2",
    )


def head_options(h: int, include_all: bool) -> list[dict]:
    heads = [{"label": f"head {k}", "value": k} for k in range(1, h + 1)]
    return [{"label": "all", "value": ALL_HEADS}] + heads if include_all else heads


def controls() -> dbc.Navbar:
    """Always in view: h and the seed drive every view; the tab picks the view."""
    return dbc.Navbar(
        dbc.Container(
            [
                html.Span("Multi-head attention", className="navbar-brand me-3"),
                html.Div(
                    [
                        html.Label("heads h", htmlFor=HEADS, className="small mb-0"),
                        dcc.Dropdown(id=HEADS, options=[{"label": str(h), "value": h} for h in HEAD_CHOICES],
                                     value=DEFAULT_HEADS, clearable=False, searchable=False, className="control"),
                        html.Label("seed", htmlFor=SEED, className="small mb-0 ms-2"),
                        dcc.Dropdown(id=SEED, options=list(SEEDS), value=DEFAULT_SEED, clearable=False,
                                     searchable=True, className="control"),
                    ],
                    className="d-flex align-items-center gap-2",
                ),
                dbc.RadioItems(
                    id=TAB, options=[{"label": v, "value": k} for k, v in TABS.items()], value=DEFAULT_TAB,
                    className="btn-group flex-wrap tabbar", inputClassName="btn-check",
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


def example_section() -> html.Section:
    return html.Section(
        [
            markdown("intro"),
            text_beside_view(["single_head"], graph(TOKENS)),
            text_beside_view(["block_structure"], graph(BLOCKS)),
            dbc.Row([dbc.Col(markdown("multi_head"), lg=6), dbc.Col(markdown("bilinear"), lg=6)], className="g-4"),
            html.H3("Per-head attention matrices", className="h5 mt-2"),
            graph(HEATMAPS, className="mb-4"),
            text_beside_view(
                ["worked_example", "cube"],
                [head_buttons(CUBE_FOCUS, "bring forward", include_all=True),
                 graph(CUBE, {"data": [], "layout": figures.cube_layout()})],
            ),
        ],
        id=section_id("example"),
    )


def mixing_section() -> html.Section:
    return html.Section(
        [text_beside_view(["mixing"], graph(MIX_SINGLE)), text_beside_view(["mixing_multi"], graph(MIX_MULTI))],
        id=section_id("mixing"),
        hidden=True,
    )


def equivariance_section() -> html.Section:
    permuter = html.Div(
        [
            dbc.Label("token order: row r of PX is token …", html_for=PERM),
            dbc.InputGroup(
                [
                    dbc.Input(id=PERM, value=DEFAULT_PERM, debounce=True, autocomplete="off"),
                    dbc.Button("shuffle", id=SHUFFLE, color="primary"),
                    dbc.Button("reverse", id=REVERSE, color="secondary", outline=True),
                    dbc.Button("reset", id=IDENTITY, color="secondary", outline=True),
                ],
                className="has-validation",
            ),
            html.Div(id=PERM_FEEDBACK, className="invalid-feedback d-block", role="alert"),
            dbc.Switch(id=POSITIONS, label="add sinusoidal positional encodings E", value=False, className="mt-2"),
            head_buttons(EQ_HEAD, "head shown", include_all=False),
            html.Div(id=EQ_CHECK, className="eq-check mt-2", **{"aria-live": "polite"}),
        ]
    )
    return html.Section(
        [
            text_beside_view(["properties"], permuter),
            graph(EQ_INPUTS),
            graph(EQ_ATTENTION),
        ],
        id=section_id("equivariance"),
        hidden=True,
    )


def learning_section() -> html.Section:
    trainer = html.Div(
        [
            html.Label("training seed", htmlFor=LEARN_SEED, className="small mb-0"),
            dcc.Dropdown(id=LEARN_SEED, options=list(TRAINING_SEEDS), value=0, clearable=False, searchable=False,
                         className="control"),
            dbc.Button("train h = 1, 2, 4, 8", id=LEARN_TRAIN, color="primary"),
            html.Span(id=LEARN_STATUS, className="small text-body-secondary", role="status"),
            dcc.Store(id=LEARN_REQUESTED, data=TRAINING_SEEDS[0]),
            dcc.Store(id=LEARN_READY, data=TRAINING_SEEDS[0]),
            dcc.Interval(id=LEARN_POLL, interval=300, disabled=True),
        ],
        className="d-flex align-items-center gap-2 flex-wrap mb-2",
    )
    last = SNAPSHOTS[-1]
    player = html.Div(
        [
            dbc.Button("play", id=LEARN_PLAY, color="secondary", outline=True, size="sm"),
            html.Div(dcc.Slider(id=LEARN_STEP, min=0, max=last, step=1, value=last, updatemode="drag",
                                marks={k: str(k * training.SNAPSHOT_EVERY) for k in range(0, last + 1, 5)}),
                     className="flex-grow-1"),
            dcc.Interval(id=LEARN_TIMER, interval=400, disabled=True),
        ],
        className="d-flex align-items-center gap-2",
    )
    return html.Section(
        [
            text_beside_view(["learning"], [trainer, graph(LEARN_TASK, figures.target_mixing_figure(
                *training.target_mixings()))]),
            graph(LEARN_LOSS, className="mb-4"),
            text_beside_view(["learning_heads"], [html.Div("training step", className="small"), player,
                                                 graph(LEARN_ATTENTION), html.Div(id=LEARN_MASS, className="mt-2")]),
        ],
        id=section_id("learning"),
        hidden=True,
    )


def client_config() -> dict:
    """Defaults and allowed values, for the browser's URL and button logic (assets/clientside.js)."""
    return {"h": DEFAULT_HEADS, "seed": DEFAULT_SEED, "tab": DEFAULT_TAB, "perm": DEFAULT_PERM,
            "heads": list(HEAD_CHOICES), "seeds": len(SEEDS), "tabs": list(TABS), "snapshots": len(SNAPSHOTS),
            "narrowWidth": NARROW_WIDTH,
            "ids": {"shuffle": SHUFFLE, "reverse": REVERSE, "play": LEARN_PLAY, "narrow": NARROW, "url": URL,
                    "section": SECTION_PREFIX}}


def make_layout() -> html.Div:
    return html.Div(
        [
            dcc.Location(id=URL, refresh="callback-nav"),
            dcc.Store(id=CONFIG, data=client_config()),
            dcc.Store(id=NARROW, data=False),
            controls(),
            dbc.Container(
                [example_section(), mixing_section(), equivariance_section(), learning_section()],
                fluid="xxl",
                className="py-3",
                id="main",
            ),
        ]
    )
