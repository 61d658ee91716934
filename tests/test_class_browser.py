"""Class mode in two headless Chromium contexts, a lecturer's and a student's phone: the student answers,
the lecturer reveals, and the student's page never held the truth, nor the control token, before then."""

import json

import pytest

from dashboard.attention import multi_head_attention, worked_example

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


def test_a_student_answers_and_sees_the_truth_only_after_the_reveal(contexts):
    lecturer, student = contexts
    lecturer.goto(lecturer.base + "/class")
    lecturer.wait_for_selector("#class-start", state="visible")
    assert not lecturer.locator("#main").is_visible() and not lecturer.locator(".controls").is_visible()
    lecturer.click("#class-start")
    lecturer.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
    code = lecturer.inner_text("#class-code")
    assert lecturer.url == f"{lecturer.base}/class/{code}"  # the token is not in the address bar
    control = lecturer.input_value("#class-control-link")
    token = control.split("#control=")[1]
    assert control == f"{lecturer.base}/class/{code}#control={token}" and len(token) >= 43
    assert lecturer.inner_text("#class-join") == f"{lecturer.base}/class/{code}"

    # head 3, query 7 of h = 4, seed 0: the form's head and query
    lecturer.fill("#class-head", "3")
    lecturer.fill("#class-query", "7")
    lecturer.click("#class-pose")
    lecturer.wait_for_selector("#class-prompt:has-text('In head 3, which key will query 7 attend to most?')")
    truth = int(multi_head_attention(*worked_example(0)[:5], 4).A[2, 7].argmax())
    wrong = (truth + 1) % 12

    student.goto(student.base + "/class/" + code)
    student.wait_for_selector("#class-student-prompt:has-text('which key will query 7')")
    assert not student.locator("#main").is_visible()
    student.locator("#class-choices label", has_text=f"key {wrong}").first.tap()
    student.wait_for_selector(f"#class-student-result:has-text('Your answer so far: key {wrong}.')")
    lecturer.wait_for_selector("#class-count:has-text('1 answer so far')")
    before = student.inner_text("body")
    assert "The answer" not in before
    received = "".join(student.bodies)
    assert received and "truth" not in received and "The answer" not in received and "Well predicted" not in received

    lecturer.click("#class-reveal")
    lecturer.wait_for_selector(f"#class-results:has-text('1 answer. The answer: key {truth}, chosen by 0 of 1.')")
    assert lecturer.locator("#class-results .softmax-row tr.selected th").inner_text() == str(truth)  # drill-down
    student.wait_for_selector(f"#class-student-result:has-text('Your answer: key {wrong}. The answer: key {truth}.')")

    # The token went into callback bodies only: never into a request line, and never to the student.
    for page in (lecturer, student):
        assert all(token not in u for u in page.urls)
        assert all(u.startswith(page.base) for u in page.urls)
        assert page.errors == []
    assert token not in "".join(student.bodies) + student.content()
    assert all(json.loads(b).get("response") for b in student.bodies)


def test_a_reload_keeps_the_lecturer_in_control_and_the_control_link_opens_another_tab(contexts, browser):
    lecturer, _ = contexts
    lecturer.goto(lecturer.base + "/class")
    lecturer.click("#class-start")
    lecturer.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
    control = lecturer.input_value("#class-control-link")
    lecturer.click("#class-pose")
    lecturer.wait_for_selector("#class-prompt:has-text('which key')")
    lecturer.reload()
    lecturer.wait_for_selector("#class-prompt:has-text('which key')")  # the question is back after the reload
    assert lecturer.locator("#class-reveal").is_visible()

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
    assert lecturer.url == lecturer.base + "/class"
