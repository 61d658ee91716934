"""Class mode's pages against WCAG 2.1 AA (axe-core, as tests/test_a11y.py runs it), light and dark: the start
page, the lecturer's page after a reveal with its figure, and a student's phone after the reveal."""

import pytest

from tests.test_a11y import violations

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_class_pages_have_no_axe_violations(browser, app_url, scheme):
    desk = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme=scheme, bypass_csp=True)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme, bypass_csp=True)
    try:
        lecturer, student = desk.new_page(), phone.new_page()
        lecturer.goto(app_url + "/class")
        lecturer.wait_for_selector("#class-start", state="visible")
        assert violations(lecturer) == []
        lecturer.click("#class-start")
        lecturer.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
        lecturer.click("#class-pose")
        lecturer.wait_for_selector("#class-prompt:has-text('which key')")
        student.goto(f"{app_url}/class/{lecturer.inner_text('#class-code')}")
        student.wait_for_selector("#class-choices label")
        assert violations(student) == []
        student.locator("#class-choices label").first.click()
        student.wait_for_selector("#class-student-result:has-text('Your answer so far')")
        lecturer.click("#class-reveal")
        lecturer.wait_for_selector("#class-results .js-plotly-plot")
        student.wait_for_selector("#class-student-result:has-text('The answer')")
        for page in (lecturer, student):
            found = violations(page)
            assert found == [], "\n".join(found)
    finally:
        desk.close()
        phone.close()
