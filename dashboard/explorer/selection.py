"""The selected cell A^(i)_rj, shared by every view that shows per-head heatmaps: a click on a cell selects it,
and each such graph outlines it (on its panel for head i) without being redrawn from scratch."""

from __future__ import annotations

from dash import Input, Output, Patch, ctx
from dash.exceptions import PreventUpdate

from .. import figures, limits
from ..state import Setting
from .controls import Cell
from .ids import SEL_HEAD, SEL_KEY, SEL_QUERY
from .wiring import callback


def outlines(cell: Cell, h: int, n: int) -> list[dict]:
    """The selection's outline as layout shapes for a per-head grid of h panels of n x n, or none."""
    selected, _ = limits.cell(*cell, h, n)
    return [] if selected is None else [figures.cell_outline(*selected)]


def with_outline(fig: dict, cell: Cell, s: Setting) -> dict:
    """A copy of a cached per-head figure with the selection outlined (the cached dict stays as it is)."""
    return {**fig, "layout": {**fig["layout"], "shapes": outlines(cell, s.h, s.n)}}


def clickable(graph_id: str, ids: tuple[str, str, str] = (SEL_HEAD, SEL_QUERY, SEL_KEY)) -> None:
    """A click on a cell of this graph's trace i (head i + 1) at (query r, key j) selects that cell: it sets the
    inputs `ids` of the head, query and key (by default the explorer's selection)."""
    @callback([Output(i, "value", allow_duplicate=True) for i in ids], Input(graph_id, "clickData"),
              prevent_initial_call=True)
    def pick_cell(click):
        return clicked_cell(click)


def clicked_cell(click) -> tuple[int, int, int]:
    """(head, query, key) of a heatmap's clickData; a cube plane reports a cell's corner, which rounds to the cell.
    Anything else (a forged request) is no update; the views check the cell against the setting (Cell.parse)."""
    try:
        point = click["points"][0]
        head, query, key = point["curveNumber"] + 1, round(point["y"]), round(point["x"])
    except (TypeError, KeyError, IndexError, ValueError, OverflowError):
        raise PreventUpdate from None
    if not all(limits.is_int(v) for v in (head, query, key)):
        raise PreventUpdate
    return head, query, key


def fired(inputs: dict[str, Input]) -> bool:
    """Whether the running callback fired for one of these inputs (by component)."""
    return bool(_fired() & {i.component_id for i in inputs.values()})


def _fired() -> set:
    return {prop_id.rsplit(".", 1)[0] for prop_id in ctx.triggered_prop_ids}


def only_the_cell_changed(cell: dict[str, Input]) -> bool:
    """Whether the running callback fired for the selected cell's inputs alone (a click): outline the new cell and
    redraw nothing. At load, and on a change of the model, the tab's store fires too."""
    fired_ids = _fired()
    return bool(fired_ids) and fired_ids <= {i.component_id for i in cell.values()}


def outline_patch(cell: Cell, s: Setting) -> Patch:
    """The new selection outlined on a drawn per-head grid: a Patch of the layout's shapes only, so the
    data, and so the drawn cells, stay."""
    patch = Patch()
    patch["layout"]["shapes"] = outlines(cell, s.h, s.n)
    return patch
