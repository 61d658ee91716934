"""The selected cell A^(i)_rj, shared by every view that shows per-head heatmaps: a click on a cell selects it,
and each such graph outlines it (on its panel for head i) without being redrawn from scratch."""

from __future__ import annotations

from dash import Input, Output, Patch, State

from .. import figures, limits
from ..ids import HEADS, SEL_HEAD, SEL_KEY, SEL_QUERY, SIZE, TAB
from ..wiring import callback, clientside_callback

CELL = (State(SEL_HEAD, "value"), State(SEL_QUERY, "value"), State(SEL_KEY, "value"))


def outlines(head, query, key, h: int, n: int) -> list[dict]:
    """The selection's outline as layout shapes for a per-head grid of h panels of n x n, or none."""
    selected, _ = limits.cell(head, query, key, h, n)
    return [] if selected is None else [figures.cell_outline(*selected)]


def with_outline(fig: dict, head, query, key, s: limits.Setting) -> dict:
    """A copy of a cached per-head figure with the selection outlined (the cached dict stays as it is)."""
    return {**fig, "layout": {**fig["layout"], "shapes": outlines(head, query, key, s.h, s.n)}}


def clickable(graph_id: str) -> None:
    """A click on a cell of this graph's trace i (head i + 1) at (query r, key j) selects that cell."""
    clientside_callback("pickCell", Output(SEL_HEAD, "value", allow_duplicate=True),
                        Output(SEL_QUERY, "value", allow_duplicate=True), Output(SEL_KEY, "value", allow_duplicate=True),
                        Input(graph_id, "clickData"), prevent_initial_call=True)


def outlined(graph_id: str, tab: str) -> None:
    """Keep the selection outlined on a per-head heatmap grid (panel i = head i) on `tab`."""

    @callback(Output(graph_id, "figure", allow_duplicate=True), Input(SEL_HEAD, "value"), Input(SEL_QUERY, "value"),
              Input(SEL_KEY, "value"), State(HEADS, "value"), State(SIZE, "value"), State(TAB, "value"),
              prevent_initial_call=True)
    def outline(head, query, key, h, size, shown):
        limits.tab(shown, tab)  # a hidden graph is outlined when its tab is next drawn
        n = limits.tokens(size)
        patch = Patch()  # the layout's shapes only: the data, and so the drawn cells, stay
        patch["layout"]["shapes"] = outlines(head, query, key, limits.heads(h), n)
        return patch
