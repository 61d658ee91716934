"""The pages in Chinese and Spanish, as a student's browser shows them: <html lang>, every tab in the language with
no English left, the switch that changes it with the page's state kept, copy link that keeps it, and axe on every
tab."""

import pytest

from dashboard import i18n
from tests.test_a11y import each_tab, violations, wait_drawn
from tests.test_languages import CJK, ENGLISH, KEPT, TRANSLATED

pytestmark = pytest.mark.browser


# The words a tab shows or reads out (the figures' text alternatives too), its formulas' alt text (TeX) left out.
SECTION_TEXT = """(id) => { const s = document.getElementById(id).cloneNode(true);
  s.querySelectorAll('img.formula, [hidden]').forEach(e => e.remove());
  return s.innerText; }"""


def platform_fonts(page, selector: str) -> list[dict]:
    """The fonts Chromium drew an element's text with, and how many glyphs each (DevTools' CSS domain)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]


@pytest.fixture(scope="module", params=TRANSLATED)
def page_in(request, browser, app_url):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, bypass_csp=True,
                                  locale="en-US")  # the URL's ?lang= wins over the browser's English
    page = context.new_page()
    page.goto(f"{app_url}/?lang={request.param}&h=4")
    wait_drawn(page, "example")
    yield request.param, page
    context.close()


def test_every_tab_is_in_the_page_s_language_and_axe_finds_nothing(page_in):
    lang, page = page_in
    assert page.evaluate("document.documentElement.lang") == lang
    if lang == "zh-CN":  # the system's CJK font draws the header's Chinese (fonts-noto-cjk), none fetched
        fonts = platform_fonts(page, "h1")
        assert [(f["familyName"], f["isCustomFont"]) for f in fonts] == [("Noto Sans CJK SC", False)]
    for tab in each_tab(page):
        text = page.evaluate(SECTION_TEXT, f"section-{tab}") + page.evaluate(SECTION_TEXT, "model-bar") + page.evaluate(
            "id => Array.from(document.querySelectorAll(`#${id} .modebar-btn`), b => b.dataset.title).join(' ')",
            f"section-{tab}")  # plotly's toolbar too
        assert ENGLISH.findall(KEPT.sub(" ", text)) == [], (tab, text[:300])
        if lang == "zh-CN":
            assert len(CJK.findall(text)) > 100, tab
        assert violations(page) == [], tab


def test_the_switch_reloads_the_page_in_the_chosen_language_with_its_state(browser, app_url):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="es-ES")
    page = context.new_page()
    page.goto(f"{app_url}/?tab=mixing&h=8")  # the browser asks for Spanish
    wait_drawn(page, "mixing")
    assert page.evaluate("document.documentElement.lang") == "es"
    assert "lang=es" in page.input_value("#share-link")  # copy link keeps the language the browser chose
    # each option is named in its own language, and says so for a screen reader
    said_in = page.evaluate("() => Array.from(document.querySelectorAll('#language-choice option'), o => o.lang)")
    assert [lang for lang in said_in if lang] == list(i18n.LANGUAGES)
    with page.expect_event("load"):  # the page again: a new document
        page.select_option("#language-choice", "zh-CN")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    wait_drawn(page, "mixing")
    params = page.evaluate("() => Object.fromEntries(new URLSearchParams(location.search))")
    assert params["lang"] == "zh-CN" and params["tab"] == "mixing" and params["h"] == "8"
    page.goto(f"{app_url}/?tab=mixing")  # the choice stays with this browser
    wait_drawn(page, "mixing")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert i18n.LANGUAGE_NAMES["zh-CN"] in page.locator("#language-choice").inner_text()
    context.close()
