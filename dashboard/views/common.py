"""Pieces every view uses: the seed's text, graphs, head buttons, and the cached worked example."""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path

import dash_bootstrap_components as dbc
from dash import dcc, html

from .. import attention as core
from .. import figures, limits

CONTENT = Path(__file__).resolve().parent.parent / "content"
# The same text as HTML, its LaTeX typeset to SVG by tools/build_assets.sh, so the page loads no MathJax.
RENDERED = CONTENT / "rendered"
# Each cache keyed by a Setting (and the display) keeps the 64 most recently used: the settings the controls
# allow (h, seed, size, scale, temperature) are too many to keep them all. A miss costs milliseconds;
# bench/bench_cache_memory.py measures the memory when every cache is full of the largest settings.
SETTINGS_CACHED = 64


@lru_cache(maxsize=SETTINGS_CACHED)
def model(s: limits.Setting) -> tuple[core.WorkedExample, core.MultiHeadResult]:
    """The worked example and MultiHead(X) for a checked setting."""
    ex = core.worked_example(s.seed, s.size)
    return ex, core.multi_head_attention(*ex[:5], s.h, scale=s.softmax_scale)


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


def head_options(h: int, include_all: bool) -> list[dict]:
    heads = [{"label": f"head {k}", "value": k} for k in range(1, h + 1)]
    return [{"label": "all", "value": limits.ALL_HEADS}] + heads if include_all else heads


def head_buttons(button_id: str, label: str, include_all: bool) -> html.Div:
    """A radio group of buttons ['all',] 'head 1' … 'head h'; the browser sets the options to match h."""
    options = head_options(limits.DEFAULT_HEADS, include_all)
    return html.Div(
        [html.Span(label, className="me-2 small text-body-secondary"),
         dbc.RadioItems(id=button_id, options=options, value=options[0]["value"], inline=True,
                        className="btn-group flex-wrap", inputClassName="btn-check",
                        labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active")],
        className="d-flex align-items-center flex-wrap gap-1 mb-2",
    )
