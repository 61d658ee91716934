"""The worked example's figures: the tokens, the Q/K/V blocks, the per-head heatmaps and the cube."""

from __future__ import annotations

import numpy as np

from ..attention import merge_heads
from ..i18n import _
from . import (ATTENTION_SCALE, CLUSTER_COLOURS, CLUSTER_SYMBOLS, DESKTOP, FADED_OPACITY, FEATURE_SCALE, GRID,
               LECTURE_FIGURE_PX, PLANE_OPACITY, SUBSCRIPT, Display, axis_suffix, base_layout, head_title, heatmap_grid,
               outline_blocks, typed_array)


def attention_heatmaps(A: np.ndarray, display: Display = DESKTOP) -> dict:
    """The seed's per-head figure: A (h, n, n) as panels 'head 1' … 'head h', at most four a row (two on a phone)."""
    return heatmap_grid(A, [head_title(i) for i in range(len(A))], display=display)


# The cube's text, by display: (WebGL tick labels and head names, WebGL axis titles, the colour bar's SVG
# text). WebGL text is drawn in the scene, in perspective, and grows with the canvas: its sizes are not CSS
# pixels. Size 14 draws a head name's em about 16 px tall in a laptop's 560 px high cube, 24 px in lecture
# mode's 760 px (1920 x 1080) and 32 px in the presenter view's 1010 px; size 24 drew 58 px there.
# A phone's 12 is about 14 px.
CUBE_TEXT = {"narrow": (12, 15, 14), "desktop": (14, 18, 16), "lecture": (18, 22, 24)}
# WebGL text ignores the page's CSS, so the scene is drawn in the light theme's text colour (Bootstrap's body
# colour) and dark mode turns the whole canvas around as it does every heatmap (assets/site/lecture.css):
# the text comes out in the dark theme's text colour, the colour map in the heatmaps' direction.
CUBE_TEXT_COLOUR = "#212529"
# Preset cameras, by name: the head planes as a stack (from the front left and above, the page's first view,
# the cube a little right of centre so the head names on its left edge stay in the frame on a phone), and
# from the front (keys across, heads up), the side (queries across, heads up) and the top (one plane over
# another, as the heatmaps lie: key j across, query r down). Each also sets `up`, which the top view turns.
UP = {"x": 0, "y": 0, "z": 1}
CUBE_CAMERAS = {
    "stack": {"eye": {"x": 1.0, "y": -1.95, "z": 0.85}, "center": {"x": -0.1, "y": 0, "z": -0.08}, "up": UP},
    "front": {"eye": {"x": 0, "y": -2.3, "z": 0.35}, "center": {"x": 0, "y": 0, "z": -0.05}, "up": UP},
    "side": {"eye": {"x": 2.3, "y": 0, "z": 0.35}, "center": {"x": 0, "y": 0, "z": -0.05}, "up": UP},
    "top": {"eye": {"x": 0, "y": 0, "z": 2.1}, "center": {"x": 0, "y": 0, "z": 0}, "up": {"x": 0, "y": 1, "z": 0}},
}
# A phone's cube is taller than wide (its box is square): the planes stand further apart, so that eight
# head names, one a plane, keep clear of each other.
NARROW_HEIGHT = 1.5


def _cube_size(display: Display) -> str:
    """Which of the cube's sizes a display takes (CUBE_TEXT, CUBE_PAIR_PX)."""
    return "lecture" if display.large else "narrow" if display.narrow else "desktop"


def cube_scene_text(display: Display = DESKTOP, h: int | None = None) -> dict:
    """What of the cube's layout depends on the display (and h): its font, its axes (their text) and their
    proportions. A view patches these keys alone (layout.font, layout.scene.xaxis, yaxis, zaxis, aspectratio), so
    the camera, the user's or a preset's, stays."""
    ticks, titles, text = CUBE_TEXT[_cube_size(display)]
    axis = {"showbackground": False, "showspikes": False, "color": CUBE_TEXT_COLOUR, "tickfont": {"size": ticks}}
    return {
        "font": {"family": base_layout()["font"]["family"], "size": text},
        # every fourth token, as on the heatmaps: the worked example's clusters of four
        "xaxis": {**axis, "title": {"text": _("key j"), "font": {"size": titles}}, "dtick": 4, "tick0": 0},
        "yaxis": {**axis, "title": {"text": _("query r"), "font": {"size": titles}}, "autorange": "reversed",
                  "dtick": 4, "tick0": 0},
        # plane i is at height i + 1, so the z axis's ticks name the heads, each at its plane's corner,
        # for any h and any rotation: no name hides behind a plane or sits on another's
        "zaxis": {**axis, "title": {"text": ""}, "tickmode": "linear", "tick0": 1, "dtick": 1,
                  # Translators: written before a head's number on the cube's axis ("head 3"): as "head {number}"
                  "tickprefix": _("head "), "showgrid": False,
                  # one plane: autorange puts it mid-way up a range 0 to 2, with ticks 'head 0' and 'head 2'
                  **({"range": [0.5, 1.5]} if h == 1 else {})},
        "aspectratio": {"x": 1, "y": 1, "z": NARROW_HEIGHT if display.narrow else 1},
    }


def cube_layout(display: Display = DESKTOP, h: int | None = None) -> dict:
    """The cube's layout. It does not depend on h or the seed, so updates replace only `data` and the parts
    cube_scene_text names, and the user's rotation and zoom survive. It has no height: the page's CSS gives the
    graph its box (assets/site/app.css, .webgl-figure), which the cube fills at any width."""
    text = cube_scene_text(display, h)
    return base_layout(
        display,
        font=text["font"],
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        showlegend=False,
        uirevision="cube",
        meta={"opacity": {"on": PLANE_OPACITY, "off": FADED_OPACITY}},  # read by assets/explorer.js
        scene={
            **{axis: text[axis] for axis in ("xaxis", "yaxis", "zaxis")},
            "aspectmode": "manual",
            "aspectratio": text["aspectratio"],
            "camera": CUBE_CAMERAS["stack"],
            "domain": {"x": [0, 1], "y": [0.12, 1]},  # the colour bar lies below
        },
    )


# The cube beside another setting's (figures/compare.py) is in an ordinary graph, which takes its height from the
# figure: as tall as a laptop's heatmaps, as lecture mode's figures, and on a phone about as tall as it is wide.
CUBE_PAIR_PX = {"narrow": 380, "desktop": 560, "lecture": LECTURE_FIGURE_PX}
CUBE_BAR_LINES = 5  # the band under it for the colour bar (its title, the bar, its numbers), in lines of text


def cube_figure(traces: list[dict], display: Display = DESKTOP) -> dict:
    """The cube's traces (cube_traces) as a figure with a height of its own, for a comparison."""
    layout = cube_layout(display, h=sum(t["type"] == PLANE for t in traces))
    # the colour bar in a band under the scene, not over the scene's foot: stacked on a phone, that foot is short
    layout["scene"]["domain"] = {"x": [0, 1], "y": [0, 1]}
    layout["margin"] = {**layout["margin"], "b": round(CUBE_BAR_LINES * display.font_size)}
    traces = [{**t, "colorbar": {**t["colorbar"], "y": 0, "yanchor": "top"}} if t.get("showscale") else t
              for t in traces]
    return {"data": traces, "layout": {**layout, "height": CUBE_PAIR_PX[_cube_size(display)]}}


CELL_SEAM = 0.02  # half the gap between two cells' squares on the cube: a thin line of the page between them
PLANE = "mesh3d"  # the cube's planes' trace type (assets/explorer.js focusPlanes and a11y.js look for it too)
# The colour scale's own colours: no light or shade on a flat plane.
UNLIT = {"ambient": 1.0, "diffuse": 0.0, "specular": 0.0, "roughness": 1.0, "fresnel": 0.0}


def cell_squares(n: int) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The n x n cells as squares of four corners each, cell (r, j) at 4 (r n + j): the corners' x (key j) and
    y (query r), (4 n²,) each, and the two triangles of every square as corner indices i, j, k, (2 n²,) each.
    Cell (r, j) spans j ± 0.48 by r ± 0.48, so any corner rounds to its cell (a hover, a click)."""
    r, j = np.divmod(np.arange(n * n), n)
    half = 0.5 - CELL_SEAM
    x = (j[:, None] + [-half, half, half, -half]).ravel()
    y = (r[:, None] + [-half, -half, half, half]).ravel()
    first = 4 * np.arange(n * n)
    return x, y, (np.tile(first, 2), np.concatenate([first + 1, first + 2]), np.concatenate([first + 2, first + 3]))


def cube_traces(A: np.ndarray) -> list[dict]:
    """The (h, n, n) cube as h translucent planes, plane i at height i + 1 (head i + 1: the z axis's ticks
    name the planes) so head 1 is at the bottom as in the seed, each cell a flat square coloured by A^(i)_rj
    on one scale. A mesh of n² squares, not a surface: Plotly refines a small surface's grid to at least
    120 points a side (288 at n = 12), and in software WebGL each plane took a tenth of a second to draw."""
    h, n = A.shape[:2]
    amax = float(A.max())
    x, y, triangles = cell_squares(n)
    index = "u2" if x.size <= 2 ** 16 else "u4"  # 2 bytes a corner up to n = 128 (the page's largest n is 48)
    corners = {"x": typed_array(x), "y": typed_array(y),
               **{name: typed_array(corner, index) for name, corner in zip("ijk", triangles)}}
    query, key = _("query r"), _("key j")
    traces = []
    for i in range(h):
        traces.append({
            "type": PLANE,
            **corners,
            "z": typed_array(np.full(x.size, i + 1), "u1"),
            # each cell's weight at its 4 corners: one flat colour a cell, and the hover's number (Plotly
            # interpolates between a triangle's corners, all equal)
            "intensity": typed_array(A[i].repeat(4)),
            "meta": {"cells": n},  # so the screen reader's table (assets/a11y.js) lists each cell once
            "cmin": 0.0,
            "cmax": amax,
            "colorscale": ATTENTION_SCALE,
            "showscale": i == 0,
            # across the bottom: the cube gets the graph's whole width
            "colorbar": {"title": {"text": _("weight"), "side": "top"}, "thickness": 12, "len": 0.6, "orientation": "h",
                         "x": 0.5, "xanchor": "center", "y": 0, "yanchor": "bottom"},
            "opacity": PLANE_OPACITY,
            "flatshading": True,
            "lighting": UNLIT,
            "name": head_title(i),
            "hovertemplate": f"{head_title(i)}<br>{query} = %{{y:.0f}}<br>{key} = %{{x:.0f}}"
                             "<br>A = %{intensity:.3f}<extra></extra>",
        })
    return traces


def focus_planes(traces: list[dict], focus: int | None) -> list[dict]:
    """The cube's traces with plane `focus` (a head index) brought forward and the others faded;
    None leaves them as they are. The browser does the same for the head buttons (explorer.js)."""
    if focus is None:
        return traces
    return [{**t, "opacity": PLANE_OPACITY if i == focus else FADED_OPACITY} if t["type"] == PLANE else t
            for i, t in enumerate(traces)]


def centres_plane(X: np.ndarray, cluster: np.ndarray) -> np.ndarray:
    """(n, d) tokens, (n,) cluster of each (three clusters) -> (n, 2): the tokens in the plane through the three
    clusters' centres, x along the line from cluster 1's centre to cluster 2's, y at right angles towards cluster
    3's. The centres keep their true distances, so clusters that overlap in the principal plane (the learning
    lab's noisy inputs) stand apart here."""
    m = np.array([X[cluster == c].mean(axis=0) for c in range(3)])
    u = (m[1] - m[0]) / np.linalg.norm(m[1] - m[0])
    v = m[2] - m[0] - (m[2] - m[0]) @ u * u
    return (X - X.mean(axis=0)) @ np.stack([u, v / np.linalg.norm(v)], axis=1)


def token_views(X: np.ndarray, cluster: np.ndarray, display: Display = DESKTOP, centres: bool = False) -> dict:
    """Left: the tokens projected on their two principal directions (or with `centres`, on the plane through the
    clusters' centres: centres_plane), coloured and marked by cluster. Right: X itself as an n x d heatmap."""
    Xc = X - X.mean(axis=0)
    P2 = centres_plane(X, cluster) if centres else Xc @ np.linalg.svd(Xc, full_matrices=False)[2][:2].T  # (n, 2)
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
            "name": _("cluster {number}").format(number=c + 1),
            "marker": {"size": 12, "color": CLUSTER_COLOURS[c % 3], "symbol": CLUSTER_SYMBOLS[c % 3],
                       "line": {"width": 1, "color": "#333"}},
            "hovertemplate": _("token {number}").format(number="%{text}") + "<extra>"
                             + _("cluster {number}").format(number=c + 1) + "</extra>",
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
        "colorbar": {"title": {"text": "x"}, "thickness": 12},
        "hovertemplate": _("token {token}, feature {feature}").format(token="%{y}", feature="%{x}")
                         + "<br>x = %{z:.3f}<extra></extra>",
    })
    # Laid out in pixels from the text sizes: side by side, or on a phone the projection above X. Each has
    # its title over it; the legend goes under the projection's axis title, X's colour bar beside X only.
    fs, tick = display.font_size, display.tick_size
    title_px, axis_px, legend_px = round(fs * 1.6) + 8, round(tick * 1.6 + fs * 2) + 18, round(fs * 1.5)
    if display.narrow:
        scatter_px, legend_rows, heat_px = 300, 2, 280
        top, bottom = title_px, axis_px
        plot_px = scatter_px + axis_px + legend_rows * legend_px + title_px + heat_px
        heat_top = heat_px / plot_px
        (x1, y1), (x2, y2) = ([0, 1], [1 - scatter_px / plot_px, 1]), ([0, 1], [0, heat_top])
        legend_y, colorbar = y1[0] - axis_px / plot_px, {"y": 0, "yanchor": "bottom", "len": heat_top}
    else:
        plot_px = 400 if display.large else 280
        top, bottom = title_px, axis_px + legend_px + 8
        (x1, y1), (x2, y2) = ([0, 0.5], [0, 1]), ([0.62, 1], [0, 1])
        legend_y, colorbar = -axis_px / plot_px, {"len": 1}
    data[-1]["colorbar"].update(colorbar, lenmode="fraction")
    layout = base_layout(
        display,
        height=top + plot_px + bottom,
        legend={"orientation": "h", "x": 0, "y": legend_y, "yanchor": "top", "font": {"size": fs}},
        margin={"l": 60, "r": 10, "t": top, "b": bottom},
        xaxis={"domain": x1, "title": {"text": _("from cluster 1's centre to cluster 2's") if centres else
                                       _("1st principal direction")}, "zeroline": False, "gridcolor": GRID,
               "tickfont": {"size": tick}},
        yaxis={"domain": y1, "title": {"text": _("towards cluster 3's centre") if centres else
                                       _("2nd principal direction")}, "zeroline": False, "scaleanchor": "x",
               "gridcolor": GRID, "automargin": True, "tickfont": {"size": tick}},  # the title clears the ticks
        xaxis2={"domain": x2, "anchor": "y2", "title": {"text": _("feature")}, "dtick": 1, "showgrid": False,
                "tickfont": {"size": tick}},
        yaxis2={"domain": y2, "anchor": "x2", "autorange": "reversed", "dtick": 1 if len(X) <= 16 else 4,
                "title": {"text": _("token"), "standoff": 4}, "showgrid": False, "tickfont": {"size": tick}},
        annotations=[
            {"text": "<b>" + _("{n} tokens, {k} clusters").format(n=len(X), k=len(np.unique(cluster))) + "</b>",
             "x": sum(x1) / 2, "y": y1[1],
             "xref": "paper", "yref": "paper", "showarrow": False, "yanchor": "bottom", "xanchor": "center"},
            {"text": "<b>X (n × d)</b>", "x": sum(x2) / 2, "y": y2[1], "xref": "paper", "yref": "paper",
             "showarrow": False, "yanchor": "bottom", "xanchor": "center"},
        ],
    )
    return {"data": data, "layout": layout}


def block_views(Q: np.ndarray, K: np.ndarray, V: np.ndarray, display: Display = DESKTOP) -> dict:
    """Q, K, V (each (h, n, d_k), as split by head) side by side as n x d matrices,
    with the h column blocks Q_i, K_i, V_i outlined and named."""
    h, n, d_k = Q.shape
    full = [merge_heads(M) for M in (Q, K, V)]
    # Translators: a matrix entry's value (not attention's value V)
    value = _("value")
    fig = heatmap_grid(full, ["Q = X W_Q", "K = X W_K", "V = X W_V"], max_cols=3, display=display, zmin=None,
                       colorscale=FEATURE_SCALE, colorbar_title=value, x_title=_("feature"),
                       y_title=_("token"), value_name=value, panel_px=300)
    for p, name in enumerate("QKV"):
        # "column blocks" where the grid titles the x axis: under its last row (on a phone, a title under the
        # first row's left panel would run into the panel below it)
        titled = bool(fig["layout"]["xaxis" + axis_suffix(p)]["title"]["text"])
        outline_blocks(fig, p, [f"{name}{i + 1}".translate(SUBSCRIPT) for i in range(h)], d_k, n,
                       title=_("column blocks") if titled else None)
    return fig
