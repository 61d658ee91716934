"""The worked example's figures: the tokens, the Q/K/V blocks, the per-head heatmaps and the cube."""

from __future__ import annotations

import numpy as np

from ..attention import merge_heads
from . import (ATTENTION_SCALE, CLUSTER_COLOURS, CLUSTER_SYMBOLS, DESKTOP, FADED_OPACITY, FEATURE_SCALE, GRID, MID_GREY,
               PLANE_OPACITY, SUBSCRIPT, Display, base_layout, head_label, heatmap_grid, outline_blocks, typed_array)


def attention_heatmaps(A: np.ndarray, display: Display = DESKTOP) -> dict:
    """The seed's per-head figure: A (h, n, n) as panels A⁽¹⁾ … A⁽ʰ⁾, at most four a row (two on a phone)."""
    return heatmap_grid(A, [head_label(i) for i in range(len(A))], display=display)


def cube_layout() -> dict:
    """The cube's layout. It does not depend on h or the seed, so updates replace only
    `data` and the user's rotation and zoom survive."""
    # WebGL text ignores the page's CSS: a mid grey reads on light and dark backgrounds alike.
    hidden_axis = {"showbackground": False, "showspikes": False, "color": MID_GREY}
    return base_layout(
        Display(lecture=True),  # one layout for every display, so that it never changes: 16 px text
        height=520,
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        showlegend=False,
        uirevision="cube",
        meta={"opacity": {"on": PLANE_OPACITY, "off": FADED_OPACITY}},  # read by assets/clientside.js
        scene={
            "xaxis": {**hidden_axis, "title": {"text": "key j"}, "dtick": 1, "tick0": 0},
            "yaxis": {**hidden_axis, "title": {"text": "query r"}, "autorange": "reversed", "dtick": 1, "tick0": 0},
            "zaxis": {**hidden_axis, "title": {"text": "head"}, "showticklabels": False},
            "aspectmode": "manual",
            "aspectratio": {"x": 1, "y": 1, "z": 0.9},
            "camera": {"eye": {"x": 1.5, "y": -1.6, "z": 0.9}},
        },
    )


CELL_SEAM = 0.02  # the gap between two cells' squares, where Plotly blends their colours


def cell_edges(n: int) -> np.ndarray:
    """Grid coordinates that draw n crisp cells: cell j spans j - 0.48 .. j + 0.48, so a surface,
    which blends colours between grid points, blends only across the thin seams: (2n,)."""
    return (np.arange(n)[:, None] + [-0.5 + CELL_SEAM, 0.5 - CELL_SEAM]).ravel()


def cube_traces(A: np.ndarray) -> list[dict]:
    """The (h, n, n) cube as h translucent planes, plane i at height i so head 1 is at the bottom as in
    the seed, each cell a flat square coloured by A^(i)_rj on one scale; plus a text trace naming the planes."""
    h, n, _ = A.shape
    amax = float(A.max())
    edges = typed_array(cell_edges(n))
    traces = []
    for i in range(h):
        traces.append({
            "type": "surface",
            "x": edges,
            "y": edges,
            "z": typed_array(np.full((2 * n, 2 * n), i), "u1"),
            "surfacecolor": typed_array(A[i].repeat(2, axis=0).repeat(2, axis=1)),  # each cell's colour at its 4 corners
            "meta": {"samplesPerCell": 2},  # so the screen reader's table (assets/a11y.js) lists each cell once
            "cmin": 0.0,
            "cmax": amax,
            "colorscale": ATTENTION_SCALE,
            "showscale": i == 0,
            "colorbar": {"title": {"text": "weight"}, "thickness": 12, "len": 0.7},
            "opacity": PLANE_OPACITY,
            "name": head_label(i),
            "hovertemplate": f"{head_label(i)}<br>query r = %{{y:.0f}}<br>key j = %{{x:.0f}}"
                             "<br>A = %{surfacecolor:.3f}<extra></extra>",
            "contours": {"x": {"highlight": False}, "y": {"highlight": False}, "z": {"highlight": False}},
        })
    traces.append({
        "type": "scatter3d",
        "mode": "text",
        "x": [(n - 1) / 2] * h,  # along the middle of each plane's near edge: inside the scene on a phone too
        "y": [-1.5] * h,
        "z": list(range(h)),
        "text": [f"head {i + 1}" for i in range(h)],
        "textposition": "middle center",
        "textfont": {"color": MID_GREY, "size": 16},  # WebGL text: one size that reads in lecture mode too
        "hoverinfo": "skip",
    })
    return traces


def focus_planes(traces: list[dict], focus: int | None) -> list[dict]:
    """The cube's traces with plane `focus` (a head index) brought forward and the others faded;
    None leaves them as they are. The browser does the same for the head buttons (clientside.js)."""
    if focus is None:
        return traces
    return [{**t, "opacity": PLANE_OPACITY if i == focus else FADED_OPACITY} if t["type"] == "surface" else t
            for i, t in enumerate(traces)]


def token_views(X: np.ndarray, cluster: np.ndarray, display: Display = DESKTOP) -> dict:
    """Left: the tokens projected on their two principal directions, coloured and marked by cluster.
    Right: X itself as an n x d heatmap."""
    Xc = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    P2 = Xc @ Vt[:2].T  # (n, 2)
    data = []
    for c in np.unique(cluster):
        rows = np.flatnonzero(cluster == c)
        data.append({
            "type": "scatter",
            "mode": "markers+text",
            "x": typed_array(P2[rows, 0]),
            "y": typed_array(P2[rows, 1]),
            "text": [str(r) for r in rows],
            "textposition": "top center",
            "name": f"cluster {c + 1}",
            "marker": {"size": 12, "color": CLUSTER_COLOURS[c % 3], "symbol": CLUSTER_SYMBOLS[c % 3],
                       "line": {"width": 1, "color": "#333"}},
            "hovertemplate": "token %{text}<extra>cluster " + str(c + 1) + "</extra>",
        })
    m = float(np.abs(X).max())
    data.append({
        "type": "heatmap",
        "z": typed_array(X),
        "xaxis": "x2",
        "yaxis": "y2",
        "colorscale": FEATURE_SCALE,
        "zmin": -m,
        "zmax": m,
        "colorbar": {"title": {"text": "x"}, "thickness": 12, "len": 0.9},
        "hovertemplate": "token %{y}, feature %{x}<br>x = %{z:.3f}<extra></extra>",
    })
    # side by side, or on a phone the projection above X, each with its title over it
    (x1, y1), (x2, y2) = (([0, 1], [0.58, 1]), ([0, 1], [0, 0.4])) if display.narrow else \
        (([0, 0.5], [0, 1]), ([0.62, 1], [0, 1]))
    layout = base_layout(
        display,
        height=760 if display.narrow else 400,
        legend={"orientation": "h", "x": 0, "y": y1[0] - 0.08, "yanchor": "top"},
        margin={"l": 60, "r": 10, "t": 40, "b": 50 if display.narrow else 90},
        xaxis={"domain": x1, "title": {"text": "1st principal direction"}, "zeroline": False, "gridcolor": GRID},
        yaxis={"domain": y1, "title": {"text": "2nd principal direction"}, "zeroline": False, "scaleanchor": "x",
               "gridcolor": GRID, "automargin": True},  # the title clears the tick labels at any font size
        xaxis2={"domain": x2, "anchor": "y2", "title": {"text": "feature"}, "dtick": 1, "showgrid": False},
        yaxis2={"domain": y2, "anchor": "x2", "autorange": "reversed", "dtick": 1 if len(X) <= 16 else 4,
                "title": {"text": "token", "standoff": 4}, "showgrid": False},
        annotations=[
            {"text": f"<b>{len(X)} tokens, {len(np.unique(cluster))} clusters</b>", "x": sum(x1) / 2, "y": y1[1],
             "xref": "paper", "yref": "paper", "showarrow": False, "yanchor": "bottom"},
            {"text": "<b>X (n × d)</b>", "x": sum(x2) / 2, "y": y2[1], "xref": "paper", "yref": "paper",
             "showarrow": False, "yanchor": "bottom"},
        ],
    )
    return {"data": data, "layout": layout}


def block_views(Q: np.ndarray, K: np.ndarray, V: np.ndarray, display: Display = DESKTOP) -> dict:
    """Q, K, V (each (h, n, d_k), as split by head) side by side as n x d matrices,
    with the h column blocks Q_i, K_i, V_i outlined and named."""
    h, n, d_k = Q.shape
    full = [merge_heads(M) for M in (Q, K, V)]
    fig = heatmap_grid(full, ["Q = X W_Q", "K = X W_K", "V = X W_V"], max_cols=3, display=display, zmin=None,
                       colorscale=FEATURE_SCALE, colorbar_title="value", x_title="feature",
                       y_title="token", value_name="value", panel_px=300)
    for p, name in enumerate("QKV"):
        outline_blocks(fig, p, [f"{name}{i + 1}".translate(SUBSCRIPT) for i in range(h)], d_k, n,
                       title="column blocks")
    return fig
