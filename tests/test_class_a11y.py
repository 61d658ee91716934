"""Class mode's pages against WCAG 2.1 AA (axe-core, as tests/test_a11y.py runs it), light and dark, and with a
lecturer and a student whose browsers ask for two other languages: the start page, the lecturer's page after a
reveal with its figure, and a student's phone after the reveal."""

import pytest

from tests.browser import wait_until
from tests.test_a11y import violations

pytestmark = pytest.mark.browser
TEXT = "id => document.getElementById(id).innerText"
LOCALES = {"en": "en-US", "es": "es-ES", "zh-CN": "zh-CN"}  # what each browser asks for (Accept-Language)


@pytest.mark.parametrize(("scheme", "lecturer_lang", "student_lang"),
                         [("light", "en", "en"), ("dark", "en", "en"), ("light", "es", "zh-CN")])
def test_class_pages_have_no_axe_violations(browser, app_url, scheme, lecturer_lang, student_lang):
    desk = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme=scheme, bypass_csp=True,
                               locale=LOCALES[lecturer_lang])
    phone = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme, bypass_csp=True,
                                locale=LOCALES[student_lang])
    try:
        lecturer, student = desk.new_page(), phone.new_page()
        lecturer.goto(app_url + "/class")
        lecturer.wait_for_selector("#class-start", state="visible")
        assert violations(lecturer) == []
        lecturer.click("#class-start")
        lecturer.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
        lecturer.fill("#class-head", "2")  # trained, h = 4: head 2's query 1 is decided past the margin
        lecturer.fill("#class-query", "1")
        lecturer.click("#class-pose")
        wait_until(lecturer, "id => document.getElementById(id).innerText.length > 20", "class-prompt")
        student.goto(f"{app_url}/class/{lecturer.inner_text('#class-code')}")
        student.wait_for_selector("#class-choices label")
        assert violations(student) == []
        student.locator("#class-choices label").first.click()
        wait_until(student, "id => document.getElementById(id).innerText.length > 0", "class-student-result")
        answered = student.evaluate(TEXT, "class-student-result")
        lecturer.click("#class-reveal")
        lecturer.wait_for_selector("#class-why .js-plotly-plot")
        wait_until(student, "([id, before]) => document.getElementById(id).innerText !== before",
                   ["class-student-result", answered])  # the reveal reached the phone
        langs = [page.evaluate("document.documentElement.lang") for page in (lecturer, student)]
        assert langs == [lecturer_lang, student_lang]
        for page in (lecturer, student):
            found = violations(page)
            assert found == [], "\n".join(found)
    finally:
        desk.close()
        phone.close()
