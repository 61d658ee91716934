"""A lecture plan in a real browser (issue 35): built by keys and clicks, saved, opened in a fresh browser, and run
with PageDown (a clicker's next) and PageUp, the controls following each step; and a whole lecture of ten steps,
views and class questions, run by keys with a projector, a notes window and five phones, saved and run again."""

import json

import pytest

from dashboard import lecture_plan as plans
from dashboard import questions, trainer
from dashboard.explorer import URL_PARAMS
from tests.browser import wait_until
from tests.test_browser import open_view
from tests.test_class_session_browser import BASE

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
    steps = plans.parse(saved.read_bytes(), URL_PARAMS)
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


# A lecture of ten steps (issue 35): seven views of the explorer and three class questions, notes on each.
LECTURE = [("view", "?tab=example&h=1", "one head: one pattern per query"),
           ("view", "?tab=example&h=4&weights=trained", "four trained heads, two roles"),
           ("question", {"template": "key", "head": 2, "query": 1}, "ask before the reveal"),
           ("view", "?tab=mixing&h=1", "one head cannot mix both clusters"),
           ("view", "?tab=mixing&h=2&seed=5", "two heads can"),
           ("question", {"template": "sharpest", "weights": "random", "h": 8, "scale": "tau", "tau": -10}, ""),
           ("view", "?tab=learning&h=2", "train it"),
           ("question", {"template": "floor", "train_seed": 0}, "the line is 3/8"),
           ("view", "?tab=clinic&bug=kq", "a bug that still learns"),
           ("view", "?tab=example&h=8&seed=3", "eight heads")]
PHONES = 5
RIGHT = (True, True, True, False, False)  # what each phone answers: the truth, or a wrong choice


def lecture_steps() -> list[dict]:
    steps = [{"kind": "view", "view": what, "notes": notes} if kind == "view" else
             {"kind": "question", **{**BASE, "timer": 0, **what}, "notes": notes} for kind, what, notes in LECTURE]
    return plans.check_steps(steps, URL_PARAMS)


def choose(phone, template, k):
    label = questions.option_label(template, k)
    choices = phone.locator("#class-choices label")
    (choices.filter(has_text=label).first if template == "floor" else choices.get_by_text(label, exact=True)).tap()
    phone.wait_for_selector("#class-student-feedback:has-text('Vote 1 sent')")


def run_lecture(context, phones, base, plan) -> list:
    """The lecture run with keys alone, from the opened plan to its end: the projector's window (the explorer,
    lecture mode) and class mode's stage in one browser, the lecturer's notes in a second window of it, and the
    phones. Returns what each step showed: the view's controls, or the question, its answers' summary and the
    rows marked right."""
    projector, notes, stage = (context.new_page() for _ in range(3))
    students = [p.new_page() for p in phones]
    for page in (projector, notes, stage, *students):
        page.errors = []
        page.on("pageerror", lambda e, page=page: page.errors.append(str(e)))
    projector.goto(base + "/?lecture=1")
    projector.set_input_files("#plan-open input[type=file]", str(plan))
    wait_until(projector, "() => document.getElementById('plan-message').textContent.includes('10 steps')")
    notes.goto(base + "/?tab=mixing")
    notes.click("#plan-panel summary")
    wait_until(notes, "() => document.getElementById('plan-console').innerText.includes('10 steps')")
    stage.goto(base + "/class")
    stage.click("#class-start")
    stage.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
    stage.set_input_files("#class-load-plan input[type=file]", str(plan))
    wait_until(stage, "() => !document.getElementById('class-plan-next').disabled")
    stage.click("#class-join")  # the join link's text: the page, not a control, has the focus
    code = stage.inner_text("#class-code")
    for s in students:
        s.goto(f"{base}/class/{code}")
    steps, shown, asked = lecture_steps(), [], 0
    for k, step in enumerate(steps):
        projector.bring_to_front()
        projector.keyboard.press("PageDown")
        wait_until(notes, "([k, n]) => document.getElementById('plan-console').innerText.includes(`Step ${k} of 10`)"
                          " && document.querySelector('.plan-notes-now')?.innerText.includes(n)",
                   [k + 1, step["notes"] or "no notes"])
        if k + 1 < len(steps):
            assert (steps[k + 1]["notes"] or "class question") in notes.inner_text(".plan-next")
        if step["kind"] == "view":
            want = plans.read_view(step["view"], URL_PARAMS, k)
            controls_are(projector, want.get("tab", "example"), want.get("h", 4), want.get("seed", 0))
            assert projector.evaluate("() => document.documentElement.classList.contains('lecture')")
            shown.append(projector.evaluate(CONTROLS)["search"])
            continue
        # a question: the notes window shows it as class mode poses it; the stage's PageDown poses it
        q = questions.question({k: v for k, v in step.items() if k not in ("kind", "notes")})[0]
        prompt = notes.inner_text(".plan-question")
        stage.bring_to_front()
        stage.keyboard.press("PageDown")
        asked += 1
        wait_until(stage, "p => document.getElementById('class-prompt').innerText === p", prompt)
        wrong = next(c for c in range(q["n"]) if c not in q.get("accepted", [q["truth"]]))
        for s, right in zip(students, RIGHT):
            s.wait_for_selector(f"#class-student-status:has-text('Question {asked} ')")
            assert s.inner_text("#class-student-prompt") == prompt
            # the figure the question is about, before the reveal
            s.wait_for_selector("#class-student-figure :is(.js-plotly-plot, table)")
            choose(s, step["template"], q["truth"] if right else wrong)
        stage.wait_for_selector(f"#class-count:has-text('{PHONES} answered vote 1')")
        stage.keyboard.press("r")
        stage.wait_for_selector("#class-results table.class-bars")
        shown.append((prompt, stage.inner_text("#class-results .class-summary"),
                      stage.eval_on_selector("#class-results table.class-bars",
                                             "t => [...t.querySelectorAll('tr.truth th')].map(e => e.innerText)")))
        for s, right in zip(students, RIGHT):
            s.wait_for_selector("#class-student-result:has-text('The answer')")
            assert s.inner_text("#class-student-result").endswith("Well predicted!") == right
    wait_until(notes, "() => document.getElementById('plan-console').innerText.includes('The plan ends here.')")
    assert notes.evaluate("() => new URLSearchParams(location.search).get('tab')") == "mixing"  # it stays put
    assert [p.errors for p in (projector, notes, stage, *students)] == [[]] * (3 + PHONES)
    return shown, notes


def test_a_ten_step_lecture_runs_by_keys_with_a_projector_notes_and_five_phones_saved_and_run_again(browser,
                                                                                                     app_url,
                                                                                                     tmp_path):
    """Issue 35's lecture, end to end: a plan of ten steps (views and class questions) is opened, run with keys
    alone (PageDown for the next step in the explorer and on class mode's stage, R for the reveal) on a 1920 x
    1080 projector with the notes in a second window and five phones answering, saved from the page, opened in a
    new browser and run again with the same result."""
    trainer.training_runs(0)  # the floor question's truth, here
    plan = tmp_path / "lecture.json"
    plan.write_text(plans.file_text(lecture_steps()), encoding="utf-8")
    phones = [browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
              for _ in range(PHONES)]
    first = browser.new_context(viewport={"width": 1920, "height": 1080})
    again = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        shown, notes = run_lecture(first, phones, app_url, plan)
        assert all("The class: 3 of 5 answers right (60%)." in s[1] for s in shown if isinstance(s, tuple))
        with notes.expect_download() as download:  # saved from the lecturer's window
            notes.click("#plan-save")
        saved = tmp_path / "saved.json"
        download.value.save_as(saved)
        assert json.loads(saved.read_text())["steps"] == lecture_steps()
        assert run_lecture(again, phones, app_url, saved)[0] == shown  # nothing in its storage but the file
    finally:
        for context in (first, again, *phones):
            context.close()
