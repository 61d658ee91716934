"""The presenter view and the lecture keys (dashboard/explorer/presenter.py, explorer.js onKey)."""

import pytest

from dashboard import figures
from dashboard.attention import multi_head_attention, worked_example
from dashboard.explorer import presenter
from dashboard.figures import example
from tests.browser import SETTLED, wait_until

pytestmark = pytest.mark.browser

PLOT_HEIGHT = "document.querySelector('#heatmaps .js-plotly-plot')._fullLayout.height"
# The presented plot spans the screen from just below the leave button to within 20 px of the bottom.
FILLS_THE_SCREEN = """() => { if (!document.querySelector('.presented')) return false;
  const plot = document.querySelector('.presented .js-plotly-plot').getBoundingClientRect();
  const button = document.querySelector('.presented .present-button').getBoundingClientRect();
  return plot.top >= button.bottom - 1 && plot.top <= button.bottom + 20 && plot.bottom <= window.innerHeight
    && plot.bottom >= window.innerHeight - 20; }"""
SELECTED_HEAD = "() => document.getElementById('sel-head').value"
HEAT_TRACES = "() => document.querySelector('#heatmaps .js-plotly-plot')?._fullData?.length"
PRESENTED = """() => { const f = document.querySelector('.figure-frame.presented'); if (!f) return null;
  const b = f.getBoundingClientRect(); return {graph: f.querySelector('.dash-graph').id, top: b.top, left: b.left,
  width: b.width, height: b.height, lecture: document.documentElement.classList.contains('lecture')}; }"""


def open_heatmaps(page, query="?weights=trained&h=4"):
    page.goto(page.base + "/" + query)
    wait_until(page, HEAT_TRACES, look_at="heatmaps")
    wait_until(page, SETTLED, "#section-example")  # a key pressed while the page still loads may be undone


def test_number_keys_choose_h_and_arrows_step_the_head(page):
    open_heatmaps(page)
    page.keyboard.press("8")
    # the lecturer keeps looking at the heatmaps, which the taller figures above them push down the page
    wait_until(page, "() => document.querySelector('#heatmaps .js-plotly-plot')._fullData.length === 8",
               look_at="heatmaps")
    wait_until(page, "() => location.search.includes('h=8')")  # the URL follows once they have drawn
    assert page.evaluate(SELECTED_HEAD) == "1"
    page.keyboard.press("ArrowRight")
    wait_until(page, "() => document.getElementById('sel-head').value === '2' && location.search.includes('head=2')")
    page.keyboard.press("ArrowLeft")
    wait_until(page, "() => location.search.includes('head=1')")
    page.keyboard.press("ArrowLeft")  # from head 1 round to head h
    wait_until(page, "() => document.getElementById('sel-head').value === '8'")
    for key in "4218":  # every h has its key
        page.keyboard.press(key)
        wait_until(page, "h => document.querySelector(`#heads input[value='${h}']`).checked", key)
    head = page.evaluate(SELECTED_HEAD)
    page.locator("#seed").fill("")
    page.locator("#seed").type("2")  # a key typed into a box is the box's, not h's
    assert "h=8" in page.url and page.evaluate(SELECTED_HEAD) == head
    assert page.errors == []


def test_p_presents_the_figure_in_the_middle_alone_and_esc_leaves(page):
    open_heatmaps(page)
    page.evaluate("() => { const g = document.getElementById('heatmaps').getBoundingClientRect();"
                  " window.scrollBy(0, g.top + g.height / 2 - window.innerHeight / 2); }")
    page.keyboard.press("p")
    wait_until(page, "() => document.documentElement.classList.contains('lecture')")  # lecture mode comes on
    shown = wait_until(page, PRESENTED)
    assert shown["graph"] == "heatmaps"
    assert (shown["top"], shown["left"], shown["width"], shown["height"]) == (0, 0, 1280, 900)  # the whole screen
    wait_until(page, "() => document.querySelector('#heatmaps .js-plotly-plot')._fullLayout.font.size > 13")
    wait_until(page, FILLS_THE_SCREEN)  # the figure itself, not only its frame
    page.keyboard.press("8")  # a new drawing from Dash, at the page's height, is fitted again
    wait_until(page, f"() => ({HEAT_TRACES})() === 8 && ({FILLS_THE_SCREEN})()")
    page.keyboard.press("Escape")
    wait_until(page, "() => !document.querySelector('.presented')"
                     " && !document.documentElement.classList.contains('lecture')")
    # the URL follows once the figure looked at has drawn again
    wait_until(page, "() => !new URLSearchParams(location.search).has('lecture')")
    A = multi_head_attention(*worked_example(0)[:5], 8).A
    own = example.attention_heatmaps(A, figures.DESKTOP)["layout"]["height"]
    wait_until(page, f"() => ({HEAT_TRACES})() === 8 && {PLOT_HEIGHT} === {own}")
    # in lecture mode already, nothing redraws on leaving: the figure gets its lecture height back
    page.locator("label[for=lecture]").click()
    own = example.attention_heatmaps(A, figures.Display(lecture=True))["layout"]["height"]
    wait_until(page, f"() => {PLOT_HEIGHT} === {own}", look_at="heatmaps")
    page.locator(".figure-frame:has(#heatmaps) .present-button").click()  # P would be the switch's key now
    wait_until(page, FILLS_THE_SCREEN)
    page.keyboard.press("p")  # P leaves too (the button has the focus)
    wait_until(page, "() => !document.querySelector('.presented')")
    wait_until(page, f"() => {PLOT_HEIGHT} === {own}", timeout=30)
    assert page.evaluate("document.documentElement.classList.contains('lecture')")
    assert page.errors == []


def test_each_figure_has_a_button_that_presents_it(page):
    open_heatmaps(page)
    wait_until(page, "() => document.querySelector('#cube .js-plotly-plot')?._fullData?.length", look_at="cube")
    button = page.locator(".figure-frame:has(#cube) .present-button")
    button.click()
    assert wait_until(page, PRESENTED)["graph"] == "cube"
    assert button.get_attribute("aria-pressed") == "true"
    button.click()
    wait_until(page, "() => !document.querySelector('.presented')")
    assert button.get_attribute("aria-pressed") == "false"
    frames = page.evaluate("() => [...document.querySelectorAll('#section-example .figure-frame')].map("
                           "f => !!f.querySelector('.present-button') && !!f.querySelector('.dash-graph'))")
    assert frames and all(frames)


def test_arrows_step_the_training_on_the_learning_tab(page):
    page.goto(page.base + "/?tab=learning&step=200")
    wait_until(page, "() => document.querySelector('#learn-attention .js-plotly-plot')?._fullData?.length")
    page.keyboard.press("ArrowRight")
    wait_until(page, "() => location.search.includes('step=220')")
    page.keyboard.press("ArrowLeft")
    wait_until(page, "() => location.search.includes('step=200')")
    page.keyboard.press("ArrowLeft")
    wait_until(page, "() => location.search.includes('step=180')")


def test_every_shortcut_is_listed_on_the_page(page):
    page.goto(page.base + "/")
    page.click("#key-list")
    wait_until(page, "() => !document.getElementById('shortcuts').hidden")
    listed = page.inner_text("#shortcuts")
    for _button, keys, what in presenter.SHORTCUTS:
        assert presenter.key_label(keys[0]) in listed and what in listed


def test_the_url_holds_the_presented_figure(page):
    """?present= opens a view with its figure presented (a link, a lecture plan's view); presenting writes it, so
    back and forward step in and out; a figure of another tab waits for its tab; an unknown one presents nothing."""
    page.goto(page.base + "/?tab=mixing&h=4&present=mixing-multi&lecture=1")
    assert wait_until(page, PRESENTED)["graph"] == "mixing-multi"
    wait_until(page, FILLS_THE_SCREEN)
    page.keyboard.press("Escape")
    wait_until(page, "() => !document.querySelector('.presented') && !location.search.includes('present=')")
    assert "lecture=1" in page.url  # the link's lecture mode stands
    page.go_back()
    assert wait_until(page, PRESENTED)["graph"] == "mixing-multi"
    page.go_forward()
    wait_until(page, "() => !document.querySelector('.presented')")
    page.locator(".figure-frame:has(#mixing-single) .present-button").click()
    wait_until(page, "() => new URLSearchParams(location.search).get('present') === 'mixing-single'")
    # a plan's next view: another tab, another figure, presented once its tab has drawn it
    page.evaluate("() => { history.pushState(null, '', '?tab=example&h=2&present=heatmaps&lecture=1');"
                  " dispatchEvent(new PopStateEvent('popstate')); }")
    shown = wait_until(page, "() => (" + PRESENTED + ")()?.graph === 'heatmaps' && (" + PRESENTED + ")()")
    assert shown["lecture"] and page.evaluate("document.querySelectorAll('.presented').length") == 1
    wait_until(page, FILLS_THE_SCREEN)
    page.goto(page.base + "/?tab=example&present=nothing-here")
    wait_until(page, HEAT_TRACES)
    wait_until(page, SETTLED, "#section-example")
    assert page.evaluate("() => !document.querySelector('.presented')")
    assert page.errors == []


def test_a_lecture_plan_s_views_present_their_figures(page, tmp_path):
    """A plan's view holds the presented figure: PageDown presents each step's, or none (plan.py, lecture_plan)."""
    from dashboard import lecture_plan as plans
    from dashboard.explorer import URL_PARAMS

    views = ["?tab=example&h=4&present=heatmaps&lecture=1", "?tab=mixing&h=4&present=mixing-multi&lecture=1",
             "?tab=example&h=2&lecture=1"]
    steps = plans.check_steps([{"kind": "view", "view": v, "notes": ""} for v in views], URL_PARAMS)
    saved = tmp_path / "plan.json"
    saved.write_text(plans.file_text(steps), encoding="utf-8")
    page.goto(page.base + "/?h=4")
    page.set_input_files("#plan-open input[type=file]", str(saved))
    wait_until(page, "() => document.getElementById('plan-message').textContent.includes('3 steps')")
    for graph in ["heatmaps", "mixing-multi", None, "mixing-multi"]:
        page.keyboard.press("PageDown" if graph != "mixing-multi" or "h=2" not in page.url else "PageUp")
        if graph is None:
            wait_until(page, "() => location.search.includes('h=2') && !document.querySelector('.presented')")
            continue
        wait_until(page, f"() => ({PRESENTED})()?.graph === '{graph}'")
        wait_until(page, FILLS_THE_SCREEN)
    assert page.evaluate("document.querySelectorAll('.presented').length") == 1
    assert page.errors == []


def test_a_adds_the_presented_view_to_the_plan(page):
    """The presenter view covers the plan's "add this view": A adds the page's view, the presented figure in it."""
    open_heatmaps(page, "?weights=trained&h=4&lecture=1")
    page.evaluate("() => { const g = document.getElementById('heatmaps').getBoundingClientRect();"
                  " window.scrollBy(0, g.top + g.height / 2 - window.innerHeight / 2); }")
    page.keyboard.press("p")
    assert wait_until(page, PRESENTED)["graph"] == "heatmaps"
    wait_until(page, "() => location.search.includes('present=heatmaps')")
    page.keyboard.press("a")
    view = wait_until(page, "() => JSON.parse(localStorage.getItem('plan') || 'null')?.steps?.[0]?.view")
    assert "present=heatmaps" in view and "h=4" in view and "weights=trained" in view
    assert page.evaluate(PRESENTED)["graph"] == "heatmaps"  # still presented
    assert page.errors == []


def test_a_hidden_figure_is_not_presented_until_it_is_shown(page):
    """?present= names the two settings' figure while no figure is compared: nothing is presented (its frame is
    hidden), and once a figure is chosen the address's presentation holds."""
    page.goto(page.base + "/?tab=example&h=4&present=compare&lecture=1")
    wait_until(page, HEAT_TRACES, look_at="heatmaps")
    wait_until(page, SETTLED, "#section-example")
    assert page.evaluate("() => !document.querySelector('.presented')"
                         " && !document.documentElement.classList.contains('presenting')")
    page.locator("#compare-figure label", has_text="the heads' attention").click()
    assert wait_until(page, PRESENTED)["graph"] == "compare"
    # as wide as the screen, at its own height (two settings side by side keep it: explorer.js, keeps-height)
    wait_until(page, "() => { const g = document.querySelector('.presented #compare .js-plotly-plot');"
                     " return g && g.layout.width > 0.95 * innerWidth && g.layout.height === Number(g.dataset.figureHeight); }")
    assert page.errors == []


def test_the_list_of_keys_shows_over_a_presented_figure(page):
    """? in the presenter view: the list of keys is on top, not under the full-screen figure."""
    page.goto(page.base + "/?tab=example&h=4&present=heatmaps&lecture=1")
    assert wait_until(page, PRESENTED)["graph"] == "heatmaps"
    page.keyboard.press("?")
    wait_until(page, "() => !document.getElementById('shortcuts').hidden")
    on_top = """() => { const b = document.getElementById('shortcuts').getBoundingClientRect();
      const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
      return !!hit && !!hit.closest('#shortcuts'); }"""
    assert page.evaluate(on_top)
    assert page.errors == []
