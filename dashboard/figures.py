"""Arrays in, Plotly figures out.

Figures are plain dicts: building `go.Figure` objects validates every property
and costs milliseconds per update, while a dict costs microseconds. Arrays
travel as base64 typed arrays, as Plotly.js reads them natively.
"""

from __future__ import annotations

import base64

import numpy as np

from .attention import merge_heads

# Sequential scale for attention weights: one hue, readable in grey and by colour-blind readers.
# ColorBrewer "Purples" (Plotly.js knows it by value, not by name).
ATTENTION_SCALE = [[k / 8, c] for k, c in enumerate(
    ("#fcfbfd", "#efedf5", "#dadaeb", "#bcbddc", "#9e9ac8", "#807dba", "#6a51a3", "#54278f", "#3f007d"))]
# Diverging scale for signed features, centred at 0 (colour-blind safe).
FEATURE_SCALE = "RdBu"
# Okabe-Ito colours, with a distinct marker per cluster so colour is never the only cue.
CLUSTER_COLOURS = ("#E69F00", "#0072B2", "#009E73")
CLUSTER_SYMBOLS = ("circle", "square", "diamond")
SUPERSCRIPT = str.maketrans("0123456789()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾")

GRAPH_CONFIG = {
    "displaylogo": False,
    "showSendToCloud": False,  # plotly's "share" button posts data to another host
    "responsive": True,
    "modeBarButtonsToRemove": ["select2d", "lasso2d"],
}
PLANE_OPACITY, FADED_OPACITY = 0.85, 0.08
NARROW_COLUMNS = 2  # panels a row on a phone
_FONT = {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13}
_TRANSPARENT = "rgba(0,0,0,0)"
_GRID = "rgba(128,128,128,0.25)"  # visible on light and dark backgrounds
_MID_GREY = "#8a8a99"


def typed_array(a, dtype: str = "f4") -> dict:
    """A numpy array as a Plotly.js typed array: {"dtype", "bdata"[, "shape"]}."""
    a = np.ascontiguousarray(a, dtype=np.dtype(dtype))
    out = {"dtype": dtype, "bdata": base64.b64encode(a.tobytes()).decode("ascii")}
    if a.ndim > 1:
        out["shape"] = ", ".join(map(str, a.shape))
    return out


def head_label(i: int) -> str:
    """'A⁽³⁾' for head index 2: the seed's A^(i), numbered from 1, in plain text."""
    return "A" + f"({i + 1})".translate(SUPERSCRIPT)


def base_layout(**extra) -> dict:
    layout = {
        "font": _FONT,
        "paper_bgcolor": _TRANSPARENT,
        "plot_bgcolor": _TRANSPARENT,
        "margin": {"l": 40, "r": 10, "t": 40, "b": 40},
    }
    layout.update(extra)
    return layout


def _grid_domains(k: int, cols: int, gap: float = 0.06):
    """Yields (x_domain, y_domain) for k equal panels, `cols` per row, filled row by row from the top."""
    rows = -(-k // cols)
    w = (1 - (cols - 1) * gap) / cols
    hgt = (1 - (rows - 1) * gap * 1.5) / rows  # taller gaps between rows: they hold the panel titles
    for p in range(k):
        r, c = divmod(p, cols)
        x0, y1 = c * (w + gap), 1 - r * (hgt + gap * 1.5)
        yield [x0, x0 + w], [max(y1 - hgt, 0), y1]


def heatmap_grid(
    panels,
    titles,
    *,
    max_cols: int = 4,
    narrow: bool = False,
    zmin: float | None = 0.0,
    zmax: float | None = None,
    colorscale=ATTENTION_SCALE,
    colorbar_title: str = "weight",
    x_title: str = "key j",
    y_title: str = "query r",
    row_labels=None,
    col_labels=None,
    value_name: str = "A",
    panel_px: int = 230,
) -> dict:
    """One heatmap per panel, all on one colour scale with one colour bar.

    `panels` is a sequence of 2-D arrays (e.g. the (h, n, n) attention cube).
    Row 0 is at the top and cells are square, as in the seed's imshow.
    `row_labels` / `col_labels` give each panel its own tick labels. A `narrow` (phone-width)
    page gets at most NARROW_COLUMNS panels a row.
    """
    panels = [np.asarray(p) for p in panels]
    k = len(panels)
    cols = min(NARROW_COLUMNS if narrow else max_cols, k)
    rows = -(-k // cols)
    if zmin is None:  # symmetric, for signed data
        zmax = float(max(abs(p).max() for p in panels)) or 1.0
        zmin = -zmax
    elif zmax is None:
        zmax = float(max(p.max() for p in panels))
    layout = base_layout(
        height=rows * panel_px + 70,
        margin={"l": 50, "r": 10, "t": 40, "b": 30},
        coloraxis={
            "colorscale": colorscale,
            "cmin": zmin,
            "cmax": zmax,
            "colorbar": {"title": {"text": colorbar_title, "side": "right"}, "thickness": 12, "len": 0.9},
        },
        annotations=[],
    )
    data = []
    for p, ((xd, yd), panel, title) in enumerate(zip(_grid_domains(k, cols), panels, titles)):
        sx = "" if p == 0 else str(p + 1)
        n_rows, n_cols = panel.shape
        data.append({
            "type": "heatmap",
            "z": typed_array(panel),
            "coloraxis": "coloraxis",
            "xaxis": "x" + sx,
            "yaxis": "y" + sx,
            "hovertemplate": f"{title}<br>{y_title} = %{{y}}<br>{x_title} = %{{x}}"
                             f"<br>{value_name} = %{{z:.3f}}<extra></extra>",
        })
        axis = {"showgrid": False, "zeroline": False, "ticks": "", "constrain": "domain", "tickfont": {"size": 10}}
        layout["xaxis" + sx] = {
            **axis, "domain": xd, "anchor": "y" + sx, "title": {"text": x_title if p >= k - cols else ""},
            **_ticks(col_labels[p] if col_labels else None, n_cols, cols),
        }
        layout["yaxis" + sx] = {
            **axis, "domain": yd, "anchor": "x" + sx, "autorange": "reversed", "scaleanchor": "x" + sx,
            "title": {"text": y_title if p % cols == 0 else ""},
            **_ticks(row_labels[p] if row_labels else None, n_rows, cols),
        }
        layout["annotations"].append({
            "text": f"<b>{title}</b>", "showarrow": False, "xref": "paper", "yref": "paper",
            "x": (xd[0] + xd[1]) / 2, "y": yd[1], "yanchor": "bottom", "xanchor": "center",
        })
    return {"data": data, "layout": layout}


def _ticks(labels, count: int, cols: int) -> dict:
    """Every row and column of a lone panel or a short axis; else every fourth, which marks
    the worked example's clusters of four tokens."""
    if labels is None:
        return {"tickmode": "linear", "dtick": 1 if cols == 1 or count <= 8 else 4, "tick0": 0}
    return {"tickmode": "array", "tickvals": list(range(count)), "ticktext": list(labels)}


def attention_heatmaps(A: np.ndarray, narrow: bool = False) -> dict:
    """The seed's per-head figure: A (h, n, n) as panels A⁽¹⁾ … A⁽ʰ⁾, at most four a row (two on a phone)."""
    return heatmap_grid(A, [head_label(i) for i in range(len(A))], narrow=narrow)


# ------------------------------------------------------------------ cube


def cube_layout() -> dict:
    """The cube's layout. It does not depend on h or the seed, so updates replace only
    `data` and the user's rotation and zoom survive."""
    # WebGL text ignores the page's CSS: a mid grey reads on light and dark backgrounds alike.
    hidden_axis = {"showbackground": False, "showspikes": False, "color": _MID_GREY}
    return base_layout(
        height=520,
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        showlegend=False,
        uirevision="cube",
        meta={"opacity": {"on": PLANE_OPACITY, "off": FADED_OPACITY}},  # read by assets/clientside.js
        scene={
            "xaxis": {**hidden_axis, "title": {"text": "key j"}, "dtick": 2},
            "yaxis": {**hidden_axis, "title": {"text": "query r"}, "autorange": "reversed", "dtick": 2},
            "zaxis": {**hidden_axis, "title": {"text": "head"}, "showticklabels": False},
            "aspectmode": "manual",
            "aspectratio": {"x": 1, "y": 1, "z": 0.9},
            "camera": {"eye": {"x": 1.5, "y": -1.6, "z": 0.9}},
        },
    )


def cube_traces(A: np.ndarray) -> list[dict]:
    """The (h, n, n) cube as h translucent planes, plane i at height h-1-i so head 1 is on top,
    coloured by A^(i) on one scale; plus one text trace that labels the planes."""
    h, n, _ = A.shape
    amax = float(A.max())
    traces = []
    for i in range(h):
        traces.append({
            "type": "surface",
            "x": typed_array(np.arange(n), "u1"),
            "y": typed_array(np.arange(n), "u1"),
            "z": typed_array(np.full((n, n), h - 1 - i), "u1"),
            "surfacecolor": typed_array(A[i]),
            "cmin": 0.0,
            "cmax": amax,
            "colorscale": ATTENTION_SCALE,
            "showscale": i == 0,
            "colorbar": {"title": {"text": "weight"}, "thickness": 12, "len": 0.7},
            "opacity": PLANE_OPACITY,
            "name": head_label(i),
            "hovertemplate": f"{head_label(i)}<br>query r = %{{y}}<br>key j = %{{x}}"
                             "<br>A = %{surfacecolor:.3f}<extra></extra>",
            "contours": {"x": {"highlight": False}, "y": {"highlight": False}, "z": {"highlight": False}},
        })
    traces.append({
        "type": "scatter3d",
        "mode": "text",
        "x": [n - 0.5] * h,
        "y": [-1.5] * h,
        "z": list(range(h - 1, -1, -1)),
        "text": [f"head {i + 1}" for i in range(h)],
        "textposition": "middle right",
        "textfont": {"color": _MID_GREY, "size": 13},
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


# ---------------------------------------------------------------- tokens


def token_views(X: np.ndarray, cluster: np.ndarray) -> dict:
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
    layout = base_layout(
        height=400,
        legend={"orientation": "h", "x": 0, "y": -0.25, "yanchor": "top"},
        margin={"l": 50, "r": 10, "t": 40, "b": 90},
        xaxis={"domain": [0, 0.5], "title": {"text": "1st principal direction"}, "zeroline": False,
               "gridcolor": _GRID},
        yaxis={"title": {"text": "2nd principal direction"}, "zeroline": False, "scaleanchor": "x", "gridcolor": _GRID},
        xaxis2={"domain": [0.62, 1], "anchor": "y2", "title": {"text": "feature"}, "dtick": 1, "showgrid": False},
        yaxis2={"anchor": "x2", "autorange": "reversed", "dtick": 1, "title": {"text": "token"}, "showgrid": False},
        annotations=[
            {"text": "<b>12 tokens, 3 clusters</b>", "x": 0.25, "y": 1.02, "xref": "paper", "yref": "paper",
             "showarrow": False, "yanchor": "bottom"},
            {"text": "<b>X (n × d)</b>", "x": 0.81, "y": 1.02, "xref": "paper", "yref": "paper",
             "showarrow": False, "yanchor": "bottom"},
        ],
    )
    return {"data": data, "layout": layout}


def block_views(Q: np.ndarray, K: np.ndarray, V: np.ndarray, narrow: bool = False) -> dict:
    """Q, K, V (each (h, n, d_k), as split by head) side by side as n x d matrices,
    with the h column blocks Q_i, K_i, V_i outlined and named."""
    h, n, d_k = Q.shape
    full = [merge_heads(M) for M in (Q, K, V)]
    fig = heatmap_grid(full, ["Q = X W_Q", "K = X W_K", "V = X W_V"], max_cols=3, narrow=narrow, zmin=None,
                       colorscale=FEATURE_SCALE, colorbar_title="value", x_title="feature",
                       y_title="token", value_name="value", panel_px=300)
    subscript = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    centres = [(i + 0.5) * d_k - 0.5 for i in range(h)]
    shapes = []
    for p, name in enumerate("QKV"):
        sx = "" if p == 0 else str(p + 1)
        fig["layout"]["xaxis" + sx].update(
            tickmode="array", tickvals=centres, ticktext=[f"{name}{i + 1}".translate(subscript) for i in range(h)],
            title={"text": "column blocks"})
        shapes += [{"type": "rect", "xref": "x" + sx, "yref": "y" + sx, "x0": i * d_k - 0.5, "x1": (i + 1) * d_k - 0.5,
                    "y0": -0.5, "y1": n - 0.5, "line": {"width": 2, "color": "#555"}} for i in range(h)]
    fig["layout"]["shapes"] = shapes
    return fig


# ---------------------------------------------------------------- mixing


def single_head_heatmap(A_single: np.ndarray, zmax: float) -> dict:
    """The one A = softmax(QK^T/sqrt(d)) that single-head attention applies to every column block."""
    return heatmap_grid([A_single], ["A, for every column block"], zmax=zmax, panel_px=330)


def multi_head_heatmaps(A: np.ndarray, d_k: int, zmax: float, narrow: bool = False) -> dict:
    """A^(i) labelled by the output columns it mixes: head i writes columns i*d_k .. (i+1)*d_k - 1."""
    h = len(A)
    titles = [f"{head_label(i)}: cols {i * d_k}–{(i + 1) * d_k - 1}" if d_k > 1 else f"{head_label(i)}: col {i}"
              for i in range(h)]
    return heatmap_grid(A, titles, zmax=zmax, narrow=narrow, panel_px=330 if h == 1 else 230)


# ---------------------------------------------------------- equivariance


def token_labels(order) -> list[str]:
    """Tick labels that name the token sitting in each row, e.g. 't5'."""
    return [f"t{int(t)}" for t in order]


def equivariance_inputs(X_in: np.ndarray, PX_in: np.ndarray, perm) -> dict:
    """X and PX, each (n, d) with positions already added if any, rows named by the token they hold."""
    rows = [token_labels(range(len(perm))), token_labels(perm)]
    return heatmap_grid([X_in, PX_in], ["X", "PX"], max_cols=2, zmin=None, colorscale=FEATURE_SCALE,
                        colorbar_title="x", x_title="feature", y_title="row", value_name="x",
                        row_labels=rows, panel_px=300)


def equivariance_attention(A_X: np.ndarray, A_PX: np.ndarray, PAP: np.ndarray, perm, head: int,
                           narrow: bool = False) -> dict:
    """For one head: A(X), A(PX) and P A(X) P^T, each (n, n); the last two are equal when equivariance holds."""
    ident, permuted = token_labels(range(len(perm))), token_labels(perm)
    label = head_label(head)
    return heatmap_grid(
        [A_X, A_PX, PAP], [f"{label}(X)", f"{label}(PX)", f"P {label}(X) Pᵀ"], max_cols=3, narrow=narrow,
        zmax=float(max(A_X.max(), A_PX.max())), row_labels=[ident, permuted, permuted],
        col_labels=[ident, permuted, permuted], panel_px=300)


# ---------------------------------------------------------------- learning


def target_mixing_figure(own: np.ndarray, nxt: np.ndarray) -> dict:
    """The two mixings the task asks for at once: one matrix cannot be both."""
    return heatmap_grid([own, nxt], ["features 0–3: own cluster", "features 4–7: next cluster"], max_cols=2,
                        colorbar_title="weight", panel_px=260)


def loss_curves(curves: dict, floor: float, narrow: bool = False) -> dict:
    """Training loss against step, one panel per h (curves: h -> (losses, test_loss)), log scale,
    with the dashed line every single mixing is stuck at."""
    hs = sorted(curves)
    k = len(hs)
    cols = NARROW_COLUMNS if narrow else k
    layout = base_layout(height=300 * -(-k // cols), showlegend=False, annotations=[], shapes=[],
                         margin={"l": 55, "r": 10, "t": 50, "b": 45})
    data = []
    for p, ((xd, yd), h) in enumerate(zip(_grid_domains(k, cols, gap=0.08), hs)):
        sx = "" if p == 0 else str(p + 1)
        losses, test_loss = curves[h]
        data.append({"type": "scatter", "mode": "lines", "x": typed_array(np.arange(len(losses)), "u2"),
                     "y": typed_array(losses), "xaxis": "x" + sx, "yaxis": "y" + sx,
                     "line": {"width": 1.5, "color": CLUSTER_COLOURS[1]},
                     "hovertemplate": f"h = {h}<br>step %{{x}}<br>loss %{{y:.4f}}<extra></extra>"})
        layout["xaxis" + sx] = {"domain": xd, "anchor": "y" + sx, "title": {"text": "step"}, "gridcolor": _GRID,
                                "range": [0, len(losses)]}
        layout["yaxis" + sx] = {"anchor": "x" + sx, "domain": yd, "type": "log", "range": [-2.3, 0.2],
                                "gridcolor": _GRID,
                                "tickvals": [0.01, 0.03, 0.1, 0.3, 1], "ticktext": ["0.01", "0.03", "0.1", "0.3", "1"],
                                "title": {"text": "loss (MSE)" if p % cols == 0 else ""},
                                "showticklabels": p % cols == 0,
                                **({"matches": "y"} if p else {})}
        layout["shapes"].append({"type": "line", "xref": f"x{sx} domain", "yref": "y" + sx, "x0": 0, "x1": 1,
                                 "y0": floor, "y1": floor, "line": {"dash": "dash", "width": 1.5, "color": "#D55E00"}})
        layout["annotations"].append({
            "text": f"<b>h = {h}</b><br>test MSE {test_loss:.3f}", "showarrow": False, "xref": "paper",
            "yref": "paper", "x": (xd[0] + xd[1]) / 2, "y": yd[1], "yanchor": "bottom", "xanchor": "center"})
    layout["annotations"].append({"text": "3/8: any single mixing", "showarrow": False, "xref": "x domain",
                                  "yref": "y", "x": 1, "y": np.log10(floor), "xanchor": "right", "yanchor": "bottom",
                                  "font": {"size": 11, "color": "#D55E00"}})
    return {"data": data, "layout": layout}
