"""Issue 35, the projector stage: at 1920 x 1080, lecture mode on (dark) and off (light), every template's question,
its phase, the answer count, the timer and its figure fit the screen with no scrolling once it is posed, and at the
reveal the answers and the figure that explains them fit it too."""

import json

import pytest

from dashboard.classmode.plan import PLAN_FORMAT
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


def test_a_lecture_plan_runs_in_class_mode_from_the_keyboard(browser, app_url, tmp_path):
    """PageDown (a clicker's next) poses the plan's next question; D, V and R discuss, vote again and reveal; a
    number box being typed in keeps its keys."""
    plan = tmp_path / "plan.json"
    first = {"template": "key", "timer": 0, "weights": "trained", "h": 4, "seed": 0, "size": 4, "scale": "seed",
             "tau": 0, "head": 2, "query": 1}
    plan.write_text(json.dumps({"format": PLAN_FORMAT, "questions": [first, {**first, "head": 3, "query": 8}]}))
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        page.goto(app_url + "/class")
        page.click("#class-start")
        page.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
        page.set_input_files("#class-load-plan input[type=file]", str(plan))
        wait_until(page, "() => !document.getElementById('class-plan-next').disabled")
        page.click("#class-join")  # the join link's text: the page, not a control, has the focus
        phase = "() => document.getElementById('class-phase').innerText"
        page.keyboard.press("PageDown")
        wait_until(page, "() => document.getElementById('class-prompt').innerText.includes('query 1')")
        for key, said in (("d", "Discuss"), ("v", "Vote 2"), ("r", "Revealed")):
            page.keyboard.press(key)
            wait_until(page, f"() => ({phase})().startsWith('{said}')")
        page.keyboard.press("PageDown")
        wait_until(page, "() => document.getElementById('class-prompt').innerText.includes('query 8')")
        assert page.evaluate(phase).startswith("Vote 1")
        page.click("#class-head")  # typing in a number box: its keys are its own
        page.keyboard.press("r")
        page.keyboard.press("Escape")
        page.click("#class-prompt")
        page.keyboard.press("d")  # had R revealed, D could not discuss
        wait_until(page, f"() => ({phase})().startsWith('Discuss')")
    finally:
        context.close()
