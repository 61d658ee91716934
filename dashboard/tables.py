"""HTML built from the core's numbers that the explorer and class mode both show: the drill-down of one
attention weight (the explorer's "Why is this weight large?", class mode's reveal) and its bars."""

from __future__ import annotations

import numpy as np
from dash import html

from . import explain, figures


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
    head, A, sup = figures.head_label(i), path.weights, figures.head_sup(i)
    d_k = len(path.q)
    big = float(np.abs(path.products).max())
    coordinates = html.Table(
        [html.Caption(f"The logit {_logit(i, r, j)} = q·k, coordinate by coordinate, in head {i + 1}'s {d_k} "
                      "dimension" + ("s" if d_k > 1 else "")),
         html.Thead(html.Tr([html.Th("c", scope="col"), html.Th(f"q{sup}_{r}[c]", scope="col"),
                             html.Th(f"k{sup}_{j}[c]", scope="col"), html.Th("product", scope="col"),
                             html.Th("pushes the weight", scope="col")])),
         html.Tbody([html.Tr([html.Th(str(c), scope="row"), html.Td(f"{q:+.3f}"), html.Td(f"{k:+.3f}"),
                              html.Td(f"{p:+.3f}"), html.Td([bar(p, big), html.Span("up" if p >= 0 else "down",
                                                                                     className="visually-hidden")])])
                     for c, (q, k, p) in enumerate(zip(path.q, path.k, path.products))])],
        className="table table-sm drill-table")
    row_max = float(A.max())
    softmax_row = html.Table(
        [html.Caption(f"Row {r} of {head}: the softmax turns the scaled logits into weights that share 1 between "
                      f"the {len(A)} keys"),
         html.Thead(html.Tr([html.Th("key", scope="col"), html.Th("scaled logit", scope="col"),
                             html.Th("weight", scope="col"), html.Th(html.Span("bar", className="visually-hidden"),
                                                                       scope="col")])),
         html.Tbody([html.Tr([html.Th(str(key), scope="row"), html.Td(f"{logit:+.3f}"), html.Td(f"{a:.3f}"),
                              html.Td(bar(a, row_max, signed=False))], className="selected" if key == j else None)
                     for key, (logit, a) in enumerate(zip(path.logits, A))])],
        className="table table-sm drill-table softmax-row")
    rank = int((path.logits > path.logits[j]).sum()) + 1
    summary = (f"The logit {_logit(i, r, j)} = q·k = {path.score:+.3f}; times the scale {path.scale:.3f} it gives the "
               f"scaled logit {path.logits[j]:+.3f}, the softmax's input and the {_ordinal(rank)} largest of row {r}'s "
               f"{len(A)}. The softmax turns the row into weights that add up to 1: {head}[{r}, {j}] = {A[j]:.3f}, "
               f"against 1/{len(A)} = {1 / len(A):.3f} if every key got the same.")
    return html.Div(
        [html.P(summary, className="drill-summary"),
         html.P([html.Strong("tokens: "), f"x_{r} = {_vector(path.x_r)}, x_{j} = {_vector(path.x_j)}"],
                className="small font-monospace"),
         html.Div([html.Div(coordinates, className="col-md-6"), html.Div(softmax_row, className="col-md-6")],
                  className="row g-3")],
    )


def _logit(i: int, r: int, j: int) -> str:
    """The seed's name for the unscaled q·k of head i (from 0), query r and key j."""
    return f"B_{i + 1}(x_{r}, x_{j})"



def _ordinal(k: int) -> str:
    return "very" if k == 1 else {2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _vector(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:+.2f}" for x in v) + ")"
