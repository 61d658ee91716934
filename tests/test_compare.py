"""Issue 35, two settings side by side: a figure of the worked example for the page's setting and for another h or
other weights, made into one figure on one colour scale (figures/compare.py), held by the address (so a lecture
plan's view can show it), and presented whole like any figure."""

import numpy as np
import pytest
from dash import no_update
from dash.exceptions import PreventUpdate

from dashboard import lecture_plan as plans
from dashboard.attention import multi_head_attention, worked_example
from dashboard.explorer import URL_PARAMS, compare
from dashboard import figures
from dashboard.figures import DESKTOP
from dashboard.figures import compare as fig
from dashboard.state import Setting, model as core_model
from tests.browser import wait_until
from tests.dash_requests import model
from tests.test_browser import open_view
from tests.util import decode, fire

SEED_MODEL = {"size": 4, "scale": "seed", "tau": 0}


def shown(h=4, weights="random", figure="heatmaps", vs_h=1, vs_weights="random", narrow=False):
    return fire(compare.compare, shared=model(h, 0, narrow=narrow, **SEED_MODEL, weights=weights), figure=figure,
                h=vs_h, weights=vs_weights)


def panels(figure: dict) -> list[tuple[float, float]]:
    """Each heatmap's x domain, in the order of the traces."""
    return [tuple(figure["layout"]["xaxis" + t["xaxis"][1:]]["domain"]) for t in figure["data"]]


@pytest.mark.parametrize(("h", "weights", "vs_h", "vs_weights"), [(4, "random", 1, "random"),
                                                                   (1, "random", 8, "random"),
                                                                   (4, "random", 4, "trained")])
def test_both_halves_equal_the_core_on_one_colour_scale(h, weights, vs_h, vs_weights):
    out = shown(h, weights, "heatmaps", vs_h, vs_weights)
    pair, top = out["figure"], 0.0
    assert out["hidden"] is False and len(pair["data"]) == h + vs_h
    halves = (pair["data"][:h], pair["data"][h:])
    for traces, (k, w) in zip(halves, ((h, weights), (vs_h, vs_weights))):
        A = core_model(Setting(k, 0, weights=w)).result.A
        if w == "random":  # the seed's weights: the core's own function, as the seed computes them
            np.testing.assert_allclose(A, multi_head_attention(*worked_example(0)[:5], k).A, rtol=1e-12)
        for i, trace in enumerate(traces):
            np.testing.assert_allclose(decode(trace["z"]), A[i], rtol=1e-6)
        top = max(top, float(A.max()))
    scale = pair["layout"]["coloraxis"]
    assert scale["cmin"] == 0 and scale["cmax"] == pytest.approx(top)
    # the page's setting on the left half, the other on the right, each under its title
    domains = panels(pair)
    assert all(hi <= 0.5 for _lo, hi in domains[:h]) and all(lo >= 0.5 for lo, _hi in domains[h:])
    # each panel's title in the order of the heatmaps (the screen-reader tables name the k-th heatmap after the
    # k-th annotation: assets/a11y.js), then the halves' titles
    titles = [a["text"] for a in pair["layout"]["annotations"]]
    assert titles == [f"<b>head {i + 1}</b>" for i in range(h)] + [f"<b>head {i + 1}</b>" for i in range(vs_h)] + [
        f"<b>h = {h}, {compare.WEIGHT_NAMES[weights]}</b>", f"<b>h = {vs_h}, {compare.WEIGHT_NAMES[vs_weights]}</b>"]


@pytest.mark.parametrize("figure", list(compare.FIGURES))
def test_every_offered_figure_is_each_setting_s_own_figure_on_one_scale(figure):
    """Any figure of the worked example the panel offers: the left half is the page's own figure (h = 4, the seed's
    weights), the right the other setting's (h = 2, trained), each drawn for half the width, with every number of
    each, and one colour scale that spans both (signed maps centred on 0)."""
    from dashboard.explorer.controls import ModelView

    view = ModelView.parse(model(4, 0, **SEED_MODEL))
    half = view.display._replace(half=True)
    own = [compare.drawn(figure, s, half) for s in (view.setting, view.setting._replace(h=2, weights="trained"))]
    pair = shown(4, "random", figure, 2, "trained")["figure"]
    assert len(pair["data"]) == sum(len(f["data"]) for f in own)
    for made, alone in zip(pair["data"], own[0]["data"] + own[1]["data"]):
        for axis in ("x", "y", "z", "intensity"):  # a scatter's x and y, a heatmap's z, a cube plane's intensity
            if axis in alone and (axis in ("z", "intensity") or alone["type"] == "scatter"):
                np.testing.assert_array_equal(decode(made[axis]), decode(alone[axis]))
    if "coloraxis" in own[0]["layout"]:
        scales = [f["layout"]["coloraxis"] for f in own]
        scale = pair["layout"]["coloraxis"]
    else:  # traces with a range of their own (the tokens' X, the cube's planes): all on the widest, one colour bar
        low, high = ("cmin", "cmax") if figure == "cube" else ("zmin", "zmax")
        scales = [{"cmin": t[low], "cmax": t[high]} for f in own for t in f["data"] if low in t]
        ranged = [t for t in pair["data"] if low in t]
        assert len(ranged) == len(scales) and [t["showscale"] for t in ranged].count(True) == 1
        assert len({(t[low], t[high]) for t in ranged}) == 1
        scale = {"cmin": ranged[0][low], "cmax": ranged[0][high]}
    assert scale["cmin"] == min(s["cmin"] for s in scales) and scale["cmax"] == max(s["cmax"] for s in scales)
    if scales[0]["cmin"] < 0:
        assert scale["cmin"] == -scale["cmax"]
    refs = [t.get("scene") or (t["xaxis"], t["yaxis"]) for t in pair["data"]]
    split = len(own[0]["data"])
    assert not set(refs[:split]) & set(refs[split:])  # no half drawn on the other's axes


@pytest.mark.parametrize("narrow", [False, True])
def test_the_cube_beside_another_is_two_scenes_each_in_its_half_with_the_core_s_weights(narrow):
    pair = shown(4, "random", "cube", 2, "trained", narrow=narrow)["figure"]
    layout = pair["layout"]
    assert [t.get("scene") for t in pair["data"]] == ["scene"] * 4 + ["scene2"] * 2
    for t, (i, w) in zip(pair["data"], [(i, "random") for i in range(4)] + [(i, "trained") for i in range(2)]):
        A = core_model(Setting(4 if w == "random" else 2, 0, weights=w)).result.A
        np.testing.assert_allclose(decode(t["intensity"])[::4], A[i].ravel(), rtol=1e-6)
    first, second = layout["scene"]["domain"], layout["scene2"]["domain"]
    if narrow:  # one above the other, each across the page
        assert min(first["y"]) > max(second["y"]) and first["x"] == second["x"] == [0, 1]
    else:
        assert max(first["x"]) <= 0.5 <= min(second["x"]) and first["y"] == second["y"]
    assert layout["height"] > 0 and layout["scene2"]["camera"] == layout["scene"]["camera"]


def test_one_plane_is_named_head_1_alone_beside_the_page_s_cube_too():
    """At h = 1 plotly's autorange put the one plane mid-way up 0..2, ticked 'head 0' and 'head 2'."""
    pair = shown(4, "random", "cube", 1, "random")["figure"]["layout"]
    assert pair["scene2"]["zaxis"]["range"] == [0.5, 1.5] and "range" not in pair["scene"]["zaxis"]
    from dashboard.figures import example as cube
    assert cube.cube_scene_text(DESKTOP, 1)["zaxis"]["range"] == [0.5, 1.5]  # the page's cube (example.update_cube)
    assert "range" not in cube.cube_scene_text(DESKTOP, 2)["zaxis"]


@pytest.mark.parametrize("narrow", [False, True])
def test_the_tokens_legend_names_each_cluster_once_for_both_halves_and_stays_with_the_page_s(narrow):
    pair = shown(4, "random", "tokens", 4, "trained", narrow=narrow)["figure"]
    scatters = [t for t in pair["data"] if t["type"] == "scatter"]
    legend = [t["name"] for t in scatters if t.get("showlegend", True)]
    assert legend == ["cluster 1", "cluster 2", "cluster 3"], legend
    assert [t["legendgroup"] for t in scatters] == [t["name"] for t in scatters]  # a click hides a cluster in both
    # the legend and the colour bar of X with the page's half (on a phone, the upper one): not over the other's
    first = [pair["layout"]["yaxis" + t["yaxis"][1:]]["domain"] for t in pair["data"][:4]]
    second = [pair["layout"]["yaxis" + t["yaxis"][1:]]["domain"] for t in pair["data"][4:]]
    lowest = min(lo for lo, _hi in first)
    bar = next(t["colorbar"] for t in pair["data"] if t.get("showscale"))
    if narrow:
        gap = (lowest + max(hi for _lo, hi in second)) / 2  # between the halves
        assert gap < pair["layout"]["legend"]["y"] < 1 and lowest - 0.01 <= bar["y"] < bar["y"] + bar["len"] <= 1, \
            (pair["layout"]["legend"], bar, lowest)
    else:
        assert pair["layout"]["legend"]["y"] < lowest and bar["len"] <= 1


def test_each_half_keeps_its_own_axes():
    pair = shown(2, figure="blocks", vs_h=4)["figure"]
    refs = [(t["xaxis"], t["yaxis"]) for t in pair["data"]]
    assert len(set(refs)) == len(refs) == 6  # Q, K and V on each side, no panel drawn on another's axes
    for x, y in refs:
        xaxis, yaxis = pair["layout"]["xaxis" + x[1:]], pair["layout"]["yaxis" + y[1:]]
        assert xaxis["anchor"] == y and yaxis["anchor"] == x and yaxis["scaleanchor"] == x
    boxes = [s for s in pair["layout"]["shapes"]]  # the column blocks' outlines follow their panels
    assert {s["xref"] for s in boxes} == {x for x, _y in refs}


def test_an_axis_with_no_anchor_keeps_its_own_half():
    left = {"data": [{"type": "scatter", "x": [0], "y": [0]}],
            "layout": {"height": 300, "margin": {"t": 20, "b": 20}, "xaxis": {}, "yaxis": {}}}
    pair = fig.side_by_side(left, left, ("a", "b"), DESKTOP)
    assert pair["layout"]["yaxis2"]["anchor"] == "x2" and pair["layout"]["xaxis2"]["anchor"] == "y2"


def test_on_a_phone_the_other_setting_is_under_the_page_s():
    pair = shown(2, vs_h=8, narrow=True)["figure"]
    first, second = ([pair["layout"]["yaxis" + t["yaxis"][1:]]["domain"] for t in half]
                     for half in (pair["data"][:2], pair["data"][2:]))
    assert min(lo for lo, _hi in first) > max(hi for _lo, hi in second)
    for half in (pair["data"][:2], pair["data"][2:]):  # each across the page's width
        domains = [pair["layout"]["xaxis" + t["xaxis"][1:]]["domain"] for t in half]
        assert min(lo for lo, _hi in domains) < 0.1 and max(hi for _lo, hi in domains) > 0.9
    assert pair["layout"]["height"] > shown(2, vs_h=8)["figure"]["layout"]["height"]


@pytest.mark.parametrize("lecture", [False, True])
def test_a_half_s_panels_are_laid_out_for_half_the_width(lecture):
    """No empty band under each row: a row is no taller than its square panels are wide where the layout plans for
    (the presenter view, lecture mode: half of LECTURE_PLOT_PX; a laptop: DESKTOP_PLOT_PX a half)."""
    pair = fire(compare.compare, shared={**model(4, 0, **SEED_MODEL), "display": {"narrow": False, "lecture": lecture}},
                figure="heatmaps", h=8, weights="random")["figure"]
    layout = pair["layout"]
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    planned = figures.LECTURE_PLOT_PX if lecture else figures.DESKTOP_PLOT_PX / figures.HALF_WIDTH
    for trace in pair["data"]:
        (x0, x1), (y0, y1) = (layout[a + "axis" + trace[a + "axis"][1:]]["domain"] for a in ("x", "y"))
        assert (y1 - y0) * plot_px <= (x1 - x0) * planned * 1.01 + 1, trace["xaxis"]


def test_no_figure_chosen_draws_nothing_and_bad_values_change_nothing():
    assert shown(figure=compare.NONE)["hidden"] is True
    for bad in [dict(figure="none"), dict(figure="cubes"), dict(figure=None), dict(vs_h=3), dict(vs_h="1"),
                dict(vs_weights="seed"), dict(vs_weights=["random"]), dict(figure="x" * 10_000)]:
        with pytest.raises(PreventUpdate):
            shown(**bad)


def test_a_lecture_plan_s_view_holds_a_comparison():
    view = plans.read_view("?tab=example&h=4&vs=heatmaps&vs_h=1&vs_weights=trained", URL_PARAMS, 0)
    assert view == {"tab": "example", "h": 4, "vs": "heatmaps", "vs_h": 1, "vs_weights": "trained"}
    with pytest.raises(plans.PlanError, match="vs_h"):
        plans.read_view("?tab=example&vs=heatmaps&vs_h=3", URL_PARAMS, 0)


@pytest.mark.browser
def test_a_link_opens_the_comparison_and_the_presenter_view_shows_it(page):
    open_view(page, "?tab=example&h=4&weights=trained&vs=heatmaps&vs_h=1")
    heads = "() => document.querySelector('#compare .js-plotly-plot')?._fullData?.length"
    assert wait_until(page, heads, look_at="compare") == 5
    text = page.evaluate("() => [...document.querySelectorAll('#compare .annotation-text')].map(a => a.textContent)")
    assert "h = 4, trained weights" in text and "h = 1, the seed's weights" in text
    # the right side's h, clicked: the address follows, and the figure shows 4 + 2 heads
    page.locator("#compare-h label", has_text="2").click()
    wait_until(page, "() => new URLSearchParams(location.search).get('vs_h') === '2'")
    wait_until(page, f"() => ({heads})() === 6", look_at="compare")
    page.locator(".figure-frame:has(#compare) .present-button").click()
    wait_until(page, "() => new URLSearchParams(location.search).get('present') === 'compare'")
    # presented as wide as the screen at its own height (explorer.js keeps-height): stretched to the screen's, the
    # rows of a half with more heads spread apart
    wait_until(page, "() => { const g = document.querySelector('.presented #compare .js-plotly-plot');"
                     " return g && g.layout.width > 0.95 * innerWidth && g.getBoundingClientRect().bottom <= innerHeight"
                     " && g.layout.height === Number(g.dataset.figureHeight) && g.layout.height < 0.8 * innerHeight; }")
    page.keyboard.press("Escape")
    wait_until(page, "() => !document.documentElement.classList.contains('presenting')")
    # no figure chosen hides the pair, and the address leaves the comparison out
    page.locator("#compare-figure label", has_text="none").click()
    wait_until(page, "() => document.getElementById('compare-pair').hidden && !location.search.includes('vs')")
    assert page.errors == []


def test_a_change_of_the_model_with_no_figure_compared_changes_nothing():
    """The comparison follows the model a round trip later (ids.MODEL_LATER): with none chosen, no update at all."""
    out = fire(compare.compare, changed=["example-model-later.data"], shared=model(8, 0, **SEED_MODEL),
               figure=compare.NONE, h=1, weights="random")
    assert out["figure"] is no_update and out["hidden"] is no_update


@pytest.mark.browser
def test_the_cube_beside_another_draws_two_scenes_and_dark_mode_turns_its_canvas_as_the_page_s_cube(browser, app_url):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(app_url + "/?tab=example&h=4&vs=cube&vs_h=1")
        scenes = "() => Object.keys(document.querySelector('#compare .js-plotly-plot')?._fullLayout || {})" \
                 ".filter(k => /^scene\\d*$/.test(k)).length"
        assert wait_until(page, scenes, look_at="compare") == 2
        canvas = "() => getComputedStyle(document.querySelector('#compare .gl-container canvas')).filter"
        assert "invert" in wait_until(page, canvas)
    finally:
        context.close()
