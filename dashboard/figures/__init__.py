"""Arrays in, Plotly figures out: the building blocks every view's figures share.

Figures are plain dicts: building `go.Figure` objects validates every property
and costs milliseconds per update, while a dict costs microseconds. Arrays
travel as base64 typed arrays, as Plotly.js reads them natively.
"""

from __future__ import annotations

import base64
from typing import NamedTuple

import numpy as np

from ..i18n import DEFAULT, N_, _, language

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
    # a frame's own buttons save a slide in the page's theme (explorer/slides.py); plotly's camera saved it light
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "toImage"],
}
# Plotly's own words (its toolbar's buttons and notices), which graph_config gives it in the page's language.
PLOTLY_WORDS = (
    N_("Zoom"), N_("Pan"), N_("Zoom in"), N_("Zoom out"), N_("Autoscale"), N_("Reset axes"),
    N_("Double-click to zoom back out"), N_("Orbital rotation"), N_("Turntable rotation"),
    N_("Reset camera to default"), N_("Reset camera to last save"), N_("Reset view"), N_("Reset views"),
    N_("Show closest data on hover"), N_("Compare data on hover"), N_("Toggle show closest data on hover"),
    N_("Toggle Spike Lines"),
)


def graph_config() -> dict:
    """GRAPH_CONFIG, with plotly's words in the request's language: a dictionary only, so numbers keep plotly's
    default format (a decimal point), as the rest of the page writes them in every language."""
    lang = language()
    if lang == DEFAULT:
        return GRAPH_CONFIG
    return {**GRAPH_CONFIG, "locale": lang, "locales": {lang: {"dictionary": {w: _(w) for w in PLOTLY_WORDS}}}}


PLANE_OPACITY, FADED_OPACITY = 0.85, 0.08
NARROW_COLUMNS = 2  # panels a row on a phone
# Lecture mode at 1920 x 1080: the prose is 23.5 px, so figure text is 24 px, and a figure is at most
# LECTURE_FIGURE_PX tall, so all of it fits under the header (which leaves 779 px or more). Its plot area is
# about LECTURE_PLOT_PX wide (the full page less the axis titles, tick labels and colour bar).
LECTURE_FONT_PX, LECTURE_FIGURE_PX, LECTURE_PLOT_PX, LECTURE_PANEL_MAX_PX = 24, 760, 1600, 600
# A plot area's usual width (the page less the axis titles and colour bar) on a laptop and on a 390 px phone.
DESKTOP_PLOT_PX, NARROW_PLOT_PX = 600, 290
HALF_WIDTH = 0.46  # a figure's share of the width beside another setting's (figures/compare.py); the rest, the gap
NARROW_COLORBAR_PX = 56  # on a phone the colour bar lies under the panels: they get the page's width
MODEBAR_PX = 32  # on a phone the toolbar is always shown, top right: titles start below it
# The page's fonts, with the system's CJK ones for Chinese (assets/site/app.css): none from another host.
_FONT_FAMILY = ("system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans CJK SC', 'Source Han Sans SC', "
                "'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', sans-serif")
_TRANSPARENT = "rgba(0,0,0,0)"
GRID = "rgba(128,128,128,0.25)"  # visible on light and dark backgrounds


class Display(NamedTuple):
    """How the page shows figures: on a phone-width page (fewer panels a row), or in lecture mode (larger); `half`:
    in half the page's width, beside another setting's (figures/compare.py; not on a phone, where they stack)."""

    narrow: bool = False
    lecture: bool = False
    half: bool = False

    @classmethod
    def parse(cls, value) -> Display:
        """The page's display store: {"narrow": bool, "lecture": bool}; anything else is a desktop page."""
        if not isinstance(value, dict):
            return cls()
        return cls(narrow=value.get("narrow") is True, lecture=value.get("lecture") is True)

    @property
    def large(self) -> bool:
        """Lecture mode on a page wide enough for it (on a phone, lecture mode changes only the text)."""
        return self.lecture and not self.narrow

    @property
    def plot_px(self) -> int:
        """The plot area's width a layout plans for: the display's usual one (the page's less the axis titles and
        colour bar), half the lecture page's for a half, and a laptop's half page (DESKTOP_PLOT_PX) on a desktop."""
        if self.narrow:
            return NARROW_PLOT_PX
        return int(LECTURE_PLOT_PX * (HALF_WIDTH if self.half else 1)) if self.large else DESKTOP_PLOT_PX

    @property
    def font_size(self) -> int:
        """Figure text: titles, axis titles, legends, colour bars; and in lecture mode tick labels too."""
        return LECTURE_FONT_PX if self.large else 16 if self.lecture else 13

    @property
    def tick_size(self) -> int:
        """Tick labels: in lecture mode as large as the rest, else a size that still reads (never below 12)."""
        return self.font_size if self.lecture else 12


DESKTOP = Display()


def typed_array(a, dtype: str = "f4") -> dict:
    """A numpy array as a Plotly.js typed array: {"dtype", "bdata"[, "shape"]}."""
    a = np.ascontiguousarray(a, dtype=np.dtype(dtype))
    out = {"dtype": dtype, "bdata": base64.b64encode(a.tobytes()).decode("ascii")}
    if a.ndim > 1:
        out["shape"] = ", ".join(map(str, a.shape))
    return out


def head_sup(i: int) -> str:
    """'⁽³⁾' for head index 2: the seed's superscript (i), numbered from 1, in plain text."""
    return f"({i + 1})".translate(SUPERSCRIPT)


def head_label(i: int) -> str:
    """'A⁽³⁾' for head index 2: the seed's A^(i), in plain text (for sentences; a figure uses head_title)."""
    return "A" + head_sup(i)


def head_title(i: int) -> str:
    """'head 3' for head index 2: a head's name in a figure. A superscript index (A⁽³⁾, or Plotly's
    A<sup>(3)</sup>) is drawn at 60 to 70 % of the title's size, too small to read from the back of a hall."""
    # Translators: an attention head's name in a figure, as in "head 3"
    return _("head {number}").format(number=i + 1)


def clear_toolbar(layout: dict) -> None:
    """MODEBAR_PX more top margin (and height, if set): room for a phone's toolbar above the titles."""
    layout["margin"] = {**layout["margin"], "t": layout["margin"]["t"] + MODEBAR_PX}
    if "height" in layout:
        layout["height"] += MODEBAR_PX


def base_layout(display: Display = DESKTOP, **extra) -> dict:
    """A figure's layout: the display's font, a transparent background; on a phone, where Plotly shows its
    toolbar all the time, MODEBAR_PX more top margin, so the toolbar covers no title."""
    layout = {
        "autosize": True,  # every draw takes the graph's width from its box, also the first after a hidden tab
        "font": {"family": _FONT_FAMILY, "size": display.font_size},
        "paper_bgcolor": _TRANSPARENT,
        "plot_bgcolor": _TRANSPARENT,
        "margin": {"l": 40, "r": 10, "t": 40, "b": 40},
    }
    layout.update(extra)
    if display.narrow:
        clear_toolbar(layout)
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
    colorbar_title: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    row_labels=None,
    col_labels=None,
    value_name: str = "A",
    panel_px: int = 230,
    y_label_chars: int | None = None,
) -> dict:
    """One heatmap per panel, all on one colour scale with one colour bar.

    `panels` is a sequence of 2-D arrays (e.g. the (h, n, n) attention cube).
    Row 0 is at the top and cells are square, as in the seed's imshow.
    `row_labels` / `col_labels` give each panel its own tick labels; `y_label_chars`, the longest row label
    set later (by outline_blocks), makes room for it between the columns. A phone-width page
    (`display.narrow`) gets at most NARROW_COLUMNS panels a row. `panel_px` is a row's height; in lecture
    mode the rows take what the figure's LECTURE_FIGURE_PX leaves, so every panel fits one screen
    (h = 8: two rows of four; h = 4: one row of four). The titles default to an attention grid's.
    """
    colorbar_title = _("weight") if colorbar_title is None else colorbar_title
    # Translators: attention's key j and query r (tokens), as axis titles
    x_title, y_title = _("key j") if x_title is None else x_title, _("query r") if y_title is None else y_title
    panels = [np.asarray(p) for p in panels]
    k = len(panels)
    cols = min(NARROW_COLUMNS if display.narrow else max_cols, k)
    rows = rows_for(k, cols)
    if zmin is None:  # symmetric, for signed data
        zmax = float(max(abs(p).max() for p in panels)) or 1.0
        zmin = -zmax
    elif zmax is None:
        zmax = float(max(p.max() for p in panels))
    # Rows laid out in pixels, from the text they hold: a title above each panel, tick labels below it,
    # and under the last row the x axis title.
    lines = max(str(t).count("<br>") + 1 for t in titles)
    title_px = round(display.font_size * (1.3 * lines + 0.3))
    ticks_px = round(display.tick_size * 1.6)
    top, bottom = title_px + 4, ticks_px + round(display.font_size * 1.6) + 6
    row_gap = ticks_px + title_px + round(display.font_size * 0.5)
    chars = y_label_chars or max(len(str(label)) for labels in row_labels or [[panels[0].shape[0] - 1]]
                                 for label in labels)
    gap = _column_gap(display, chars)
    aspect = max(p.shape[0] / p.shape[1] for p in panels)  # a row's height for its width
    if display.large:
        by_height = (LECTURE_FIGURE_PX - top - bottom - (rows - 1) * row_gap) / rows
        by_width = display.plot_px * (1 - (cols - 1) * gap) / cols * aspect
        panel_px = int(min(by_height, by_width, LECTURE_PANEL_MAX_PX))
    elif display.narrow or display.half:  # as tall as a phone's or a half's width lets a panel be: no empty band
        panel_px = int(min(panel_px, display.plot_px * (1 - (cols - 1) * gap) / cols * aspect))
    plot_px = rows * panel_px + (rows - 1) * row_gap
    colorbar = {"title": {"text": colorbar_title, "side": "right"}, "thickness": 12, "len": 0.9}
    if display.narrow:  # under the panels, across the page, so the panels take the page's width
        bottom += NARROW_COLORBAR_PX
        colorbar.update(orientation="h", x=0.5, xanchor="center", y=0, yanchor="bottom", yref="container",
                        len=0.8, thickness=10)
    layout = base_layout(
        display,
        height=top + plot_px + bottom,
        margin={"l": 50, "r": 10, "t": top, "b": bottom},
        coloraxis={"colorscale": colorscale, "cmin": zmin, "cmax": zmax, "colorbar": colorbar},
        annotations=[],
    )
    columns = grid_domains(k, cols, gap)
    data = []
    for p, ((xd, _yd), panel, title) in enumerate(zip(columns, panels, titles)):
        sx = axis_suffix(p)
        n_rows, n_cols = panel.shape
        y1 = 1 - (p // cols) * (panel_px + row_gap) / plot_px
        yd = [max(y1 - panel_px / plot_px, 0), y1]
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
                "tickfont": {"size": display.tick_size}}
        layout["xaxis" + sx] = {  # automargin: the title sits below the tick labels, however large they are
            **axis, "domain": xd, "anchor": "y" + sx, "title": {"text": x_title if p >= k - cols else ""},
            "automargin": True,
            **_ticks(col_labels[p] if col_labels else None, n_cols, cols),
        }
        layout["yaxis" + sx] = {  # automargin: long row labels ("from head 1") widen the margin, not get cut
            **axis, "domain": yd, "anchor": "x" + sx, "autorange": "reversed", "scaleanchor": "x" + sx,
            "constraintoward": "top",  # a panel narrower than its row stays under its title
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
COVER_COLOUR = "#6c757d"  # Bootstrap's secondary grey: not a weight on Purples, and white "?" on it reads (4.7:1)
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


def cover(p: int, x0: float, x1: float, y0: float, y1: float) -> dict:
    """An opaque grey box with a "?" over part of panel p: weights the class predicts before they are shown."""
    sx = axis_suffix(p)
    return {"type": "rect", "xref": "x" + sx, "yref": "y" + sx, "x0": x0, "x1": x1, "y0": y0, "y1": y1,
            "fillcolor": COVER_COLOUR, "opacity": 1, "layer": "above", "line": {"width": 0}, "name": "hidden",
            "label": {"text": "?", "font": {"size": 20, "color": "#ffffff"}}}


def _column_gap(display: Display, chars: int) -> float:
    """The gap between two columns of panels, a fraction of the plot's width: room for y tick labels of
    `chars` characters, on the plot width usual for the display."""
    return max(0.04 if display.large else 0.06, (chars * 0.62 * display.tick_size + 14) / display.plot_px)


def _ticks(labels, count: int, cols: int) -> dict:
    """Every row and column of a lone panel or a short axis; else every fourth, which marks
    the worked example's clusters of four tokens."""
    if labels is None:
        return {"tickmode": "linear", "dtick": 1 if cols == 1 or count <= 8 else 4, "tick0": 0}
    return {"tickmode": "array", "tickvals": list(range(count)), "ticktext": list(labels)}
