"""A change of h draws each figure once, counted from Plotly's 'plotly_afterplot' events; no timer.

The change is over when no callback is in flight, the worked example's figures show the new h,
and every graph whose box changed size has had the resize dcc.Graph then asks of Plotly (the resize
that used to draw the heatmaps a second time). bench/bench_interactions.py records all of it.
"""

import time

import pytest

from tests.recorder import RECORDER, STATE, Callbacks, choose, settle
from dashboard.limits import TABS
from tests.browser import wait_until
from tests.test_a11y import wait_drawn

pytestmark = pytest.mark.browser

# the worked example's figures that depend on h (the tokens do not)
AFFECTED = ("blocks", "forward", "bilinear-forms", "bilinear-logits", "heatmaps", "cube", "influence",
            "influence-layer", "influence-heads")
# Each affected graph shows h heads: Q/K/V with h column blocks each, h heatmaps, h planes.
SHOWS = """h => {
  const gd = id => document.querySelector(`#${id} .js-plotly-plot`);
  const traces = (id, type) => gd(id)._fullData.filter(t => t.type === type).length;
  return (gd('blocks')._fullLayout.shapes || []).length === 3 * h && traces('heatmaps', 'heatmap') === h
    && traces('cube', 'mesh3d') === h;
}"""

# How many traces a graph has drawn (an empty plot has none).
DRAWN_TRACES = "id => document.querySelector(`#${id} .js-plotly-plot`)?._fullData?.length || 0"


def change_heads(page, callbacks, h: int) -> tuple[dict, dict]:
    """Choose h in the header; return {graph: figures handed to Plotly} and {graph: draws} once the change is
    over."""
    choose("heads", str(h))(page, lambda: page.evaluate("window.drawRecorder.arm()"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # each poll waits two frames in the page: no busy loop, no sleep
        state = page.evaluate(STATE)
        if (state["start"] is not None and not callbacks.in_flight and state["calm"] and not state["pending"]
                and all(state["draws"].get(g) for g in AFFECTED) and page.evaluate(SHOWS, h)):
            return ({graph: len(times) for graph, times in state["reacts"].items()},
                    {graph: len(times) for graph, times in state["draws"].items()})
    raise AssertionError(f"h = {h} was not drawn in 30 s")


# A screen as tall as the worked example: every figure is near it, so every one the change affects draws.
EVERY_FIGURE_ON_SCREEN = {"width": 1280, "height": 12000}


def test_a_change_of_heads_draws_each_figure_once_and_hidden_tabs_do_no_work(browser, app_url):
    """Each change of h draws every figure it affects once and asks nothing for hidden tabs (each tab reads the
    shared controls through its own store: explorer/controls.py). A tab's view renders only while it is shown
    (explorer/__init__.py): a first visit asks for its figures once and draws each once; a return asks nothing and
    draws each figure once more, from what Dash holds. (One page for both: it loads every figure.)"""
    context = browser.new_context(viewport=EVERY_FIGURE_ON_SCREEN)
    page = context.new_page()
    callbacks = Callbacks(page)
    asked = []  # the outputs of each callback request since the last clear
    page.on("request", lambda r: asked.append(r.post_data_json["output"])
            if "_dash-update-component" in r.url else None)
    page.goto(app_url + "/?h=1")
    page.wait_for_selector("#cube .js-plotly-plot", state="attached")
    page.evaluate(RECORDER)
    change_heads(page, callbacks, 4)  # first, let the page load settle: its draws are not counted
    # 4 -> 8 adds a row of heatmaps (a taller box), 8 -> 2 removes it, 2 -> 1 keeps the box
    for h in (8, 2, 1):
        asked.clear()
        figures, draws = change_heads(page, callbacks, h)
        # one new figure for each, the tokens' too (the tab's store holds h, so their callback answers again; a
        # cached figure, a few ms). A figure whose height changed with h draws once more as dcc.Graph fits it to
        # its new box: a relayout only, which the page no longer prevents by replacing Plotly.Plots.resize.
        assert figures == dict.fromkeys(AFFECTED + ("tokens",), 1), f"h = {h}: {figures}"
        assert set(draws) == set(figures) and all(1 <= n <= 2 for n in draws.values()), f"h = {h}: {draws}"
        assert asked and not [o for o in asked if "mixing" in o or "eq-" in o or "learn" in o or "clinic" in o], asked

    def visit(tab: str, label: str) -> tuple[list, dict]:
        asked.clear()
        choose("tab", label)(page, lambda: page.evaluate("window.drawRecorder.arm()"))
        state = settle(page, callbacks, need_start=True, quiet=0.5)
        return list(asked), {graph: len(times) for graph, times in state["reacts"].items()}

    graphs_in = "tab => document.querySelectorAll(`#section-${tab} .js-plotly-plot`).length"
    assert [page.evaluate(graphs_in, tab) for tab in TABS if tab != "example"] == [0] * 4  # not shown: not rendered
    mixing = {"mixing-single": 1, "mixing-multi": 1, "mixing-features": 1}
    requests, draws = visit("mixing", TABS["mixing"])
    assert len(requests) == 1 and draws == mixing, (requests, draws)
    assert page.evaluate(graphs_in, "example") == 0
    requests, draws = visit("example", TABS["example"])
    assert requests == [] and draws == dict.fromkeys(AFFECTED + ("tokens",), 1), draws  # figures, drawn once each
    assert visit("mixing", TABS["mixing"]) == ([], mixing)
    context.close()


def test_a_link_scrolled_to_the_heatmaps_draws_them_with_the_selection(page):
    """A link with a cell, scrolled straight to the heatmaps, draws them with the linked cell outlined."""
    page.goto(page.base + "/?h=4&head=2&query=3&key=5")
    page.wait_for_selector("#heatmaps .js-plotly-plot", state="attached")
    page.evaluate("document.getElementById('heatmaps').scrollIntoView({block: 'start'})")
    wait_until(page, "() => document.querySelector('#heatmaps .js-plotly-plot')?._fullData?.length === 4")
    shapes = page.evaluate("() => document.querySelector('#heatmaps .js-plotly-plot').layout.shapes")
    assert [(s["xref"], (s["x0"] + s["x1"]) / 2, (s["y0"] + s["y1"]) / 2) for s in shapes] == [("x2", 5, 3)]


# In the page: when the URL changes (dcc.Location pushes each new one).
PUSHED = """window.pushed = [];
const pushOf = history.pushState;
history.pushState = function () {
  window.pushed.push(location.search);
  return pushOf.apply(this, arguments);
};"""


def test_a_change_of_heads_writes_the_url_once_and_back_goes_back(browser, app_url):
    """The URL follows a change at once (explorer.syncUrl), one history entry a change, and back opens the view
    before it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(PUSHED)
    page = context.new_page()
    callbacks = Callbacks(page)
    page.goto(app_url + "/?h=2")
    wait_drawn(page, "example")
    page.evaluate(RECORDER)
    settle(page, callbacks)
    page.evaluate("() => { window.pushed = []; }")
    choose("heads", "4")(page, lambda: None)
    wait_until(page, "() => window.pushed.length === 1 && location.search.includes('h=4')")
    settle(page, callbacks)
    assert len(page.evaluate("window.pushed")) == 1
    page.go_back()
    wait_until(page, "() => document.querySelector('#heads input:checked')?.value === '2'")
    wait_until(page, "() => document.querySelector('#heatmaps .js-plotly-plot')?._fullData?.length === 2")
    context.close()


def test_a_load_sends_no_request_the_server_must_refuse(browser, app_url):
    """Each request of a load, and of a first visit to each tab, gets an answer with something to draw: no 204
    (PreventUpdate) round trips for nothing. The model bar's sentence comes with the layout (the default setting's,
    model_bar.py), so a load of the default setting asks nothing for it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    answers = []  # each callback request's outputs and status
    page.on("response", lambda r: answers.append((r.request.post_data_json["output"], r.status))
            if "_dash-update-component" in r.url else None)
    page.goto(app_url + "/?h=4")
    wait_drawn(page, "example")
    assert "Scale 0.707 × q·k" in page.inner_text("#scale-text") and page.locator("#scale-text").is_visible()
    for tab, label in TABS.items():
        if tab != "example":
            choose("tab", label)(page, lambda: None)
            wait_drawn(page, tab)
    assert len(answers) > 10 and [a for a in answers if a[1] != 200] == [], "\n".join(map(str, answers))
    assert [a for a in answers if "scale-text" in a[0]] == []
    context.close()
