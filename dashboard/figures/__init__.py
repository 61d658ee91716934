"""Arrays in, Plotly figures out: the building blocks every view's figures share.

Figures are plain dicts: building `go.Figure` objects validates every property
and costs milliseconds per update, while a dict costs microseconds. Arrays
travel as base64 typed arrays, as Plotly.js reads them natively.
"""

from __future__ import annotations

import base64
from typing import NamedTuple

import numpy as np

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
    "modeBarButtonsToRemove": ["select2d", "lasso2d"],
}
PLANE_OPACITY, FADED_OPACITY = 0.85, 0.08
NARROW_COLUMNS = 2  # panels a row on a phone
LECTURE_COLUMNS, LECTURE_PANEL_PX = 3, 520  # lecture mode: panels over 400 px wide on a 1920 px projector
_FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
_TRANSPARENT = "rgba(0,0,0,0)"
GRID = "rgba(128,128,128,0.25)"  # visible on light and dark backgrounds
MID_GREY = "#8a8a99"


class Display(NamedTuple):
    """How the page shows figures: on a phone-width page (fewer panels a row), or in lecture mode (larger)."""

    narrow: bool = False
    lecture: bool = False

    @classmethod
    def parse(cls, value) -> Display:
        """The page's display store: {"narrow": bool, "lecture": bool}; anything else is a desktop page."""
        if not isinstance(value, dict):
            return cls()
        return cls(narrow=value.get("narrow") is True, lecture=value.get("lecture") is True)

    @property
    def font_size(self) -> int:
        return 16 if self.lecture else 13


DESKTOP = Display()


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


def base_layout(display: Display = DESKTOP, **extra) -> dict:
    layout = {
        "autosize": True,  # every draw takes the graph's width from its box, also the first after a hidden tab
        "font": {"family": _FONT_FAMILY, "size": display.font_size},
        "paper_bgcolor": _TRANSPARENT,
        "plot_bgcolor": _TRANSPARENT,
        "margin": {"l": 40, "r": 10, "t": 40, "b": 40},
    }
    layout.update(extra)
    return layout


def rows_for(k: int, cols: int) -> int:
    """Rows of a grid of k panels, `cols` a row."""
    return -(-k // cols)


def axis_suffix(p: int) -> str:
    """Plotly's name suffix for panel p's axes: '' for the first, then '2', '3', …"""
    return "" if p == 0 else str(p + 1)


def grid_domains(k: int, cols: int, gap: float = 0.06):
    """Yields (x_domain, y_domain) for k equal panels, `cols` per row, filled row by row from the top."""
    rows = rows_for(k, cols)
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
    display: Display = DESKTOP,
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
    `row_labels` / `col_labels` give each panel its own tick labels. A phone-width page
    (`display.narrow`) gets at most NARROW_COLUMNS panels a row; lecture mode fewer, larger panels.
    """
    panels = [np.asarray(p) for p in panels]
    k = len(panels)
    if display.lecture and not display.narrow:
        max_cols, panel_px = min(max_cols, LECTURE_COLUMNS), max(panel_px, LECTURE_PANEL_PX)
    cols = min(NARROW_COLUMNS if display.narrow else max_cols, k)
    rows = rows_for(k, cols)
    if zmin is None:  # symmetric, for signed data
        zmax = float(max(abs(p).max() for p in panels)) or 1.0
        zmin = -zmax
    elif zmax is None:
        zmax = float(max(p.max() for p in panels))
    layout = base_layout(
        display,
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
    for p, ((xd, yd), panel, title) in enumerate(zip(grid_domains(k, cols), panels, titles)):
        sx = axis_suffix(p)
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
        axis = {"showgrid": False, "zeroline": False, "ticks": "", "constrain": "domain",
                "tickfont": {"size": display.font_size if display.lecture else display.font_size - 3}}
        layout["xaxis" + sx] = {  # automargin: the title sits below the tick labels, however large they are
            **axis, "domain": xd, "anchor": "y" + sx, "title": {"text": x_title if p >= k - cols else ""},
            "automargin": True,
            **_ticks(col_labels[p] if col_labels else None, n_cols, cols),
        }
        layout["yaxis" + sx] = {  # automargin: long row labels ("from head 1") widen the margin, not get cut
            **axis, "domain": yd, "anchor": "x" + sx, "autorange": "reversed", "scaleanchor": "x" + sx,
            "automargin": True,
            "title": {"text": y_title if p % cols == 0 else ""},
            **_ticks(row_labels[p] if row_labels else None, n_rows, cols),
        }
        layout["annotations"].append({
            "text": f"<b>{title}</b>", "showarrow": False, "xref": "paper", "yref": "paper",
            "x": (xd[0] + xd[1]) / 2, "y": yd[1], "yanchor": "bottom", "xanchor": "center",
        })
    return {"data": data, "layout": layout}


SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
SELECTION_COLOUR = "#D55E00"  # Okabe-Ito vermilion: stands out on Purples and RdBu, light or dark


def outline_blocks(fig: dict, p: int, names: list[str], block: int, length: int, axis: str = "x",
                   title: str | None = None) -> None:
    """Outline and name panel p's consecutive blocks of `block` columns (axis 'x') or rows (axis 'y'),
    e.g. the h column blocks Q_1 … Q_h of Q, each d/h wide; `length` is the panel's other side.
    A `title` replaces the axis title ('' removes it)."""
    sx = axis_suffix(p)
    centres = [(i + 0.5) * block - 0.5 for i in range(len(names))]
    fig["layout"][axis + "axis" + sx].update(tickmode="array", tickvals=centres, ticktext=names,
                                             **({} if title is None else {"title": {"text": title}}))
    edges = [(i * block - 0.5, (i + 1) * block - 0.5) for i in range(len(names))]
    other = (-0.5, length - 0.5)
    fig["layout"].setdefault("shapes", []).extend(
        {"type": "rect", "xref": "x" + sx, "yref": "y" + sx, "line": {"width": 2, "color": "#555"},
         **dict(zip(("x0", "x1", "y0", "y1"), (*edge, *other) if axis == "x" else (*other, *edge)))}
        for edge in edges)


def cell_outline(p: int, r: int, j: int) -> dict:
    """A bold square around cell (r, j) of panel p: the selected query and key."""
    sx = axis_suffix(p)
    return {"type": "rect", "xref": "x" + sx, "yref": "y" + sx, "x0": j - 0.5, "x1": j + 0.5, "y0": r - 0.5,
            "y1": r + 0.5, "line": {"width": 3, "color": SELECTION_COLOUR}, "name": "selection"}


def _ticks(labels, count: int, cols: int) -> dict:
    """Every row and column of a lone panel or a short axis; else every fourth, which marks
    the worked example's clusters of four tokens."""
    if labels is None:
        return {"tickmode": "linear", "dtick": 1 if cols == 1 or count <= 8 else 4, "tick0": 0}
    return {"tickmode": "array", "tickvals": list(range(count)), "ticktext": list(labels)}
