"""Predict first: the lecturer hides the selected cell, its row, or its head's map on the worked example's
heatmaps, the class predicts (aloud or in class mode), and the same key shows it again.

C, R and M (presenter.SHORTCUTS) hide the cell, the row or the map; the same key again reveals, another key hides
that instead. The heatmaps draw a grey cover with a "?" over what is hidden, which follows the selected cell (←
and → move it to the next head), and that head's panel says nothing on hover. What else on the tab gives the
weights away is blurred while anything is hidden: the logits above the heatmaps (their row's largest is the
weight's), and the summary, the drill-down and the influence below. The cube, at the tab's end, is not.
"""

from __future__ import annotations

from dash import Input, Output, Patch, State, ctx, dcc, html, no_update

from .. import figures, limits
from . import selection
from .wiring import callback

PREDICT = "predict"  # what is hidden: None, or one of PARTS
HIDES = ("predict-hides-above", "predict-hides")  # what gives the weights away, blurred while something is hidden
PARTS = ("cell", "row", "map")
KEYS = {"key-hide-cell": "cell", "key-hide-row": "row", "key-hide-map": "map"}  # presenter.SHORTCUTS' buttons


def store() -> dcc.Store:
    return dcc.Store(id=PREDICT, data=None)


def hides(children: list, part: int) -> html.Div:
    """What prints the hidden weights (HIDES[part]: above the heatmaps, or below), blurred while the class
    predicts."""
    return html.Div(children, id=HIDES[part])


def hidden_part(value) -> str | None:
    """What a request says is hidden, as the page may show it: one of PARTS, else nothing (a forged value)."""
    return value if value in PARTS else None


def covers(cell: tuple[int, int, int] | None, hidden: str | None, n: int) -> list[dict]:
    """The layout shapes that hide part of panel i of a per-head grid of n x n: the cell (r, j), row r, or the
    whole map; none when nothing is hidden or no cell is selected. `cell` is (i, r, j) as limits.cell gives it."""
    if cell is None or hidden not in PARTS:
        return []
    i, r, j = cell
    x0, x1 = (j - 0.5, j + 0.5) if hidden == "cell" else (-0.5, n - 0.5)
    y0, y1 = (-0.5, n - 0.5) if hidden == "map" else (r - 0.5, r + 0.5)
    return [figures.cover(i, x0, x1, y0, y1)]


def on_grid(cell, hidden, s, figure: dict | None = None, cover_changed: bool = False):
    """The heatmaps' selection outline, the cover over what is hidden, and no hover on the covered head's panel
    (traces 0..h-1 are the heads' panels): a Patch of those alone (no `figure`; the traces' hover only while a
    part is hidden or when the cover has just changed), or a copy of a cached `figure` with them."""
    selected, _ = limits.cell(*cell, s.h, s.n)
    part = hidden_part(hidden)
    # the outline over the cover: the class sees which weight (or which key of the row) it predicts
    shapes = covers(selected, part, s.n) + selection.outlines(cell, s.h, s.n)
    covered = selected[0] if selected is not None and part else None
    hoverinfo = ["skip" if k == covered else "all" for k in range(s.h)]
    if figure is None:  # a click patches the outline alone, unless a part is or was just hidden
        patch = Patch()
        patch["layout"]["shapes"] = shapes
        if part or cover_changed:
            for k, info in enumerate(hoverinfo):
                patch["data"][k]["hoverinfo"] = info
        return patch
    data = [{**trace, "hoverinfo": info} for trace, info in zip(figure["data"], hoverinfo)] + figure["data"][s.h:]
    return {**figure, "data": data, "layout": {**figure["layout"], "shapes": shapes}}


@callback(Output(PREDICT, "data"), inputs=dict(presses=[Input(button, "n_clicks") for button in KEYS]),
          state=dict(hidden=State(PREDICT, "data")), prevent_initial_call=True)
def hide(presses, hidden):
    """A key hides its part; the same key again shows it."""
    part = KEYS.get(ctx.triggered_id)
    if part is None:
        return no_update
    return None if hidden_part(hidden) == part else part


@callback([Output(part, "className") for part in HIDES], inputs=dict(hidden=Input(PREDICT, "data")),
          prevent_initial_call=True)
def blur(hidden):
    return ["predict-hidden" if hidden_part(hidden) else ""] * len(HIDES)
