"""What issue 11 saw wrong in headless Chromium, held fixed: the header, formulas and figure text on a phone,
dark mode, the equivariance tab's bad orders and the learning lab's URL and axes."""

import pytest

from tests.browser import scroll_through, wait_until
from tests.test_a11y import wait_drawn, wait_graph

pytestmark = pytest.mark.browser

# Pairs of a figure's SVG texts whose boxes overlap (titles on titles, axis titles on tick labels).
OVERLAPS = """(id) => {
  const boxes = Array.from(document.querySelectorAll(`#${id} .main-svg text`))
    .filter(t => t.textContent.trim()).map(t => [t.textContent, t.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0);
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const out = [];
  boxes.forEach(([ta, a], i) => boxes.slice(i + 1).forEach(([tb, b]) => { if (hit(a, b)) out.push([ta, tb]); }));
  return out;
}"""


def open_page(browser, url, width=1440, height=900, scheme="light"):
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    page.goto(url)
    return page


def test_header_is_opaque(browser, app_url):
    page = open_page(browser, app_url + "/", 390, 844)
    page.wait_for_selector("nav.controls")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        wait_until(page, "s => document.documentElement.dataset.bsTheme === s", scheme)
        colour = page.evaluate("getComputedStyle(document.querySelector('nav.controls')).backgroundColor")
        assert colour.startswith("rgb(") or (colour.startswith("rgba(") and not colour.endswith(", 0)")), colour
    page.context.close()


def test_formulas_keep_their_size_on_a_phone(browser, app_url):
    page = open_page(browser, app_url + "/", 390, 844)
    page.wait_for_selector("#section-example .math-display img.formula")
    scroll_through(page)  # a formula's file loads as it comes near the screen
    wait_until(page, """() => Array.from(document.querySelectorAll('#section-example .math-display img.formula'))
      .every(i => i.complete && i.naturalWidth > 0)""")
    sizes = page.evaluate("""() => Array.from(document.querySelectorAll('#section-example .math-display img.formula')).map(i => {
        const r = i.getBoundingClientRect();
        return [r.width / r.height, i.naturalWidth / i.naturalHeight, r.height, i.naturalHeight]; })""")
    body = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.prose p')).fontSize)")
    # never squeezed: drawn in its own proportions (give or take the rounding of its sizes to whole px)
    squeezed = [s for s in sizes if abs(s[0] - s[1]) > s[1] * (0.03 + 2 / s[3])]
    assert sizes and squeezed == []
    assert min(h for _, _, h, _ in sizes) >= body  # a display formula is at least as tall as a line of text
    # a formula wider than the phone shrinks to its column (assets/site/lecture.css), never widens the page
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("""() => Array.from(document.querySelectorAll('#section-example .math-display')).every(
      box => box.scrollWidth <= box.clientWidth + 1)""")
    page.context.close()


def test_dark_mode_keeps_a_label_its_own_colour(browser, app_url):
    page = open_page(browser, app_url + "/?tab=learning", scheme="dark")
    wait_drawn(page, "learning")
    fills = page.evaluate("""() => Array.from(document.querySelectorAll('#learn-loss .main-svg text'))
        .map(t => [t.textContent, getComputedStyle(t).fill])""")
    assert ["3/8: any input-independent mixing", "rgb(213, 94, 0)"] in fills  # the orange of the dashed line
    title = next(fill for text, fill in fills if text == "step")
    assert title == page.evaluate("getComputedStyle(document.body).color")  # default text follows the page
    page.context.close()


# Pairs of an axis title and a tick label of one graph whose boxes overlap, and tick labels cut at the graph's edge.
COLLISIONS = """(section) => {
  const found = [];
  const box = e => e.getBoundingClientRect();
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  document.querySelectorAll(`#${section} .js-plotly-plot`).forEach(gd => {
    const id = gd.parentElement.closest('[id]').id, edge = box(gd);
    const ticks = Array.from(gd.querySelectorAll('.xtick text, .ytick text')).filter(t => t.textContent);
    gd.querySelectorAll('.g-xtitle text, .g-ytitle text').forEach(title => ticks.forEach(tick => {
      if (title.textContent && meet(box(title), box(tick))) found.push([id, title.textContent, tick.textContent]);
    }));
    ticks.forEach(t => { if (box(t).left < edge.left - 1) found.push([id, 'cut', t.textContent]); });
  });
  return found;
}"""


def test_axis_titles_clear_their_tick_labels_and_no_label_is_cut_in_lecture_mode(browser, app_url):
    """Issue 11's projector: "column blocks" sat on the Q₂ Q₃ labels in lecture mode. (Every tab on a desktop
    and a phone: test_each_tab.py.)"""
    page = open_page(browser, app_url + "/?h=4&lecture=1", 1920, 1080)
    wait_drawn(page, "example")
    assert page.evaluate(COLLISIONS, "section-example") == []
    page.context.close()


def test_dark_mode_inverts_the_heatmaps_and_the_cube_alike(browser, app_url):
    """The heatmaps are drawn inverted in dark mode, and so is their colour bar; the cube's canvas and its colour
    bar are inverted the same way (assets/site/lecture.css), so both colour maps read in the same direction."""
    page = open_page(browser, app_url + "/?h=2", scheme="dark")
    wait_graph(page, "heatmaps")
    wait_graph(page, "cube")
    bar = "id => getComputedStyle(document.querySelector(`#${id} .colorbar .cbfills`)).filter"
    assert "invert" in page.evaluate(bar, "heatmaps") and page.evaluate(bar, "heatmaps") == page.evaluate(bar, "cube")
    page.context.close()


@pytest.mark.parametrize("graph", ["learn-loss", "learn-task"])
def test_learning_figures_do_not_overlap_on_a_phone(browser, app_url, graph):
    page = open_page(browser, app_url + "/?tab=learning", 390, 844)
    wait_drawn(page, "learning")
    assert page.evaluate(OVERLAPS, graph) == []
    page.context.close()


def test_every_loss_panel_ends_at_step_400(browser, app_url):
    page = open_page(browser, app_url + "/?tab=learning", 390, 844)
    wait_drawn(page, "learning")
    ticks = page.evaluate("""() => { const l = document.querySelector('#learn-loss .js-plotly-plot')._fullLayout;
        return ['xaxis', 'xaxis2', 'xaxis3', 'xaxis4'].map(a => Array.from(
          document.querySelectorAll(`#learn-loss .${a.replace('axis', '')}tick text`), t => t.textContent)); }""")
    assert all("400" in t for t in ticks), ticks
    page.context.close()


def test_training_seed_and_step_live_in_the_url(browser, app_url):
    page = open_page(browser, app_url + "/?tab=learning&h=2&step=100")
    wait_drawn(page, "learning")
    assert "step 100" in page.inner_text("#learn-roles")
    titles = "() => document.querySelector('#learn-attention .js-plotly-plot')._fullLayout.annotations.map(a => a.text)"
    assert "step 100" in page.evaluate(titles)[0]
    page.locator("#learn-step .dash-slider-thumb").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=120**", timeout=10000)
    page.fill("#learn-seed", "2")
    page.press("#learn-seed", "Enter")
    page.wait_for_url("**train=2**", timeout=10000)
    page.context.close()


def test_a_bad_order_clears_the_view_and_stays_out_of_the_url(browser, app_url):
    page = open_page(browser, app_url + "/?tab=equivariance&perm=3,0,1,2,4,5,6,7,8,9,10,11")
    wait_drawn(page, "equivariance")
    page.wait_for_selector("#eq-check .eq-verdict.holds")
    page.fill("#perm", "0 1 2 2")
    page.press("#perm", "Enter")
    page.wait_for_selector("#perm.is-invalid")
    heatmaps = "() => document.querySelector('#eq-attention .js-plotly-plot')._fullData.length"
    for _ in range(100):
        if page.evaluate(heatmaps) == 0:
            break
        page.wait_for_timeout(100)
    assert page.evaluate(heatmaps) == 0 and page.inner_text("#eq-check") == ""  # no stale plots or verdict
    assert "perm=3%2C0%2C1%2C2" in page.url or "perm=3,0,1,2" in page.url  # the last good order stays
    # a hand-made link with a bad order opens the identity order, drawn
    page.goto(app_url + "/?tab=equivariance&perm=0,1,2,2")
    wait_drawn(page, "equivariance")
    assert page.input_value("#perm") == " ".join(map(str, range(12)))
    page.wait_for_selector("#eq-check .eq-verdict.holds")
    page.context.close()
