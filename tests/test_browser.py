"""The real app in headless Chromium: what a student clicks, and what the page then shows."""

import re
import time
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from plotly.offline import get_plotlyjs_version

from dashboard import figures
from dashboard.figures import example
from dashboard.attention import multi_head_attention, worked_example
from tests.browser import SETTLED, header_control, scroll_through, wait_until
from tests.recorder import RECORDER, Callbacks, settle

pytestmark = pytest.mark.browser

# Reads a dcc.Graph's drawn traces: Plotly.js has decoded the typed arrays into _fullData.
TRACES = """id => {
  const gd = document.getElementById(id).querySelector('.js-plotly-plot');
  return gd._fullData.map(t => ({type: t.type, opacity: t.opacity,
     z: t.type === 'heatmap' ? Array.from(t.z, row => Array.from(row)) : null,
     intensity: t.type === 'mesh3d' ? Array.from(t.intensity) : null}));
}"""



def open_view(page, query=""):
    page.goto(page.base + "/" + query)
    wait_until(page, "() => document.querySelector('#heatmaps .js-plotly-plot .heatmaplayer image')", look_at="heatmaps")


def wait_heads(page, graph, kind, h):
    """Look at the graph (a figure far from the screen waits to be scrolled to) until it shows h heads."""
    wait_until(page, "([id, kind, h]) => document.querySelector(`#${id} .js-plotly-plot`)?._fullData"
                     "?.filter(t => t.type === kind).length === h", [graph, kind, h], look_at=graph)


def query(page) -> dict:
    """The page URL's query, {name: value}."""
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def choose(page, control_id, label):
    """Click a radio button group's option (h), or type into a number box (the seeds) and press Enter."""
    if page.locator(f"#{control_id}").get_attribute("type") == "number":
        page.fill(f"#{control_id}", label)
        page.press(f"#{control_id}", "Enter")
    else:
        page.locator(f"#{control_id} label", has_text=label).click()


def core_attention(h, seed):
    return multi_head_attention(*worked_example(seed)[:5], h).A


def test_page_loads_without_errors_or_other_hosts(page):
    open_view(page)
    scroll_through(page)  # every figure asks for its data
    wait_heads(page, "cube", example.PLANE, 4)
    page.wait_for_selector(".math-display img.formula", state="attached")  # the formulas are typeset
    assert page.errors == []
    assert page.requests and all(u.startswith(page.base) for u in page.requests), page.requests
    assert page.title() == "Multi-head attention explorer"
    assert page.evaluate("() => Plotly.version") == get_plotlyjs_version()  # the vendored bundle, not Dash's


def test_choosing_eight_heads_draws_the_core_values(page):
    open_view(page)
    choose(page, "heads", "8")
    wait_heads(page, "heatmaps", "heatmap", 8)
    wait_heads(page, "cube", example.PLANE, 8)
    A = core_attention(8, 0)
    heat = page.evaluate(TRACES, "heatmaps")
    np.testing.assert_allclose([t["z"] for t in heat], A, rtol=1e-6)
    assert page.locator("#heatmaps .heatmaplayer image").count() == 8
    planes = [t for t in page.evaluate(TRACES, "cube") if t["type"] == example.PLANE]
    np.testing.assert_allclose([p["intensity"][::4] for p in planes], A.reshape(8, -1), rtol=1e-6)
    assert query(page)["h"] == "8" and page.errors == []


PLANE_OPACITIES = "() => document.querySelector('#cube .js-plotly-plot')._fullData.map(t => t.opacity)"


def test_head_button_brings_that_head_forward(page):
    callbacks = Callbacks(page)
    open_view(page)
    wait_heads(page, "cube", example.PLANE, 4)
    page.evaluate(RECORDER)
    settle(page, callbacks)  # the figures near the cube (the heads' effects) have drawn on the way there
    page.evaluate("window.drawRecorder.arm()")
    page.locator("#cube-focus label", has_text="head 3").click()
    wait_until(page, "() => { const d = document.querySelector('#cube .js-plotly-plot')._fullData;"
                     " return d[2].opacity > d[0].opacity; }")
    # once: one answer, a Patch of the cube's data
    draws = settle(page, callbacks)["draws"]
    assert list(draws) == ["cube"] and len(draws["cube"]) == 1, draws
    opacities = [t["opacity"] for t in page.evaluate(TRACES, "cube") if t["type"] == example.PLANE]
    on_server = example.focus_planes(example.cube_traces(core_attention(4, 0)), 2)  # what a change of h draws
    assert opacities == [t["opacity"] for t in on_server if t["type"] == example.PLANE]
    # the figure Dash holds has the head forward: nothing that draws the page again undoes it (the tab's view
    # mounts anew on a return)
    page.locator("#tab label", has_text="Single vs multi-head").click()
    page.locator("#tab label", has_text="Worked example").click()
    page.locator("#lecture").check()
    wait_until(page, "() => document.documentElement.classList.contains('lecture')")
    header_control(page, "#lecture").uncheck()  # in lecture mode, behind the menu button
    settle(page, callbacks)  # every redraw those asked for is done
    assert page.evaluate(PLANE_OPACITIES) == opacities
    choose(page, "heads", "8")  # the server's new cube keeps head 3 forward
    wait_heads(page, "cube", example.PLANE, 8)
    focused = [t["opacity"] for t in example.focus_planes(example.cube_traces(core_attention(8, 0)), 2)]
    assert page.evaluate(PLANE_OPACITIES) == focused
    page.locator("#cube-focus label", has_text="head 6").click()
    wait_until(page, "() => { const d = document.querySelector('#cube .js-plotly-plot')._fullData;"
                     " return d[5].opacity > d[0].opacity; }")
    choose(page, "heads", "2")  # the buttons follow the cube's h; head 6 is gone: every plane comes forward
    wait_heads(page, "cube", example.PLANE, 2)
    wait_until(page, "() => [...document.querySelectorAll('#cube-focus label')].map(l => l.textContent).join('|')"
                     " === 'all|head 1|head 2'")
    assert page.locator("#cube-focus input:checked").input_value() == "0"
    assert page.evaluate(PLANE_OPACITIES) == [figures.PLANE_OPACITY] * 2


def test_a_head_chosen_while_the_cubes_new_figure_is_on_its_way_stays_forward(page):
    """A click on a head while the cube's figure for a new h is on its way: once the answers come, the cube has the
    new h's planes with that head forward (each answer is a Patch of the cube's data, built for what was asked),
    and the head buttons of the new h (they come in the cube's answer)."""
    open_view(page)
    wait_heads(page, "cube", example.PLANE, 4)
    held = []
    page.route(re.compile("_dash-update-component"), lambda route: held.append(route)
               if '"output":"..cube.figure' in (route.request.post_data or "") else route.continue_())
    with page.expect_request(lambda request: '"output":"..cube.figure' in (request.post_data or "")):
        choose(page, "heads", "8")
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:  # the route's handler runs as Playwright next dispatches
        page.wait_for_timeout(20)
    assert len(held) == 1 and '"value":0' in held[0].request.post_data  # asked for with 'all' chosen
    page.locator("#cube-focus label", has_text="head 3").click()  # a head both h = 4 and h = 8 have
    wait_until(page, "() => document.querySelector('#cube-focus input:checked')?.value === '3'")
    # the figure for h = 8 asked with 'all', and whatever the click asked while it waited, go on to the server
    page.unroute(re.compile("_dash-update-component"))  # which lets the held requests go on
    wait_heads(page, "cube", example.PLANE, 8)
    wait_until(page, "() => document.querySelectorAll('#cube-focus label').length === 9", look_at="cube")
    focused = [t["opacity"] for t in example.focus_planes(example.cube_traces(core_attention(8, 0)), 2)]
    wait_until(page, "(want) => JSON.stringify(document.querySelector('#cube .js-plotly-plot')._fullData"
                     ".map(t => t.opacity)) === JSON.stringify(want)", focused)
    assert page.errors == []


def test_the_keyboards_arrows_bring_the_next_head_forward(page):
    """The arrows move a radio group's choice when the keyboard reached it (rules.keepsKeys): the planes follow as
    they follow a pointer's click on a label."""
    open_view(page)
    wait_heads(page, "cube", example.PLANE, 4)
    page.locator("#cube-focus input:checked").focus()  # 'all'
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # back, by the keyboard: the group shows its focus ring
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_until(page, "() => { const d = document.querySelector('#cube .js-plotly-plot')._fullData;"
                     " return d[1].opacity > d[0].opacity; }")
    assert page.locator("#cube-focus input:checked").input_value() == "2"
    assert page.locator("#sel-head").input_value() == "1"  # the arrows moved the buttons, not the selected head
    focused = [t["opacity"] for t in example.focus_planes(example.cube_traces(core_attention(4, 0)), 1)]
    assert page.evaluate(PLANE_OPACITIES) == focused
    # the chosen head again: nothing asked, nothing drawn
    callbacks = Callbacks(page)
    page.evaluate(RECORDER)
    page.evaluate("window.drawRecorder.arm()")
    page.locator("#cube-focus label", has_text="head 2").click()
    assert settle(page, callbacks, need_start=True)["draws"] == {} and page.evaluate(PLANE_OPACITIES) == focused
    assert page.errors == []


def test_cube_camera_survives_a_change_of_heads(page):
    open_view(page)
    wait_heads(page, "cube", example.PLANE, 4)
    page.evaluate("() => Plotly.relayout(document.querySelector('#cube .js-plotly-plot'),"
                  " {'scene.camera.eye': {x: 0.3, y: 2.1, z: 0.4}})")
    choose(page, "heads", "2")
    wait_heads(page, "cube", example.PLANE, 2)
    wait_until(page, SETTLED, "#cube")  # and nothing left that could still replace the figure
    eye = page.evaluate("() => document.querySelector('#cube .js-plotly-plot')._fullLayout.scene.camera.eye")
    assert eye == pytest.approx({"x": 0.3, "y": 2.1, "z": 0.4})


def test_equivariance_tab_shows_the_check_and_its_break(page):
    open_view(page)
    page.locator("#tab label", has_text="Equivariance").click()
    page.wait_for_selector("#eq-check .eq-verdict.holds", timeout=20000)
    page.click("#perm-shuffle")
    wait_until(page, "() => !document.querySelector('#perm').value.startsWith('0 1 2 3 4 5')")
    page.wait_for_selector("#eq-check .eq-verdict.holds")
    assert float(page.inner_text("#eq-gap")) < 1e-12
    wait_until(page, SETTLED, "#section-equivariance")
    assert query(page)["perm"].split(",") == page.input_value("#perm").split()
    page.locator("label[for=positions]").click()
    page.wait_for_selector("#eq-check .eq-verdict.breaks", timeout=20000)
    assert float(page.inner_text("#eq-gap")) > 1e-3
    assert "not equivariant" in page.inner_text("#eq-check")

    page.fill("#perm", "0 1 2 2")
    page.press("#perm", "Enter")
    page.wait_for_selector("#perm.is-invalid")
    assert "needs 12 numbers" in page.inner_text("#perm-feedback")
    assert page.errors == []


def test_url_opens_that_state_and_back_and_forward_work(page):
    open_view(page, "?h=2&seed=7")
    wait_heads(page, "heatmaps", "heatmap", 2)
    heat = page.evaluate(TRACES, "heatmaps")
    np.testing.assert_allclose([t["z"] for t in heat], core_attention(2, 7), rtol=1e-6)
    assert page.locator("#heads input:checked").input_value() == "2" and page.input_value("#seed") == "7"
    choose(page, "heads", "8")
    wait_heads(page, "heatmaps", "heatmap", 8)
    wait_until(page, "() => new URLSearchParams(location.search).get('h') === '8'")
    # the blank page the browser opened first, the link as it was opened (the load wrote no URL of its own), and
    # the change
    assert page.evaluate("history.length") == 3 and query(page)["seed"] == "7"
    page.go_back()
    wait_heads(page, "heatmaps", "heatmap", 2)
    assert page.locator("#heads input:checked").input_value() == "2" and urlparse(page.url).query == "h=2&seed=7"
    page.go_forward()  # the URL the page wrote itself, come back: it sets the controls too
    wait_heads(page, "heatmaps", "heatmap", 8)
    assert page.locator("#heads input:checked").input_value() == "8"


def test_a_tabs_own_state_survives_a_visit_to_another_tab(page):
    """The URL holds the equivariance tab's switch only while that tab shows. The URL the page writes for another
    tab must not set the switch back to its default as it comes back (readUrl skips the URL writeUrl set)."""
    page.goto(page.base + "/?tab=equivariance&pe=1&perm=" + ",".join(map(str, [1, 0, *range(2, 12)])))
    page.wait_for_selector("#eq-check .eq-verdict.breaks", timeout=20000)
    assert page.locator("#positions").is_checked()
    page.locator("#tab label", has_text="Worked example").click()
    wait_until(page, "() => new URLSearchParams(location.search).get('tab') === 'example'")
    assert "pe" not in query(page)
    page.locator("#tab label", has_text="Equivariance").click()
    wait_until(page, "() => new URLSearchParams(location.search).get('tab') === 'equivariance'")
    assert page.locator("#positions").is_checked() and query(page)["pe"] == "1"
    page.wait_for_selector("#eq-check .eq-verdict.breaks")


def test_a_link_to_the_equivariance_tab_shows_a_head_button_for_each_head(page):
    """The head buttons of a hidden tab follow h as their tab is shown, a link's first load included."""
    page.goto(page.base + "/?tab=equivariance&h=8")
    wait_until(page, "() => document.querySelectorAll('#eq-head label').length === 8")
    page.locator("#tab label", has_text="Worked example").click()
    choose(page, "heads", "2")
    page.locator("#tab label", has_text="Equivariance").click()
    wait_until(page, "() => [...document.querySelectorAll('#eq-head label')].map(l => l.textContent).join('|')"
                     " === 'head 1|head 2'")


def test_learning_tab_trains_and_replays(page):
    from dashboard import trainer
    from dashboard.explorer import learning

    page.goto(page.base + "/?tab=learning&h=2")
    wait_heads(page, "learn-loss", "scatter", 4)
    wait_heads(page, "learn-attention", "heatmap", 2)
    notes = "() => document.querySelector('#learn-loss .js-plotly-plot')._fullLayout.annotations.map(a => a.text)"
    assert f"test MSE {trainer.training_runs(0)[1].test_loss:.3f}" in " ".join(page.evaluate(notes))
    _, own, nxt, _ = learning.learned_attention(2, 0, 20)  # snapshot 20 = step 400
    for i in range(2):
        assert f"head {i + 1}\t{own[i]:.2f}\t{nxt[i]:.2f}" in page.inner_text("#learn-mass")
    # a panel title's line break reads as a space in the figure's text alternative, with no separator from code
    reading = wait_until(page, "() => document.querySelector('#learn-task .figure-text p')?.textContent",
                         look_at="learn-task")
    assert "own cluster (features 0–3): 12 × 12" in reading and "next cluster (features 4–7): 12 × 12" in reading
    assert reading.count("largest at query r") == 2  # the second panel's axes are named as the first's

    # train another seed: the curves change to that seed's runs
    choose(page, "learn-seed", "3")
    page.click("#learn-train")
    expected = f"test MSE {trainer.training_runs(3)[1].test_loss:.3f}"
    wait_until(page, f"expected => ({notes})().some(t => t.includes(expected))", expected)

    # play from the start, watching the heads: the slider moves and they are drawn at earlier steps
    page.locator("#learn-attention").scroll_into_view_if_needed()
    page.click("#learn-play")
    # the step the heads are drawn at; under load, play may skip steps (the latest one is drawn), so "earlier"
    # is any step before the last, not step 0 itself
    drawn_step = ("() => Number(document.querySelector('#learn-attention .js-plotly-plot')"
                  "._fullData[0].hovertemplate.match(/step (\\d+)/)[1])")
    wait_until(page, f"() => ({drawn_step})() < 400")
    wait_until(page, f"() => ({drawn_step})() === 400", timeout=30)
    assert page.inner_text("#learn-play") == "play"
    assert page.errors == []


def test_a_phone_gets_the_page_at_its_width(browser, app_url):
    """A phone (is_mobile: it lays a page without a viewport tag out 980 px wide) gets the page at 390 px; each
    tab's figures at that width are checked in test_each_tab.py."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{app_url}/?tab=mixing&h=8")
    page.wait_for_selector("#section-mixing .js-plotly-plot .main-svg", timeout=20000)
    wait_until(page, SETTLED, "#section-mixing")
    assert page.evaluate("[window.innerWidth, document.documentElement.scrollWidth]") == [390, 390]
    context.close()
