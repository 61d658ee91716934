"""Class mode in headless Chromium: a lecturer's page and a student's phone through peer instruction (vote,
discuss, vote again, reveal); the student's page never held the truth, nor the control token, before then."""

import json

import numpy as np
import pytest

from dashboard import trainer
from dashboard.state import Setting, model
from tests.browser import wait_until

pytestmark = pytest.mark.browser


def watch(page, base):
    """Record what the page received from the server, its errors, and every request line."""
    page.errors, page.urls, page.bodies = [], [], []
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.urls.append(r.url))

    def received(response):
        if "_dash-update-component" in response.url and response.status == 200:
            page.bodies.append(response.text())
    page.on("response", received)
    page.base = base
    return page


@pytest.fixture
def contexts(browser, app_url):
    lecturer = browser.new_context(viewport={"width": 1440, "height": 1000})
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    yield watch(lecturer.new_page(), app_url), watch(phone.new_page(), app_url)
    lecturer.close()
    phone.close()


def start_session(lecturer) -> str:
    lecturer.goto(lecturer.base + "/class")
    lecturer.wait_for_selector("#class-start", state="visible")
    lecturer.click("#class-start")
    lecturer.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
    return lecturer.inner_text("#class-code")


def test_peer_instruction_on_a_phone_and_the_projector(contexts):
    lecturer, student = contexts
    code = start_session(lecturer)
    assert lecturer.url == f"{lecturer.base}/class/{code}"  # the token is not in the address bar
    control = lecturer.input_value("#class-control-link")
    token = control.split("#control=")[1]
    assert control == f"{lecturer.base}/class/{code}#control={token}" and len(token) == 43
    assert lecturer.inner_text("#class-join") == f"{lecturer.base}/class/{code}"
    for width in (1920, 390, 1440):  # the join link may wrap, never inside its code (one line box)
        lecturer.set_viewport_size({"width": width, "height": 1000})
        wait_until(lecturer, "() => document.getElementById('class-join-link-code').getClientRects().length === 1")
        # nothing wider than the screen: the eight question kinds wrap (they ran 200 px past a phone's edge)
        wide = lecturer.evaluate("() => [...document.querySelectorAll('#class-lecturer *')].filter(e =>"
                                 " e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)"
                                 ".map(e => e.id || e.className).slice(0, 3)")
        assert wide == [], (width, wide)

    # trained weights (the form's default), h = 4: head 3, query 8 (decided past the margin)
    lecturer.fill("#class-head", "3")
    lecturer.fill("#class-query", "8")
    lecturer.click("#class-pose")
    lecturer.wait_for_selector("#class-prompt:has-text('which key will query 8 attend to most?')")
    assert lecturer.locator("#class-discuss").is_enabled() and not lecturer.locator("#class-vote2").is_enabled()
    trainer.training_runs(0)
    row = model(Setting(4, 0, weights="trained")).result.A[2, 8]
    truth, wrong = int(row.argmax()), int(row.argmin())

    student.goto(student.base + "/class")  # a student types the code from the projector
    student.fill("#class-join-code", code.lower())
    student.keyboard.press("Enter")
    student.wait_for_selector("#class-student-prompt:has-text('which key will query 8')")
    assert student.url == f"{student.base}/class/{code}"
    lecturer.wait_for_selector("#class-count:has-text('1 joined · 0 answered vote 1')")
    student.locator("#class-choices label", has_text=f"key {wrong}").first.tap()
    student.wait_for_selector(f"#class-student-result:has-text('Your answer so far: key {wrong}.')")
    lecturer.wait_for_selector("#class-count:has-text('1 joined · 1 answered vote 1')")

    lecturer.click("#class-discuss")
    lecturer.wait_for_selector("#class-phase:has-text('Discuss with your neighbour')")
    student.wait_for_selector("#class-student-status:has-text('discuss your answer with your neighbour')")
    assert not student.locator("#class-choices").is_visible()
    lecturer.click("#class-vote2")
    student.wait_for_selector("#class-student-status:has-text('vote 2')")
    student.locator("#class-choices label", has_text=f"key {truth}").first.tap()
    student.wait_for_selector(f"#class-student-result:has-text('Your second vote so far: key {truth}.')")
    lecturer.wait_for_selector("#class-count:has-text('1 joined · 1 answered vote 2')")
    before = student.inner_text("body")
    assert "The answer" not in before
    received = "".join(student.bodies)
    assert received and "truth" not in received and "The answer" not in received and "Well predicted" not in received

    lecturer.click("#class-reveal")
    lecturer.wait_for_selector("#class-results:has-text('Vote 1: 0 of 1 answer right (0%). Vote 2: 1 of 1 answer "
                               "right (100%).')")
    assert lecturer.locator("#class-results table th", has_text="vote 2").count() >= 1
    assert lecturer.locator("#class-why .js-plotly-plot").count() == 1  # the figure that explains it
    student.wait_for_selector(f"#class-student-result:has-text('You answered key {wrong} then key {truth}.')")
    student.wait_for_selector("#class-student-result:has-text('Well predicted!')")

    # The token went into callback bodies only: never into a request line, and never to the student.
    for page in (lecturer, student):
        assert all(token not in u for u in page.urls)
        assert all(u.startswith(page.base) for u in page.urls)
        assert page.errors == []
    assert token not in "".join(student.bodies) + student.content()
    assert all(json.loads(b).get("response") for b in student.bodies)
    assert np.isfinite(row).all()


def test_a_reload_keeps_the_lecturer_in_control_and_the_start_page_leads_back(contexts, browser):
    lecturer, _ = contexts
    code = start_session(lecturer)
    control = lecturer.input_value("#class-control-link")
    lecturer.fill("#class-head", "2")  # trained, h = 4: head 2's query 1 is decided past the margin
    lecturer.fill("#class-query", "1")
    lecturer.click("#class-pose")
    lecturer.wait_for_selector("#class-prompt:has-text('which key')")
    lecturer.reload()
    lecturer.wait_for_selector("#class-prompt:has-text('which key')")  # the question is back after the reload
    assert lecturer.locator("#class-reveal").is_visible()

    lecturer.goto(lecturer.base + "/")  # to the explorer and back through its "class mode" link
    lecturer.click("a[href='/class']")
    lecturer.get_by_role("link", name=f"Back to session {code}").click()
    lecturer.wait_for_selector("#class-prompt:has-text('which key')")
    assert lecturer.locator("#class-pose").is_visible() and "#control" not in lecturer.url

    laptop = browser.new_context()
    try:
        other = watch(laptop.new_page(), lecturer.base)
        other.goto(control)
        other.wait_for_selector("#class-prompt:has-text('which key')")
        assert "#control" not in other.url and other.locator("#class-pose").is_visible()
        joined = watch(laptop.new_page(), lecturer.base)  # a new tab has its own sessionStorage
        joined.goto(control.split("#")[0])  # the join link alone: a student's page
        joined.wait_for_selector("#class-student-prompt:has-text('which key')")
        assert not joined.locator("#class-pose").is_visible()
    finally:
        laptop.close()

    # "end session" asks first: dismissed, the session goes on; accepted, it is gone.
    lecturer.once("dialog", lambda dialog: dialog.dismiss())
    lecturer.get_by_role("button", name="end session").click()
    lecturer.click("#class-reveal")  # the session still runs
    lecturer.wait_for_selector("#class-status:has-text('Revealed: answers are closed.')")
    lecturer.once("dialog", lambda dialog: dialog.accept())
    lecturer.get_by_role("button", name="end session").click()
    lecturer.wait_for_selector("#class-start-status:has-text('The session has ended: its answers are deleted.')")
    assert lecturer.url == lecturer.base + "/class" and lecturer.locator("#class-resume").inner_text() == ""
