"""The influence view in the browser: a link with a selection, a click on an influence cell, the drill-down's path,
the heads, and a text alternative for every figure."""

from urllib.parse import parse_qs, urlparse

import pytest

from dashboard.attention import multi_head_attention, worked_example
from dashboard.explain import influence, query_ranking
from dashboard.explorer.influence import heads_view
from dashboard.explorer.influence_tables import disagreement_text
from dashboard.figures import DESKTOP
from dashboard.state import Setting
from tests.browser import scroll_through, wait_until
from tests.test_explain_browser import CELL_CENTRE

pytestmark = pytest.mark.browser

TEXT = "(id) => { const el = document.getElementById(id); return el && el.innerText; }"
TRACES = "(id) => document.querySelector(`#${id} .js-plotly-plot`)?._fullData?.length || 0"


def sentence(h, seed, head, query):
    ex = worked_example(seed)
    result = multi_head_attention(*ex[:5], h)
    return disagreement_text(query_ranking(result, influence(result, ex.W_O), head - 1, query))


def test_the_view_follows_the_selection_and_a_click_on_it(page):
    page.goto(page.base + "/?h=4&seed=2&head=3&query=7&key=3")
    scroll_through(page)
    page.locator("#influence").scroll_into_view_if_needed()
    wait_until(page, TEXT, "influence-text")
    assert page.inner_text("#influence-text") == sentence(4, 2, 3, 7)
    wait_until(page, TRACES, "influence")
    assert page.evaluate(TRACES, "influence") == 4 and page.evaluate(TRACES, "influence-layer") == 3
    # every figure has its text alternative: the numbers as tables, rebuilt from what Plotly drew (a11y.js)
    wait_until(page, "() => document.querySelectorAll('#influence .figure-text table').length === 4")
    assert page.locator("#influence-layer .figure-text table").count() == 3
    rows = page.locator("#influence-ranking table").first.locator("tbody tr")  # the ranking; the measures' agreement follows
    assert rows.count() == 12 and "selected" in (rows.nth(3).get_attribute("class") or "")
    # a click on head 2's panel, query 4, key 6, selects that cell everywhere
    point = page.evaluate(CELL_CENTRE, ["influence", 1, 4, 6])
    page.mouse.click(point["x"], point["y"])
    wait_until(page, "(t) => document.getElementById('influence-text').innerText === t", sentence(4, 2, 2, 4))
    wait_until(page, "() => new URLSearchParams(location.search).get('key') === '6'")  # after the outlines' draw
    query = parse_qs(urlparse(page.url).query)
    assert (query["head"], query["query"], query["key"]) == (["2"], ["4"], ["6"])  # the copy link carries it
    shapes = page.evaluate("() => document.querySelector('#influence .js-plotly-plot').layout.shapes")
    assert [(s["xref"], (s["x0"] + s["x1"]) / 2, (s["y0"] + s["y1"]) / 2) for s in shapes] == [("x2", 6, 4)]
    wait_until(page, "() => document.getElementById('drilldown').innerText.includes("
                     "'What key 6 adds to output 4 through head 2')")
    assert page.errors == []


def test_the_heads_and_the_keyboard(page):
    page.goto(page.base + "/?h=8&seed=0")
    scroll_through(page)
    page.locator("#influence-heads").scroll_into_view_if_needed()
    wait_until(page, TEXT, "influence-heads-text")
    # the page's sentence is the server's, from the core's numbers: at h = 8, seed 0, every head is within the
    # margin of the sharpest, and the sentence says so
    said = heads_view(Setting(8, 0), DESKTOP)[1]
    assert page.inner_text("#influence-heads-text") == said and said.startswith("No head is clearly the sharpest")
    assert page.locator("#influence-heads-table tbody tr").count() == 8
    wait_until(page, "() => document.querySelectorAll('#influence-heads .figure-text table').length === 2")
    page.locator("#influence").scroll_into_view_if_needed()
    wait_until(page, TEXT, "influence-text")
    page.focus("#sel-query")  # the drill-down's inputs choose the query the view ranks
    page.keyboard.press("Control+A")
    page.keyboard.type("9")
    page.locator("#influence").scroll_into_view_if_needed()  # the view redraws once it is near the screen again
    wait_until(page, "(t) => document.getElementById('influence-text').innerText === t", sentence(8, 0, 1, 9))
    assert page.errors == []
