"""Issue 35, the projector stage: at 1920 x 1080, lecture mode on (dark) and off (light), every template's question,
its phase, the answer count, the timer and its figure fit the screen with no scrolling once it is posed, and at the
reveal the answers and the figure that explains them fit it too."""

import pytest

from tests.browser import wait_until
from tests.test_display import OVERLAPS
from tests.test_class_session_browser import BASE, SETTINGS, fill_form

pytestmark = pytest.mark.browser

# The bottom of each part of the stage, in the page's pixels from the top of the page, scrolled to the top.
BOTTOMS = """sels => { scrollTo(0, 0); return Object.fromEntries(sels.map(s => { const e = document.querySelector(s);
  return [s, e && e.getClientRects().length ? Math.ceil(e.getBoundingClientRect().bottom) : null]; })); }"""
POSED = ["#class-prompt", "#class-phase", "#class-count", "#class-clock-text", "#class-figure", "#class-reveal"]
REVEALED = ["#class-prompt", "#class-phase", "#class-results table.class-bars", "#class-results .class-summary",
            "#class-why"]


@pytest.mark.parametrize("lecture", [False, True], ids=["light", "lecture-dark"])
def test_the_stage_fits_a_1080p_projector_posed_and_revealed(browser, app_url, lecture):
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme="dark" if lecture else "light")
    try:
        page = context.new_page()
        page.goto(app_url + "/class" + ("?lecture=1" if lecture else ""))
        if lecture:
            page.click("label[for=lecture]")
            wait_until(page, "() => document.documentElement.classList.contains('lecture')")
        page.click("#class-start")
        page.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
        page.select_option("#class-timer", "60")  # the timer shows
        for template, settings in SETTINGS.items():
            fill_form(page, template, {**BASE, **settings[0]})
            page.click("#class-pose")  # the status said 'Revealed' or 'Pose the first question' before
            wait_until(page, "() => { const s = document.getElementById('class-status').innerText;"
                             " if (s.includes('is training')) document.getElementById('class-pose').click();"
                             " return s.startsWith('Posed'); }", timeout=120, interval_ms=1000)
            page.wait_for_selector("#class-figure .js-plotly-plot .main-svg, #class-figure table")
            page.wait_for_selector("#class-clock-text:not(:empty)")
            bottoms = page.evaluate(BOTTOMS, POSED)
            assert all(b is not None and 0 < b <= 1080 for b in bottoms.values()), f"{template} posed: {bottoms}"
            assert (o := page.evaluate(OVERLAPS, "class-figure")) == [], (template, o)  # no title on another
            page.click("#class-reveal")
            page.wait_for_selector("#class-why .js-plotly-plot .main-svg")
            bottoms = page.evaluate(BOTTOMS, REVEALED)
            assert all(b is not None and 0 < b <= 1080 for b in bottoms.values()), f"{template} revealed: {bottoms}"
            assert (o := page.evaluate(OVERLAPS, "class-why")) == [], (template, o)
        assert page.evaluate("() => document.documentElement.classList.contains('lecture')") == lecture
    finally:
        context.close()
