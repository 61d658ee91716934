"""Why is this weight large? The path from two tokens to one attention weight A^(i)_rj.

A click on a cell of any per-head heatmap (or the three inputs, from the keyboard) selects head i,
query r and key j; this panel then shows x_r and x_j, q_r^(i) and k_j^(i), their products, the sum
(the logit), the scale, and the whole softmax row r with key j highlighted. Every number is the core's.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
import numpy as np
from dash import Output, html

from .. import attention as core
from .. import explain
from .. import figures, limits
from ..ids import SEL_HEAD, SEL_KEY, SEL_QUERY
from ..wiring import callback
from .common import model
from .model import WORKED, WORKED_CELL, checked

DRILLDOWN = "drilldown"
DEFAULT_CELL = (1, 0, 1)  # head 1, query 0, key 1
URL_PARAMS = [
    limits.url_param("head", SEL_HEAD, DEFAULT_CELL[0], choices=range(1, max(core.HEAD_CHOICES) + 1)),
    limits.url_param("query", SEL_QUERY, DEFAULT_CELL[1], count=limits.MAX_TOKENS),
    limits.url_param("key", SEL_KEY, DEFAULT_CELL[2], count=limits.MAX_TOKENS),
]


def layout() -> html.Div:
    def number(component_id, label, value, maximum):
        return html.Div([dbc.Label(label, html_for=component_id, className="small mb-0"),
                         dbc.Input(id=component_id, type="number", min=0 if component_id != SEL_HEAD else 1,
                                   max=maximum, step=1, value=value, size="sm", className="cell-input")])
    head, query, key = DEFAULT_CELL
    n = limits.MAX_TOKENS
    return html.Div(
        [
            html.H3("Why is this weight large?", className="h5"),
            html.P("Click any cell of a per-head heatmap, or choose it here.", className="small mb-1"),
            html.Div([number(SEL_HEAD, "head i", head, max(core.HEAD_CHOICES)),
                      number(SEL_QUERY, "query r", query, n - 1), number(SEL_KEY, "key j", key, n - 1)],
                     className="d-flex gap-2 mb-2"),
            html.Div(id=DRILLDOWN, **{"aria-live": "polite"}),
        ],
        className="drilldown",
    )


@callback(Output(DRILLDOWN, "children"), WORKED.input, WORKED_CELL.input, prevent_initial_call=True)
def update_drilldown(controls, cell):
    s, _ = checked(WORKED.values(controls))
    head, query, key = WORKED_CELL.values(cell)
    selected, message = limits.cell(head, query, key, s.h, s.n)
    if selected is None:
        return html.P(message, className="text-danger small", role="alert")
    ex, result = model(s)
    i, r, j = selected
    return explanation(explain.cell_path(ex.X, result, i, r, j), i, r, j)


def bar(value: float, largest: float, signed: bool = True) -> html.Div:
    """A bar as long as |value| / largest. Signed: right of the middle and blue when positive, left and red when
    negative. The numbers stand beside it, so screen readers skip it."""
    width = (50 if signed else 100) * abs(value) / largest if largest > 0 else 0
    side = {"left": "50%" if signed else "0"} if value >= 0 else {"right": "50%"}
    return html.Div(html.Div(className="bar " + ("pos" if value >= 0 else "neg"),
                             style={**side, "width": f"{width:.1f}%"}),
                    className="bar-track" + (" signed" if signed else ""), **{"aria-hidden": "true"})


def explanation(path: explain.CellPath, i: int, r: int, j: int) -> html.Div:
    """The drill-down as tables a screen reader reads as they stand; the bars only repeat the numbers."""
    head, A = figures.head_label(i), path.weights
    d_k = len(path.q)
    big = float(np.abs(path.products).max())
    coordinates = html.Table(
        [html.Caption(f"q·k, coordinate by coordinate, in head {i + 1}'s {d_k} dimension"
                      + ("s" if d_k > 1 else "")),
         html.Thead(html.Tr([html.Th("c", scope="col"), html.Th(f"q{_sup(i)}_{r}[c]", scope="col"),
                             html.Th(f"k{_sup(i)}_{j}[c]", scope="col"), html.Th("product", scope="col"),
                             html.Th("pushes the weight", scope="col")])),
         html.Tbody([html.Tr([html.Th(str(c), scope="row"), html.Td(f"{q:+.3f}"), html.Td(f"{k:+.3f}"),
                              html.Td(f"{p:+.3f}"), html.Td([bar(p, big), html.Span("up" if p >= 0 else "down",
                                                                                     className="visually-hidden")])])
                     for c, (q, k, p) in enumerate(zip(path.q, path.k, path.products))])],
        className="table table-sm drill-table")
    row_max = float(A.max())
    softmax_row = html.Table(
        [html.Caption(f"Row {r} of {head}: the softmax shares 1 between the {len(A)} keys"),
         html.Thead(html.Tr([html.Th("key", scope="col"), html.Th("logit", scope="col"),
                             html.Th("weight", scope="col"), html.Th(html.Span("bar", className="visually-hidden"),
                                                                       scope="col")])),
         html.Tbody([html.Tr([html.Th(str(key), scope="row"), html.Td(f"{logit:+.3f}"), html.Td(f"{a:.3f}"),
                              html.Td(bar(a, row_max, signed=False))], className="selected" if key == j else None)
                     for key, (logit, a) in enumerate(zip(path.logits, A))])],
        className="table table-sm drill-table softmax-row")
    rank = int((path.logits > path.logits[j]).sum()) + 1
    summary = (f"q·k = {path.score:+.3f}; times the scale {path.scale:.3f} it gives the logit "
               f"{path.logits[j]:+.3f}, the {_ordinal(rank)} largest of row {r}'s {len(A)}. The softmax turns "
               f"the row into weights that add up to 1: {head}[{r}, {j}] = {A[j]:.3f}, against "
               f"1/{len(A)} = {1 / len(A):.3f} if every key got the same.")
    return html.Div(
        [html.P(summary, className="drill-summary"),
         html.P([html.Strong("tokens: "), f"x_{r} = {_vector(path.x_r)}, x_{j} = {_vector(path.x_j)}"],
                className="small font-monospace"),
         dbc.Row([dbc.Col(coordinates, md=6), dbc.Col(softmax_row, md=6)], className="g-3")],
    )


def _sup(i: int) -> str:
    return f"({i + 1})".translate(figures.SUPERSCRIPT)


def _ordinal(k: int) -> str:
    return "very" if k == 1 else {2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _vector(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:+.2f}" for x in v) + ")"
