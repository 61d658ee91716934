"""Predict first (issue 35): C, R and M hide the selected weight, its row or its head's map on the worked example's
heatmaps, the same key shows it again; the cover follows the selected cell, the covered panel says nothing on
hover, and the summary and drill-down beside them are blurred. Each cover is placed from the selected cell."""

import pytest

from dashboard import figures, limits
from dashboard.explorer import example, predict, presenter
from dashboard.explorer.controls import CELL
from tests.browser import wait_until
from tests.dash_requests import cell, model
from tests.test_browser import open_view
from tests.test_class_mode import iter_components
from tests.util import fire, patch_assignments

PRESSED = {part: f"{button}.n_clicks" for button, part in predict.KEYS.items()}
KEY = {part: keys[0] for button, keys, _what in presenter.SHORTCUTS for b, part in predict.KEYS.items() if b == button}


@pytest.mark.parametrize("before, pressed, after", [
    (None, "row", "row"), ("row", "row", None), ("row", "cell", "cell"), ("map", "map", None),
    ("cell", "map", "map"), ("forged", "row", "row"), ({"x": 1}, "cell", "cell"),
])
def test_a_key_hides_its_part_and_the_same_key_shows_it(before, pressed, after):
    assert fire(predict.hide, [PRESSED[pressed]], presses=[1, 1, 1], hidden=before) == after


def test_each_part_has_its_key_in_the_list_of_shortcuts():
    assert KEY == {"cell": "c", "row": "r", "map": "m"}
    assert all(button in presenter.client_config()["keys"].values() for button in predict.KEYS)


def covers(shapes: list[dict]) -> list[dict]:
    return [s for s in shapes if s.get("name") == "hidden"]


@pytest.mark.parametrize("h, selected", [(4, (2, 5, 7)), (8, (8, 11, 0)), (1, (1, 0, 3))])
@pytest.mark.parametrize("part", predict.PARTS)
def test_the_cover_sits_over_the_selected_cell_row_or_map_and_its_panel_has_no_hover(h, selected, part):
    fig = fire(example.update_heatmaps, shared=model(h, 0), cell=cell(*selected), hidden=part)
    (i, r, j), _ = limits.cell(*selected, h, 12)
    [cover] = covers(fig["layout"]["shapes"])
    suffix = figures.axis_suffix(i)
    assert (cover["xref"], cover["yref"], cover["label"]["text"]) == ("x" + suffix, "y" + suffix, "?")
    x = (j - 0.5, j + 0.5) if part == "cell" else (-0.5, 11.5)
    y = (-0.5, 11.5) if part == "map" else (r - 0.5, r + 0.5)
    assert (cover["x0"], cover["x1"], cover["y0"], cover["y1"]) == (*x, *y)
    assert [t["hoverinfo"] for t in fig["data"][:h]] == ["skip" if k == i else "all" for k in range(h)]
    assert fig["layout"]["shapes"][-1]["name"] == "selection"  # the outline stays, over the cover


@pytest.mark.parametrize("hidden", [None, "", "rows", {"part": "row"}, ["row"]])
def test_nothing_hidden_or_a_forged_part_covers_nothing(hidden):
    fig = fire(example.update_heatmaps, shared=model(4, 0), cell=cell(2, 5, 7), hidden=hidden)
    assert covers(fig["layout"]["shapes"]) == [] and all(t["hoverinfo"] == "all" for t in fig["data"][:4])


def test_a_key_or_a_click_patches_the_cover_and_hover_and_redraws_nothing():
    shown = fire(example.update_heatmaps, ["predict.data"], shared=model(4, 0), cell=cell(2, 5, 7), hidden="row")
    ops = patch_assignments(shown)
    assert set(ops) == {("layout", "shapes"), *((("data", k, "hoverinfo") for k in range(4)))}
    assert [s["y0"] for s in covers(ops[("layout", "shapes")])] == [4.5] and ops[("data", 1, "hoverinfo")] == "skip"
    moved = patch_assignments(fire(example.update_heatmaps, [CELL], shared=model(4, 0), cell=cell(3, 6, 7),
                                   hidden="row"))
    assert covers(moved[("layout", "shapes")])[0]["xref"] == "x3" and moved[("data", 2, "hoverinfo")] == "skip"
    revealed = patch_assignments(fire(example.update_heatmaps, ["predict.data"], shared=model(4, 0),
                                      cell=cell(3, 6, 7), hidden=None))
    assert covers(revealed[("layout", "shapes")]) == []
    assert all(revealed[("data", k, "hoverinfo")] == "all" for k in range(4))
    clicked = patch_assignments(fire(example.update_heatmaps, [CELL], shared=model(4, 0), cell=cell(1, 0, 1)))
    assert set(clicked) == {("layout", "shapes")}  # nothing hidden: a click patches the outline alone


def test_what_gives_the_weights_away_is_blurred_while_something_is_hidden():
    assert [fire(predict.blur, hidden=v) for v in ("row", "map", None, "forged")] == \
        [["predict-hidden"] * 2] * 2 + [[""] * 2] * 2
    sections = {c.id: c for c in iter_components(example.layout()) if getattr(c, "id", None) in predict.HIDES}
    held = {k: {c.id for c in iter_components(sections[k]) if isinstance(getattr(c, "id", None), str)}
            for k in predict.HIDES}
    assert {"bilinear-logits"} <= held["predict-hides-above"]  # a row's largest logit is its largest weight
    assert {"head-summary", "drilldown", "influence"} <= held["predict-hides"]


@pytest.mark.browser
def test_r_hides_the_row_on_the_page_and_r_again_shows_it(page):
    open_view(page, "?h=4&head=2&query=5&key=7")
    page.locator("#heads label", has_text="4").click()  # a header control keeps the focus: the key still works
    covered = """() => { const gd = document.querySelector('#heatmaps .js-plotly-plot');
      const s = (gd.layout.shapes || []).filter(s => s.name === 'hidden');
      return s.length === 1 && s[0].xref === 'x2' && s[0].y0 === 4.5 && s[0].y1 === 5.5
        && document.querySelectorAll('#heatmaps .shapelayer path').length >= 2
        && document.getElementById('predict-hides').className === 'predict-hidden'
        && getComputedStyle(document.getElementById('predict-hides-above')).filter.includes('blur'); }"""
    page.keyboard.press("r")
    wait_until(page, covered)
    page.keyboard.press("r")
    wait_until(page, """() => { const gd = document.querySelector('#heatmaps .js-plotly-plot');
      return !(gd.layout.shapes || []).some(s => s.name === 'hidden')
        && document.getElementById('predict-hides').className === ''; }""")
    assert page.errors == []
