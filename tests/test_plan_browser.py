"""A lecture plan in a real browser (issue 35): built by keys and clicks, saved, opened in a fresh browser, and run
with PageDown (a clicker's next) and PageUp, the controls following each step."""

import json

import pytest

from dashboard import lecture_plan as plans
from tests.browser import wait_until
from tests.test_browser import open_view

pytestmark = pytest.mark.browser

CONTROLS = """() => ({tab: document.querySelector('#tab input:checked')?.value,
  h: document.querySelector('#heads input:checked')?.value, seed: document.getElementById('seed')?.value,
  search: location.search})"""
STEPS = "() => document.querySelectorAll('#plan-pick input[type=radio]').length"


def controls_are(page, tab, h, seed):
    """Wait until the header's controls and the address show the step's view."""
    want = {"tab": tab, "h": str(h), "seed": str(seed)}
    try:
        wait_until(page, f"want => {{ const c = ({CONTROLS})(); return c.tab === want.tab && c.h === want.h"
                         f" && c.seed === want.seed; }}", want)
    except TimeoutError:
        raise AssertionError(f"{page.evaluate(CONTROLS)} is not {want}") from None


def add_view(page, notes):
    count = page.evaluate(STEPS)  # before the click: read after it, a quick answer had already added the step
    page.fill("#plan-notes", notes)
    page.click("#plan-add")
    try:
        wait_until(page, f"() => ({STEPS})() === {count + 1} && document.getElementById('plan-notes').value === ''")
    except TimeoutError:
        raise AssertionError(f"{page.inner_text('#plan-message')!r} at {page.url}") from None


def type_seed(page, seed):
    page.fill("#seed", "")
    page.locator("#seed").type(str(seed))
    page.keyboard.press("Enter")
    wait_until(page, f"() => new URLSearchParams(location.search).get('seed') === '{seed}'")


def test_a_plan_built_by_keys_and_clicks_is_saved_opened_elsewhere_and_run_with_page_down(page, browser, tmp_path):
    open_view(page, "?tab=example")
    page.click("#plan-panel summary")
    wait_until(page, "() => document.getElementById('plan-console').innerText.includes('No plan yet')")
    # step 1: eight heads (a key), seed 3 (typed)
    page.keyboard.press("8")
    wait_until(page, "() => location.search.includes('h=8')")
    type_seed(page, 3)
    add_view(page, "eight heads: <b>not bold</b>")
    # step 2: the mixing tab (a click), two heads (a key)
    page.locator("#tab label", has_text="Single vs multi-head").click()
    page.keyboard.press("2")
    wait_until(page, "() => location.search.includes('tab=mixing') && location.search.includes('h=2')")
    add_view(page, "one head cannot mix both clusters")
    # step 3: the learning tab, one head, seed 7
    page.locator("#tab label", has_text="Learning").click()
    wait_until(page, "() => location.search.includes('tab=learning')")
    page.locator("#heads label", has_text="1").click()
    wait_until(page, "() => location.search.includes('h=1')")
    type_seed(page, 7)
    add_view(page, "注意力: train it")
    # step 4: back to the worked example, four heads, seed 0
    page.locator("#tab label", has_text="Worked example").click()
    wait_until(page, "() => location.search.includes('tab=example')")
    page.keyboard.press("4")
    wait_until(page, "() => location.search.includes('h=4')")
    type_seed(page, 0)
    add_view(page, "")
    assert page.evaluate("() => document.querySelector('#plan-pick label b')") is None  # notes are text
    assert "<b>not bold</b>" in page.inner_text("#plan-pick")

    with page.expect_download() as download:
        page.click("#plan-save")
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    steps = plans.parse(saved.read_bytes(), __import__("dashboard.explorer", fromlist=["URL_PARAMS"]).URL_PARAMS)
    assert [s["notes"] for s in steps][:2] == ["eight heads: <b>not bold</b>", "one head cannot mix both clusters"]
    assert json.loads(saved.read_text())["version"] == 2
    assert page.errors == []

    # another browser (nothing in its storage): open the file, then run the plan with PageDown
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    fresh = other.new_page()
    fresh.errors = []
    fresh.on("pageerror", lambda e: fresh.errors.append(str(e)))
    fresh.base = page.base
    try:
        open_view(fresh, "?h=2&seed=9&tab=example")
        fresh.click("#plan-panel summary")
        fresh.set_input_files("#plan-open input[type=file]", str(saved))
        wait_until(fresh, f"() => ({STEPS})() === 4 && document.getElementById('plan-message').innerText"
                          ".includes('4 steps')")
        for tab, h, seed, notes in [("example", 8, 3, "eight heads"), ("mixing", 2, 3, "one head cannot"),
                                    ("learning", 1, 7, "注意力"), ("example", 4, 0, "no notes")]:
            fresh.keyboard.press("PageDown")
            controls_are(fresh, tab, h, seed)
            wait_until(fresh, "n => document.querySelector('.plan-notes-now')?.innerText.includes(n)", notes)
        wait_until(fresh, "() => document.getElementById('plan-console').innerText.includes('The plan ends here.')")
        fresh.keyboard.press("PageUp")
        controls_are(fresh, "learning", 1, 7)
        wait_until(fresh, "() => document.getElementById('plan-console').innerText.includes('Step 3 of 4')")
        fresh.keyboard.press("PageUp")
        controls_are(fresh, "mixing", 2, 3)
        wait_until(fresh, "() => document.querySelector('#plan-pick .badge')?.closest('label').innerText"
                          ".includes('one head cannot')")  # the current step is marked in the list
        # a forged file is refused with a message that names the step and the setting
        forged = tmp_path / "forged.json"
        forged.write_text(saved.read_text().replace("h=2", "h=3"))
        fresh.set_input_files("#plan-open input[type=file]", str(forged))
        wait_until(fresh, "() => document.getElementById('plan-message').innerText.includes('h = 3')")
        assert "Step 2" in fresh.inner_text("#plan-message")
        assert fresh.evaluate(STEPS) == 4  # the plan it had is kept
        assert fresh.errors == []
    finally:
        other.close()


def test_a_second_window_follows_the_plan_as_a_presenter_console(page, tmp_path):
    """The projector's window steps with the clicker, in lecture mode; a second window of the page (the same
    browser: the plan lives in its local storage) shows the current step's notes and what comes next."""
    from dashboard.explorer import URL_PARAMS

    steps = plans.check_steps([{"kind": "view", "view": "?tab=example&h=8&seed=3", "notes": "eight heads"},
                               {"kind": "view", "view": "?tab=mixing&h=1", "notes": "one head mixes one way"},
                               {"kind": "view", "view": "?h=2", "notes": "two heads"}], URL_PARAMS)
    saved = tmp_path / "plan.json"
    saved.write_text(plans.file_text(steps), encoding="utf-8")
    open_view(page, "?lecture=1")
    page.set_input_files("#plan-open input[type=file]", str(saved))
    wait_until(page, "() => document.getElementById('plan-message').textContent.includes('3 steps')")
    notes = page.context.new_page()  # the lecturer's laptop screen, beside the projector's
    notes.goto(page.base + "/?tab=mixing")
    notes.click("#plan-panel summary")
    wait_until(notes, "() => document.getElementById('plan-console').innerText.includes('3 steps')")
    page.bring_to_front()
    for k, (tab, h, seed) in enumerate([("example", 8, 3), ("mixing", 1, 0), ("example", 2, 0)]):
        page.keyboard.press("PageDown")
        controls_are(page, tab, h, seed)
        assert page.evaluate("() => document.documentElement.classList.contains('lecture')")  # lecture mode stays
        wait_until(notes, "([k, n]) => document.querySelector('.plan-notes-now')?.innerText.includes(n)"
                          " && document.getElementById('plan-console').innerText.includes(`Step ${k} of 3`)",
                   [k + 1, steps[k]["notes"]])
        if k + 1 < len(steps):
            assert steps[k + 1]["notes"] in notes.inner_text(".plan-next")
    assert notes.evaluate("() => new URLSearchParams(location.search).get('tab')") == "mixing"  # it stays put
    assert page.errors == []
