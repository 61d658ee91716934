"""Lecture mode (?lecture=1, or the header switch): on every tab, at 1920x1080, figure text of 24 px
or more (the prose's size), per-head heatmaps at least 250 px wide (h = 8: two rows of four, all on one
screen: tests/test_lecture_figures.py), no figure toolbars, larger explanation text."""

import pytest

from dashboard.limits import TABS
from tests.test_a11y import wait_drawn

pytestmark = pytest.mark.browser

HEATMAPS = {"example": "heatmaps", "mixing": "mixing-multi", "equivariance": "eq-attention",
            "learning": "learn-attention", "clinic": "clinic-heatmaps"}
# Every SVG text of the tab's figures with its computed font size; each heatmap's drawn width.
MEASURE = """(section) => {
  const plots = Array.from(document.querySelectorAll(`#${section} .js-plotly-plot`));
  // the cube's text is WebGL but for its colour bar, and its layout follows no display yet: left out
  const texts = plots.filter(gd => !gd.querySelector('.gl-container canvas'))
    .flatMap(gd => Array.from(gd.querySelectorAll('.main-svg text'))
    .filter(t => t.textContent.trim() && t.getBBox().width > 0)
    .map(t => [t.textContent, parseFloat(getComputedStyle(t).fontSize)]));
  const widths = {};
  plots.forEach(gd => { widths[gd.parentElement.id] = Array.from(gd.querySelectorAll('.heatmaplayer image'))
    .map(im => im.getBoundingClientRect().width); });
  return {texts, widths, prose: parseFloat(getComputedStyle(document.querySelector(`#${section} .prose p`)).fontSize),
          marks: Array.from(document.querySelectorAll('.dash-slider-mark')).filter(m => m.getClientRects().length)
            .map(m => parseFloat(getComputedStyle(m).fontSize)),
          toolbars: Array.from(document.querySelectorAll(`#${section} .modebar-container`))
            .filter(m => getComputedStyle(m).display !== 'none').length};
}"""


PROSE = "(section) => parseFloat(getComputedStyle(document.querySelector(`#${section} .prose p`)).fontSize)"


@pytest.mark.parametrize("tab", TABS)
def test_lecture_mode_is_readable_from_the_back(browser, app_url, tab):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(f"{app_url}/?tab={tab}&h=8")
    page.wait_for_selector(f"#section-{tab} .prose p")
    prose = page.evaluate(PROSE, f"section-{tab}")  # the text needs no figure: no wait for them
    page.goto(f"{app_url}/?tab={tab}&h=8&lecture=1")
    wait_drawn(page, tab)
    lecture = page.evaluate(MEASURE, f"section-{tab}")
    context.close()
    small = [(text, size) for text, size in lecture["texts"] if size < 24]
    assert lecture["texts"] and small == [], small[:10]
    widths = lecture["widths"][HEATMAPS[tab]]
    assert widths and min(widths) >= 250, widths
    assert lecture["toolbars"] == 0
    if tab in ("example", "learning"):  # the model bar's sliders (size, τ), the training steps'
        assert lecture["marks"] and min(lecture["marks"]) >= 0.75 * lecture["prose"] - 0.5, lecture["marks"]
    assert lecture["prose"] > prose


def test_the_switch_turns_it_on_for_every_tab(browser, app_url):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(app_url + "/?tab=mixing")
    wait_drawn(page, "mixing")
    page.locator("label[for=lecture]").click()
    page.wait_for_url("**lecture=1**", timeout=10000)
    page.locator("#tab label", has_text=TABS["learning"]).click()
    wait_drawn(page, "learning")
    assert "lecture=1" in page.url and page.evaluate("document.documentElement.classList.contains('lecture')")
    context.close()
