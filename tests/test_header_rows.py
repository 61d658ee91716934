"""Issue 37, finding 7: the explorer's header keeps its size with classic scrollbars, which take 15 px of the page's
width (Playwright starts Chromium with --hide-scrollbars, which hides them, so this test starts it without): at
most 12% of a 390 x 844 phone with every tab on screen, and one row at 1440 and 1920, in every language and in
lecture mode (assets/site/header.css, "compact")."""

import pytest

from dashboard import i18n
from tests.browser import CHROMIUM, CHROMIUM_FLAGS, wait_until

pytestmark = pytest.mark.browser

# The header's parts, each one box: the model's controls, the menu (or its button), the tabs.
MEASURE = """() => {
  const header = document.querySelector('.controls');
  const shown = [...header.querySelectorAll('.header-model, .navbar-toggler, .header-menu, .tabbar')]
    .filter(e => e.getClientRects().length && getComputedStyle(e).display !== 'none'
                 && e.getBoundingClientRect().width > 1);
  const tabs = document.querySelector('#tab');
  return {height: header.getBoundingClientRect().height,
          scrollbar: window.innerWidth - document.documentElement.clientWidth,
          width: document.documentElement.clientWidth,
          tops: shown.map(e => e.getBoundingClientRect().top),
          bottoms: shown.map(e => e.getBoundingClientRect().bottom),
          rights: [...header.querySelectorAll('#heads label, #seed, #tab label, .navbar-toggler')]
            .filter(e => e.getClientRects().length).map(e => e.getBoundingClientRect().right),
          tabsCut: tabs.scrollWidth > tabs.clientWidth + 1};
}"""


@pytest.fixture(scope="module")
def classic(browser):
    """Chromium as a school's Windows or Linux desktop draws it: classic scrollbars (the run's Playwright)."""
    launched = browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True,
                                           ignore_default_args=["--hide-scrollbars"])
    yield launched
    launched.close()


@pytest.mark.parametrize("lang", list(i18n.LANGUAGE_NAMES))
@pytest.mark.parametrize("lecture", [False, True], ids=["page", "lecture"])
def test_the_header_keeps_its_rows_with_a_classic_scrollbar(classic, app_url, lang, lecture):
    page = classic.new_page(viewport={"width": 1440, "height": 900}, reduced_motion="reduce")
    try:
        page.goto(f"{app_url}/?lang={lang}" + ("&lecture=1" if lecture else ""))
        page.wait_for_selector("#heatmaps .main-svg", timeout=30000)
        for width, height in ((390, 844), (1440, 900), (1920, 1080)):
            if lecture and width == 390:
                continue  # lecture mode is for the projector
            page.set_viewport_size({"width": width, "height": height})
            wait_until(page, "w => document.documentElement.clientWidth < w", width)
            m = page.evaluate(MEASURE)
            where = (lang, lecture, width, m)
            assert m["scrollbar"] == 15, where  # the classic scrollbar is there, taking its width
            assert all(r <= m["width"] + 0.5 for r in m["rights"]) and not m["tabsCut"], where
            if width == 390:
                assert m["height"] <= 0.12 * height, where
            else:  # one row: every part side by side, none below another
                assert max(m["tops"]) < min(m["bottoms"]), where
                assert m["height"] <= 0.08 * height, where
    finally:
        page.close()
