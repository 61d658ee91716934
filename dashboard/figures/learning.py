"""The learning lab: the task's two target mixings and the loss curves."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from . import (
    CLUSTER_COLOURS,
    DESKTOP,
    GRID,
    NARROW_COLUMNS,
    Display,
    axis_suffix,
    base_layout,
    grid_domains,
    heatmap_grid,
    rows_for,
    typed_array,
)


def target_mixing_figure(own: np.ndarray, nxt: np.ndarray, display: Display = DESKTOP) -> dict:
    """The two mixings the task asks for at once: one matrix cannot be both. Two-line titles fit a phone."""
    # Translators: panel titles: the mixing a token's features 0–3 need (its own cluster's mean), and 4–7 (the next's).
    titles = [_("own cluster<br>(features 0–3)"), _("next cluster<br>(features 4–7)")]
    # Translators: an attention weight.
    return heatmap_grid([own, nxt], titles, max_cols=2, display=display, colorbar_title=_("weight"), panel_px=260)


def loss_curves(curves: dict, floor: float, display: Display = DESKTOP) -> dict:
    """Training loss against step, one panel per h (curves: h -> (losses, test_loss)), log scale,
    with the dashed line `floor`: the least error of a mixing that does not depend on the input. A trained head's
    does, through the softmax, so its curve may end below the line."""
    hs = sorted(curves)
    k = len(hs)
    cols = NARROW_COLUMNS if display.narrow else k
    rows = rows_for(k, cols)
    row_px = 360 if display.lecture else 300
    # between rows, room for the step axis title below and the next panel's two-line title above; the margins
    # hold the tick labels and axis titles at the display's font size (24 px in lecture mode)
    fs = display.font_size
    layout = base_layout(display, height=row_px * rows, showlegend=False, annotations=[], shapes=[],
                         margin={"l": max(60, 4 * fs), "r": 25, "t": max(60, round(2.8 * fs)),
                                 "b": max(50, round(3.2 * fs))})  # r: room for the last tick, 400
    gap = 0.08 if rows == 1 else 0.16
    data = []
    # Translators: hover text on a loss curve: the training step and the loss there.
    hover = _("step %{x}<br>loss %{y:.4f}")
    for p, ((xd, yd), h) in enumerate(zip(grid_domains(k, cols, gap=gap), hs)):
        sx = axis_suffix(p)
        losses, test_loss = curves[h]
        data.append({"type": "scatter", "mode": "lines", "x": typed_array(np.arange(len(losses)), "u2"),
                     "y": typed_array(losses), "xaxis": "x" + sx, "yaxis": "y" + sx,
                     "line": {"width": 1.5, "color": CLUSTER_COLOURS[1]},
                     "hovertemplate": f"h = {h}<br>{hover}<extra></extra>"})
        steps = len(losses)  # loss before each update: steps 0 .. steps-1, the axis ends at the last
        # Translators: the x axis of a loss curve: the training step.
        layout["xaxis" + sx] = {"domain": xd, "anchor": "y" + sx, "title": {"text": _("step"), "standoff": 4},
                                "gridcolor": GRID, "range": [0, steps], "tickvals": list(range(0, steps + 1, 100)),
                                "automargin": False}
        layout["yaxis" + sx] = {"anchor": "x" + sx, "domain": yd, "type": "log", "range": [-2.3, 0.2],
                                "gridcolor": GRID,
                                "tickvals": [0.01, 0.03, 0.1, 0.3, 1], "ticktext": ["0.01", "0.03", "0.1", "0.3", "1"],
                                "title": {"text": _("loss (MSE)") if p % cols == 0 else ""},
                                "showticklabels": p % cols == 0,
                                **({"matches": "y"} if p else {})}
        layout["shapes"].append({"type": "line", "xref": f"x{sx} domain", "yref": "y" + sx, "x0": 0, "x1": 1,
                                 "y0": floor, "y1": floor, "line": {"dash": "dash", "width": 1.5, "color": "#D55E00"}})
        layout["annotations"].append({
            "text": f"<b>h = {h}</b><br>" + _("test MSE {loss:.3f}").format(loss=test_loss), "showarrow": False,
            "xref": "paper", "yref": "paper", "x": (xd[0] + xd[1]) / 2, "y": yd[1], "yanchor": "bottom",
            "xanchor": "center"})
    # What the line bounds: a mixing that ignores the input (a trained head's does not). On the second panel,
    # whose curve has dropped below the line and whose left edge has no tick labels to run into on a phone.
    sx = axis_suffix(min(1, k - 1))
    # Translators: beside the dashed line at loss 3/8: the least error of a mixing that ignores the input.
    layout["annotations"].append({"text": _("3/8: any input-<br>independent mixing"), "showarrow": False,
                                  "xref": f"x{sx} domain", "yref": "y" + sx, "x": 1, "y": np.log10(floor),
                                  "xanchor": "right", "yanchor": "bottom", "align": "right",
                                  "font": {"size": display.font_size, "color": "#D55E00"}})
    return {"data": data, "layout": layout}
