"""A change of h draws each figure once, counted from Plotly's 'plotly_afterplot' events; no timer.

The change is over when no callback is in flight, the worked example's figures show the new h,
and every graph whose box changed size has had the resize dcc.Graph then asks of Plotly (the resize
that used to draw the heatmaps a second time). bench/bench_interactions.py records all of it.
"""

import time

import pytest

from tests.recorder import RECORDER, STATE, Callbacks, choose, settle
from dashboard.explorer.gate import GATES
from dashboard.limits import TABS
from tests.browser import NEVER_IDLE, wait_until
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


def change_heads(page, callbacks, h: int) -> dict:
    """Choose h in the header; return {graph: draws} once the change is over."""
    choose("heads", str(h))(page, lambda: page.evaluate("window.drawRecorder.arm()"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # each poll waits two frames in the page: no busy loop, no sleep
        state = page.evaluate(STATE)
        if (state["start"] is not None and not callbacks.in_flight and state["calm"] and not state["pending"]
                and all(state["draws"].get(g) for g in AFFECTED) and page.evaluate(SHOWS, h)):
            return {graph: len(times) for graph, times in state["draws"].items()}
    raise AssertionError(f"h = {h} was not drawn in 30 s")


# A screen as tall as the worked example: every figure is near it, so every one the change affects draws.
EVERY_FIGURE_ON_SCREEN = {"width": 1280, "height": 12000}


def test_a_change_of_heads_draws_each_figure_once_and_hidden_tabs_do_no_work(browser, app_url):
    """Each change of h draws every figure it affects once. The gates (dashboard/explorer/gate.py): a change
    of h asks for the shown tab's figures only; a tab is mounted the first time it is shown, and that visit
    draws each of its figures once; a return to an unchanged tab asks and draws nothing. (One page for both: it
    loads every figure.)"""
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
        draws = change_heads(page, callbacks, h)
        assert draws == dict.fromkeys(AFFECTED, 1), f"h = {h}: {draws}"
        assert asked and not [o for o in asked if "mixing" in o or "eq-" in o or "learn" in o], asked

    def visit(tab: str, label: str) -> tuple[list, dict]:
        asked.clear()
        choose("tab", label)(page, lambda: page.evaluate("window.drawRecorder.arm()"))
        state = settle(page, callbacks, need_start=True, quiet=0.5)
        return list(asked), {graph: len(times) for graph, times in state["draws"].items()}

    graphs_in = "tab => document.querySelectorAll(`#section-${tab} .js-plotly-plot`).length"
    assert [page.evaluate(graphs_in, tab) for tab in TABS if tab != "example"] == [0] * 4  # never shown: not mounted
    requests, draws = visit("mixing", TABS["mixing"])
    assert len(requests) == 1 and draws == {"mixing-single": 1, "mixing-multi": 1, "mixing-features": 1}
    assert visit("example", TABS["example"]) == ([], {})
    assert page.evaluate(graphs_in, "mixing") == 3  # hidden again, still mounted: its figures persist
    assert visit("mixing", TABS["mixing"]) == ([], {})
    context.close()


def test_a_figure_far_below_the_screen_draws_when_the_student_scrolls_to_it(browser, app_url):
    """A cold load asks for the figures near the screen only; the cube, far below, draws as it comes near."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    callbacks = Callbacks(page)
    asked = []
    page.on("request", lambda r: asked.append(r.post_data_json["output"])
            if "_dash-update-component" in r.url else None)
    page.goto(app_url + "/?h=4")
    page.wait_for_selector("#cube .js-plotly-plot", state="attached")
    page.evaluate(RECORDER)
    settle(page, callbacks, ready=lambda s: page.evaluate(DRAWN_TRACES, "tokens") > 0)
    assert page.evaluate(DRAWN_TRACES, "cube") == 0 and not [o for o in asked if "cube" in o], asked
    page.locator("#cube").scroll_into_view_if_needed()
    settle(page, callbacks, ready=lambda s: page.evaluate(DRAWN_TRACES, "cube") > 0)
    assert len([o for o in asked if o == "cube.figure"]) == 1
    context.close()


def test_a_link_scrolled_to_the_heatmaps_draws_them_with_the_selection(page):
    """The cell's gate waits for either grid a click can come from (the forms, or the heatmaps): a link
    scrolled straight to the heatmaps draws them, with the linked cell outlined."""
    page.goto(page.base + "/?h=4&head=2&query=3&key=5")
    page.wait_for_selector("#heatmaps .js-plotly-plot", state="attached")
    page.evaluate("document.getElementById('heatmaps').scrollIntoView({block: 'start'})")
    wait_until(page, "() => document.querySelector('#heatmaps .js-plotly-plot')?._fullData?.length === 4")
    shapes = page.evaluate("() => document.querySelector('#heatmaps .js-plotly-plot').layout.shapes")
    assert [(s["xref"], (s["x0"] + s["x1"]) / 2, (s["y0"] + s["y1"]) / 2) for s in shapes] == [("x2", 5, 3)]


def test_a_figure_far_from_the_screen_redraws_once_when_the_student_comes_back_to_it(browser, app_url):
    """A change of h at the top of the page leaves the cube, far below, as it was; scrolled to, it redraws once."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    callbacks = Callbacks(page)
    page.goto(app_url + "/?h=2")
    page.wait_for_selector("#cube .js-plotly-plot", state="attached")
    page.evaluate(RECORDER)
    page.locator("#cube").scroll_into_view_if_needed()
    settle(page, callbacks, ready=lambda s: page.evaluate(DRAWN_TRACES, "cube") == 2)  # a plane a head
    page.evaluate("window.scrollTo(0, 0)")
    change_heads_at_top = choose("heads", "8")
    change_heads_at_top(page, lambda: page.evaluate("window.drawRecorder.arm()"))
    state = settle(page, callbacks, need_start=True, ready=lambda s: s["draws"].get("blocks"))
    assert "cube" not in state["draws"] and page.evaluate(DRAWN_TRACES, "cube") == 2
    page.evaluate("() => { window.cubeDraws = 0; "
                  "document.querySelector('#cube .js-plotly-plot').on('plotly_afterplot', () => window.cubeDraws++); }")
    page.locator("#cube").scroll_into_view_if_needed()
    settle(page, callbacks, ready=lambda s: page.evaluate(DRAWN_TRACES, "cube") == 8)
    assert page.evaluate("window.cubeDraws") == 1
    context.close()


# In the page, from its start: the outputs of each callback request, with when it was sent (performance.now()).
ASKED = """window.asked = [];
const fetchOf = window.fetch;
window.fetch = function (url, options) {
  if (String(url).includes('_dash-update-component')) {
    window.asked.push([JSON.parse(options.body).output, performance.now()]);
  }
  return fetchOf.apply(this, arguments);
};"""


# In the page: when the URL changes (dcc.Location pushes each new one).
PUSHED = """window.pushed = [];
const pushOf = history.pushState;
history.pushState = function () {
  window.pushed.push(performance.now());
  return pushOf.apply(this, arguments);
};"""


def test_the_figure_looked_at_is_asked_for_first_and_the_rest_once_it_has_drawn(browser, app_url):
    """Scrolled to the heatmaps on a tall screen, with figures above and below near too: a change of h asks for
    the heatmaps first (and the sentence above them, in the same answer). Each other near figure, the text beside
    them (the summary, the drill-down, the model bar's sentence) and the new URL come once the heatmaps have drawn,
    not when the browser is next idle (gates.js, afterLookedAt): on a page that is never idle, every figure still
    draws."""
    context = browser.new_context(viewport={"width": 1280, "height": 2000})
    context.add_init_script(ASKED + NEVER_IDLE + PUSHED)
    page = context.new_page()
    callbacks = Callbacks(page)
    page.goto(app_url + "/?h=2")
    page.wait_for_selector("#heatmaps .js-plotly-plot", state="attached")
    page.evaluate(RECORDER)
    page.evaluate("() => document.getElementById('heatmaps').scrollIntoView({block: 'center'})")
    settle(page, callbacks)
    page.evaluate("() => { window.asked = []; window.pushed = []; }")
    choose("heads", "4")(page, lambda: page.evaluate("window.drawRecorder.arm()"))
    state = settle(page, callbacks, need_start=True, ready=lambda s: "heatmaps" in s["draws"])
    start = page.evaluate("window.drawRecorder.start")
    # when each output was first asked for ("..a.figure...b.children.." names a request's outputs)
    asked = {}
    for outputs, t in page.evaluate("window.asked"):
        for output in outputs.strip(".").split("..."):
            asked.setdefault(output, t - start)
    first = {"heatmaps.figure", "worked-text.children"}
    assert {o for o in asked if asked[o] == min(asked.values())} == first, asked
    graphs = [o.removesuffix(".figure") for o in asked if o.endswith(".figure") and o not in first]
    assert len(graphs) >= 2 and {"head-summary.html", "drilldown.html", "scale-text.children"} <= set(asked), asked
    heatmaps_drawn = state["draws"]["heatmaps"][0]
    for output in set(asked) - first:
        assert asked[output] >= heatmaps_drawn, (output, asked, heatmaps_drawn)
    for graph in graphs:
        assert state["draws"].get(graph), (graph, state["draws"])
    (pushed,) = page.evaluate("window.pushed")
    assert pushed - start >= heatmaps_drawn and "h=4" in page.url
    context.close()


def test_a_load_sends_no_request_the_server_must_refuse(browser, app_url):
    """A selected cell's gate holds the cell its inputs start with until it first passes (gate.py, Gate.start), so a
    load passes no cell on its own: each request of a load, and of a first visit to each tab, carries every gate its
    callback reads. One with another gate that has not passed would be refused (PreventUpdate): a round trip for
    nothing, four of them on each load of the worked example."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    unread = {g.id for g in GATES if g.start is None}  # the gates that read as nothing until they pass
    assert {"gate-example", "gate-forms", "gate-influence", "gate-mixing", "gate-clinic"} <= unread
    asked = []  # each callback request: its outputs, and the gates it carries that read as nothing
    page.on("request", lambda r: asked.append((r.post_data_json["output"], [
        i["id"] for i in r.post_data_json["inputs"] if i["id"] in unread and i.get("value") is None]))
        if "_dash-update-component" in r.url else None)
    page.goto(app_url + "/?h=4")
    wait_drawn(page, "example")
    # the model bar's sentence came with the layout (the default setting's, model_bar.py): no request for it
    assert "Scale 0.707 × q·k" in page.inner_text("#scale-text") and page.locator("#scale-text").is_visible()
    for tab, label in TABS.items():
        if tab != "example":
            choose("tab", label)(page, lambda: None)
            wait_drawn(page, tab)
    assert len(asked) > 10 and [a for a in asked if a[1]] == [], "\n".join(map(str, asked))
    assert [a for a in asked if "scale-text" in a[0]] == []
    context.close()
