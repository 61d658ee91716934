"""Issue 35, two settings side by side: the worked example's figure for the page's setting and for another h or
other weights, on one colour scale, held by the address (so a lecture plan's step can show it), and in the
presenter view both together."""

import numpy as np
import pytest
from dash.exceptions import PreventUpdate

from dashboard import lecture_plan as plans
from dashboard.attention import multi_head_attention
from dashboard.explorer import URL_PARAMS, compare
from dashboard.state import Setting, model as core_model
from tests.browser import wait_until
from tests.dash_requests import model
from tests.test_browser import open_view
from tests.util import decode, fire

SEED_MODEL = {"size": 4, "scale": "seed", "tau": 0}


def shown(h=4, weights="random", figure="heatmaps", vs_h=1, vs_weights="random"):
    """The frame's children and whether it is hidden; with a figure, the two sides' titles and figures too."""
    out = fire(compare.compare, shared={**model(h, 0, **SEED_MODEL, weights=weights), "display": False},
               figure=figure, h=vs_h, weights=vs_weights)
    if out["sides"]:
        (left_title, out["left"]), (right_title, out["right"]) = [
            (side.children[0].children, side.children[1].figure) for side in out["sides"]]
        out.update(left_title=left_title, right_title=right_title)
    return out


@pytest.mark.parametrize(("h", "weights", "vs_h", "vs_weights"), [(4, "random", 1, "random"),
                                                                   (1, "random", 8, "random"),
                                                                   (4, "random", 4, "trained")])
def test_both_sides_equal_the_core_on_one_colour_scale(h, weights, vs_h, vs_weights):
    out = shown(h, weights, "heatmaps", vs_h, vs_weights)
    sides = []
    for side, (k, w) in zip((out["left"], out["right"]), ((h, weights), (vs_h, vs_weights))):
        A = core_model(Setting(k, 0, weights=w))[1].A
        if w == "random":  # the seed's weights: the core's own function, as the seed computes them
            from dashboard.attention import worked_example
            np.testing.assert_allclose(A, multi_head_attention(*worked_example(0)[:5], k).A, rtol=1e-12)
        assert len([t for t in side["data"] if t["type"] == "heatmap"]) == k
        for i in range(k):
            np.testing.assert_allclose(decode(side["data"][i]["z"]), A[i], rtol=1e-6)
        sides.append(A)
    top = max(float(A.max()) for A in sides)
    for side in (out["left"], out["right"]):
        assert side["layout"]["coloraxis"]["cmin"] == 0 and side["layout"]["coloraxis"]["cmax"] == pytest.approx(top)
    assert out["left_title"] == f"h = {h}, {compare.WEIGHT_NAMES[weights]}" and out["hidden"] is False
    assert out["right_title"] == f"h = {vs_h}, {compare.WEIGHT_NAMES[vs_weights]}"


def test_no_figure_chosen_draws_nothing_and_bad_values_change_nothing():
    assert shown(figure="none")["hidden"] is True and shown(figure="none")["sides"] == []
    for bad in [dict(figure=""), dict(figure="cube"), dict(figure=None), dict(vs_h=3), dict(vs_h="1"),
                dict(vs_weights="seed"), dict(vs_weights=["random"]), dict(figure="x" * 10_000)]:
        with pytest.raises(PreventUpdate):
            shown(**bad)
    blocks = shown(figure="blocks", vs_h=2)
    assert blocks["left"]["layout"]["coloraxis"]["cmax"] == blocks["right"]["layout"]["coloraxis"]["cmax"]
    tokens = shown(figure="tokens")
    assert tokens["left"]["data"] and tokens["right"]["data"]


def test_a_lecture_plan_step_holds_a_comparison():
    view = plans.read_view("?tab=example&h=4&vs=heatmaps&vs_h=1&vs_weights=trained", URL_PARAMS, 0)
    assert view == {"tab": "example", "h": 4, "vs": "heatmaps", "vs_h": 1, "vs_weights": "trained"}
    with pytest.raises(plans.PlanError, match="vs_h"):
        plans.read_view("?tab=example&vs=heatmaps&vs_h=3", URL_PARAMS, 0)


@pytest.mark.browser
def test_a_link_opens_the_comparison_and_the_presenter_view_shows_both(page):
    open_view(page, "?tab=example&h=4&weights=trained&vs=heatmaps&vs_h=1")
    page.locator("#compare-pair").scroll_into_view_if_needed()
    wait_until(page, "() => [...document.querySelectorAll('#compare-pair .js-plotly-plot')].filter(g =>"
                     " g.querySelector('.heatmaplayer image')).length === 2")
    assert page.inner_text("#compare-left-title") == "h = 4, trained weights"
    assert page.inner_text("#compare-right-title") == "h = 1, the seed's weights"
    # the right side's h, clicked: the address follows, and the right figure shows two heads
    page.locator("#compare-h label", has_text="2").click()
    wait_until(page, "() => new URLSearchParams(location.search).get('vs_h') === '2'")
    wait_until(page, "() => document.getElementById('compare-right-title').innerText === 'h = 2, the seed\\'s weights'")
    page.set_viewport_size({"width": 1600, "height": 1200})  # taller than lecture mode's figures (760 px)
    page.locator("#compare-pair .present-button").click()
    wait_until(page, "() => document.documentElement.classList.contains('presenting')")
    # side by side, inside the screen, and both fitted to it (explorer.js fits every graph of the presented frame,
    # not only the first)
    boxes = ("() => [...document.querySelectorAll('.presented .js-plotly-plot')].map(g => { const r ="
             " g.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,"
             " height: r.height}; })")
    try:
        wait_until(page, f"""([w, h]) => {{ const b = ({boxes})(); return b.length === 2 && b[0].right <= b[1].left + 1
          && b.every(r => r.left >= 0 && r.right <= w && r.top >= 0 && r.bottom <= h + 1 && r.height > 0.8 * h); }}""",
                   [1600, 1200])
    except TimeoutError:
        raise AssertionError(page.evaluate(boxes)) from None
    page.keyboard.press("Escape")
    wait_until(page, "() => !document.documentElement.classList.contains('presenting')")
    # choosing no figure hides the pair, and the address says so
    page.select_option("#compare-figure", "none")
    wait_until(page, "() => document.getElementById('compare-pair').hidden"
                     " && new URLSearchParams(location.search).get('vs') === 'none'")
    assert page.errors == []
