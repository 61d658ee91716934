"""The lecture's keys work whatever was clicked last (issue 35): a tab, an h button, the lecture-mode switch, a
heatmap cell, a figure's present button; only a box being typed in, or a slider, keeps its own keys
(rules.keepsKeys, tested under Node too). ? shows the list of keys, in the page's language."""

import pytest

from tests.browser import header_control, wait_until
from tests.test_browser import open_view

pytestmark = pytest.mark.browser

CHECKED_H = "() => document.querySelector('#heads input:checked')?.value"
SELECTED_HEAD = "() => document.getElementById('sel-head')?.value"
TAB = "() => document.querySelector('#tab input:checked')?.value"


def click_cell(page):
    """A click on head 1's panel of the heatmaps: the drill-down's head follows (1)."""
    page.locator("#heatmaps .nsewdrag").first.click(position={"x": 4, "y": 4})  # key 0, query 0
    wait_until(page, "() => new URLSearchParams(location.search).get('key') === '0'")


def click_tabs(page):
    page.locator("#tab label", has_text="Single vs multi-head").click()
    page.locator("#tab label", has_text="Worked example").click()
    wait_until(page, "() => document.getElementById('sel-head')")  # the tab's view is back


CLICKS = {
    "a tab": click_tabs,
    "an h button": lambda page: page.locator("#heads label", has_text="2").click(),
    "the lecture-mode switch": lambda page: page.locator("#lecture").click(),
    "a heatmap cell": click_cell,
    "the theme switch": lambda page: header_control(page, "#theme label").first.click(),
}


@pytest.mark.parametrize("clicked", CLICKS)
def test_every_key_works_after_a_click_on_any_control(page, clicked):
    open_view(page, "?h=4")
    CLICKS[clicked](page)
    page.keyboard.press("8")
    wait_until(page, f"() => ({CHECKED_H})() === '8'")
    head = int(page.evaluate(SELECTED_HEAD))
    page.keyboard.press("ArrowRight")
    wait_until(page, f"() => ({SELECTED_HEAD})() === '{head % 8 + 1}'")
    page.keyboard.press("ArrowLeft")
    wait_until(page, f"() => ({SELECTED_HEAD})() === '{head}'")
    page.keyboard.press("ArrowLeft")  # round the end: from head 1 to head 8
    wait_until(page, f"() => ({SELECTED_HEAD})() === '{(head - 2) % 8 + 1}'")
    assert page.evaluate(TAB) == "example"  # the arrows moved the head, not the tabs
    page.keyboard.press("p")
    wait_until(page, "() => document.documentElement.classList.contains('presenting')")
    assert page.locator(".figure-frame.presented").count() == 1
    page.keyboard.press("Escape")
    wait_until(page, "() => !document.documentElement.classList.contains('presenting')")
    page.keyboard.press("?")
    wait_until(page, "() => !document.getElementById('shortcuts').hidden")
    page.keyboard.press("?")
    wait_until(page, "() => document.getElementById('shortcuts').hidden")
    assert page.errors == []


def test_quick_presses_each_count(page):
    """Three arrows pressed faster than a server answers move three heads, and three training steps (a lecturer
    stepping to head 4): each press steps from where the last one left. Each key is held 40 ms, as a hand or a
    clicker presses it (presses closer than a few milliseconds can reach Dash as one change)."""
    from dashboard import limits

    open_view(page, "?h=8")
    for _ in range(3):
        page.keyboard.press("ArrowRight", delay=40)
    try:
        wait_until(page, f"() => ({SELECTED_HEAD})() === '4'")
    except TimeoutError:
        raise AssertionError(f"{page.evaluate(SELECTED_HEAD)} {page.url}") from None
    page.goto(page.base + "/?tab=learning&step=400")
    wait_until(page, "() => document.querySelector('#learn-attention .js-plotly-plot')?._fullData?.length > 0")
    for _ in range(3):
        page.keyboard.press("ArrowLeft", delay=40)
    step = 400 - 3 * limits.SNAPSHOT_STEPS.step
    try:
        wait_until(page, f"() => new URLSearchParams(location.search).get('step') === '{step}'")
    except TimeoutError:
        raise AssertionError(page.url) from None
    assert page.errors == []


def test_a_box_being_typed_in_and_a_slider_keep_their_keys(page):
    open_view(page, "?h=4")
    page.fill("#seed", "")
    page.locator("#seed").type("8")  # a digit typed in the seed's box is the seed's, not h
    page.keyboard.press("Enter")
    wait_until(page, "() => new URLSearchParams(location.search).get('seed') === '8'")
    assert page.evaluate(CHECKED_H) == "4"
    slider = page.locator("#size [role=slider]")
    slider.focus()
    page.keyboard.press("ArrowRight")  # the slider's arrow: one more token per cluster, the same head
    wait_until(page, "() => new URLSearchParams(location.search).get('size') === '5'")
    assert page.evaluate(SELECTED_HEAD) == "1"
    assert page.errors == []


def test_the_learning_tab_steps_through_training_with_the_arrows(page):
    page.goto(page.base + "/?tab=learning&step=400")
    wait_until(page, "() => document.querySelector('#learn-attention .js-plotly-plot')?._fullData?.length > 0")
    page.locator("#tab label", has_text="Learning").click()  # a click on the tab leaves the keys to the page
    page.keyboard.press("ArrowLeft")
    wait_until(page, "() => new URLSearchParams(location.search).get('step') !== '400'")
    assert page.evaluate(TAB) == "learning"
    assert page.errors == []


def test_the_list_of_keys_is_in_the_page_s_language_and_large_in_lecture_mode(page):
    page.set_viewport_size({"width": 1920, "height": 1080})  # a projector
    page.goto(page.base + "/?lang=es&lecture=1")
    wait_until(page, "() => document.documentElement.classList.contains('lecture')")
    page.keyboard.press("?")
    wait_until(page, "() => !document.getElementById('shortcuts').hidden")
    text = page.inner_text("#shortcuts")
    assert "Esc" in text and "h = 8" in text and "head" not in text.lower()
    size = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#shortcuts dd')).fontSize)")
    assert size >= 24, size  # readable from the back of a hall
    # the whole list on the screen, its last key (? to close it) too: no scrolling in front of a class
    assert page.evaluate("() => { const e = document.getElementById('shortcuts'); const last = e.querySelector("
                         "'dd:last-of-type').getBoundingClientRect(); return e.scrollHeight <= e.clientHeight "
                         "&& last.bottom <= innerHeight; }")
    page.keyboard.press("Escape")  # closes it too
    wait_until(page, "() => document.getElementById('shortcuts').hidden")
    assert page.errors == []


def test_page_down_steps_the_lecture_plan_after_a_click_on_any_control(page, tmp_path):
    """A clicker's next (PageDown) moves the lecture plan on whatever was clicked last (plan.py)."""
    from dashboard import lecture_plan as plans
    from dashboard.explorer import URL_PARAMS

    views = [(1, 1), (2, 2), (8, 3), (1, 4), (2, 5), (4, 6)]  # (h, seed): one step for each click, and one more
    assert len(views) > len(CLICKS)
    steps = [{"kind": "view", "view": f"?tab=example&h={h}&seed={seed}", "notes": f"step {k + 1}"}
             for k, (h, seed) in enumerate(views)]
    saved = tmp_path / "plan.json"
    saved.write_text(plans.file_text(plans.check_steps(steps, URL_PARAMS)), encoding="utf-8")
    open_view(page, "?h=4")
    page.set_input_files("#plan-open input[type=file]", str(saved))  # the plan's panel may stay closed
    wait_until(page, "() => document.getElementById('plan-message').textContent.includes('6 steps')")
    for (clicked, click), (h, seed) in zip(CLICKS.items(), views):
        click(page)
        page.keyboard.press("PageDown")
        try:
            wait_until(page, f"() => ({CHECKED_H})() === '{h}' && document.getElementById('seed').value === '{seed}'"
                             f" && document.getElementById('plan-console').textContent.includes('step {seed}')")
        except TimeoutError:
            raise AssertionError(f"PageDown after a click on {clicked}: {page.url}") from None
    page.keyboard.press("PageUp")  # from step 5 back to step 4
    h, seed = views[len(CLICKS) - 2]
    wait_until(page, f"() => ({CHECKED_H})() === '{h}' && document.getElementById('seed').value === '{seed}'")
    assert page.errors == []
