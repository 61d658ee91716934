"""Two settings side by side: two figures of the worked example made into one, so that a frame (and the presenter
view) shows both, on one colour scale. Figures in, a figure out; no Dash."""

from __future__ import annotations

import re

from . import HALF_WIDTH, MODEBAR_PX, Display

NARROW_GAP_PX = 24  # between the two, one above the other, on a phone
TITLE_SCALE = 1.8  # a half's title band, in lines of the display's font
_AXIS_KEY = re.compile(r"^([xy])axis(\d*)$")
_AXIS_REF = re.compile(r"^([xy])(\d*)( domain)?$")
_SCENE_KEY = re.compile(r"^scene(\d*)$")
GL3D = {"mesh3d", "scatter3d", "surface"}  # trace types drawn in a 3-D scene (the cube's planes: mesh3d)


def axis_count(fig: dict) -> int:
    """How many x axes a figure has (xaxis, xaxis2, …): its y axes are numbered as its x axes, panel by panel."""
    return max([int(m.group(2) or 1) for key in fig["layout"] if (m := _AXIS_KEY.match(key)) and m.group(1) == "x"]
               or [1])


def scene_count(fig: dict) -> int:
    """How many 3-D scenes a figure has (scene, scene2, …): the cube has one."""
    return sum(1 for key in fig["layout"] if _SCENE_KEY.match(key))


def _scene(ref: str, offset: int) -> str:
    """A scene's name ('scene', 'scene2') moved `offset` scenes on."""
    number = int(ref[len("scene"):] or 1) + offset
    return f"scene{number if number > 1 else ''}"


def _rename(ref, offset: int):
    """An axis reference ('x', 'y3', 'x2 domain') moved `offset` axes on; anything else ('paper') as it is."""
    m = _AXIS_REF.match(ref) if isinstance(ref, str) else None
    if not m or offset == 0:
        return ref
    return f"{m.group(1)}{int(m.group(2) or 1) + offset}{m.group(3) or ''}"


def _span(a: float, b: float, x: float) -> float:
    return a + (b - a) * x


def _colour_bar(trace: dict, ys: tuple[float, float]) -> dict:
    """A trace's upright colour bar (the tokens' X), placed in paper fractions of its own figure, moved into ys."""
    bar = trace.get("colorbar")
    if not bar or bar.get("orientation") == "h" or bar.get("lenmode", "fraction") != "fraction":
        return trace
    placed = {"y": _span(*ys, bar.get("y", 0.5)), "len": bar.get("len", 1) * (ys[1] - ys[0])}
    return {**trace, "colorbar": {**bar, **placed}}


def _placed(fig: dict, offset: int, xs: tuple[float, float], ys: tuple[float, float],
            scenes: int = 0) -> tuple[list, dict, list, list]:
    """A figure's traces, axes (3-D scenes too), annotations and shapes, its axes renumbered `offset` on (its
    scenes `scenes` on) and its paper coordinates (0..1 both ways) mapped into xs × ys."""
    layout = fig["layout"]
    traces = [{**t, "scene": _scene(t.get("scene", "scene"), scenes)} if t.get("type") in GL3D else
              _colour_bar({**t, "xaxis": _rename(t.get("xaxis", "x"), offset),
                           "yaxis": _rename(t.get("yaxis", "y"), offset)}, ys)
              for t in fig["data"]]
    axes = {}
    for key, axis in layout.items():
        if _SCENE_KEY.match(key):
            domain = axis.get("domain", {})
            axes[_scene(key, scenes)] = {**axis, "domain": {
                name: [_span(*span, v) for v in domain.get(name, [0, 1])] for name, span in (("x", xs), ("y", ys))}}
        if not (m := _AXIS_KEY.match(key)):
            continue
        span = xs if m.group(1) == "x" else ys
        lo, hi = axis.get("domain", [0, 1])
        # an axis with no anchor is anchored to the other letter's first axis: which, once renumbered, is named
        axis = {"anchor": "y" if m.group(1) == "x" else "x", **axis, "domain": [_span(*span, lo), _span(*span, hi)]}
        for ref in ("anchor", "scaleanchor", "matches", "overlaying"):
            if ref in axis:
                axis[ref] = _rename(axis[ref], offset)
        number = int(m.group(2) or 1) + offset
        axes[f"{m.group(1)}axis{number if number > 1 else ''}"] = axis  # xaxis, xaxis2, …: Plotly's names

    def moved(item: dict) -> dict:
        item = {**item, "xref": _rename(item.get("xref", "paper"), offset),
                "yref": _rename(item.get("yref", "paper"), offset)}
        for name, span in (("x", xs), ("y", ys)):
            if item[name + "ref"] == "paper":
                for key in (name, name + "0", name + "1"):
                    if key in item:
                        item[key] = _span(*span, item[key])
        return item

    return traces, axes, [moved(a) for a in layout.get("annotations", [])], [moved(s) for s in layout.get("shapes", [])]


def _plot_px(fig: dict) -> float:
    layout = fig["layout"]
    return layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]


def side_by_side(left: dict, right: dict, titles: tuple[str, str], display: Display) -> dict:
    """`left` and `right` (figures of the same kind) in one figure: beside each other, each under its title, or on a
    phone one above the other. Both keep their panels' sizes in pixels (the shorter one sits at the top) and share
    one colour scale (their coloraxis, or each heatmap's own range): a colour means the same number on both sides.
    The left one's colour bar stays."""
    title_px = round(display.font_size * TITLE_SCALE)
    margins = [f["layout"]["margin"] for f in (left, right)]
    plots = [_plot_px(f) for f in (left, right)]
    if display.narrow:  # the right one under the left one's x axis, with its own title band and panel titles
        top, bottom = margins[0]["t"] + title_px, margins[1]["b"]
        plot_px = plots[0] + margins[0]["b"] + NARROW_GAP_PX + title_px + margins[1]["t"] + plots[1]
        places = [((0, 1), (1 - plots[0] / plot_px, 1)), ((0, 1), (0, plots[1] / plot_px))]
    else:
        top, bottom = max(m["t"] for m in margins) + title_px, max(m["b"] for m in margins)
        plot_px = max(plots)
        places = [((0, HALF_WIDTH), (1 - plots[0] / plot_px, 1)), ((1 - HALF_WIDTH, 1), (1 - plots[1] / plot_px, 1))]
    layout = {key: value for key, value in left["layout"].items()
              if not _AXIS_KEY.match(key) and not _SCENE_KEY.match(key)}
    layout.update(height=top + plot_px + bottom, margin={**left["layout"]["margin"], "t": top, "b": bottom})
    if "y" in layout.get("legend", {}):  # the left's legend (the tokens' clusters) with the left half, on a phone too
        layout["legend"] = {**layout["legend"], "y": _span(*places[0][1], layout["legend"]["y"])}
    data, annotations, shapes, half_titles = [], [], [], []
    offset = scenes = 0
    for fig, (xs, ys), title in zip((left, right), places, titles):
        traces, axes, notes, boxes = _placed(fig, offset, xs, ys, scenes)
        named = {t["name"] for t in data if t.get("name")}  # the left's legend entries (the clusters): not twice
        data += [{**t, "showlegend": False} if t.get("name") in named else t for t in traces]
        layout.update(axes)
        annotations += notes
        shapes += boxes
        # above the panel titles (on a phone, under the toolbar's band at the top: figures.MODEBAR_PX)
        shift = fig["layout"]["margin"]["t"] - (MODEBAR_PX if display.narrow else 0) + title_px * 0.15
        half_titles.append({"text": f"<b>{title}</b>", "xref": "paper", "yref": "paper", "x": sum(xs) / 2,
                            "y": ys[1], "yshift": shift,
                            "xanchor": "center", "yanchor": "bottom", "showarrow": False,
                            # on a phone as large as the panels' titles: the longer ones still fit 390 px
                            "font": {"size": display.font_size if display.narrow else round(display.font_size * 1.15)}})
        offset += axis_count(fig)
        scenes += scene_count(fig)
    scales = [f["layout"]["coloraxis"] for f in (left, right) if "coloraxis" in f["layout"]]
    if len(scales) == 2 and all("cmin" in s and "cmax" in s for s in scales):
        layout["coloraxis"] = {**scales[0], "cmin": min(s["cmin"] for s in scales),
                               "cmax": max(s["cmax"] for s in scales)}
    # traces with a scale of their own (the tokens' X, the cube's planes): all on the widest range, one colour bar
    for low, high in (("zmin", "zmax"), ("cmin", "cmax")):
        ranged = [t for t in data if low in t and high in t]
        if ranged:
            own, shown = {id(t) for t in ranged}, next((t for t in ranged if t.get("showscale", True)), None)
            span = {low: min(t[low] for t in ranged), high: max(t[high] for t in ranged)}
            data = [{**t, **span, "showscale": t is shown} if id(t) in own else t for t in data]
    # a legend entry both halves have is listed once (the right's are left out above) and acts on both
    names = [t.get("name") for t in data]
    shared = {name for name in names if name and names.count(name) > 1}
    data = [{**t, "legendgroup": t.get("legendgroup", t["name"])} if t.get("name") in shared else t for t in data]
    # the halves' titles after the panels' own: the screen-reader tables take the k-th heatmap's name from the k-th
    # annotation (assets/a11y.js)
    layout.update(annotations=annotations + half_titles, shapes=shapes)
    return {"data": data, "layout": layout}
