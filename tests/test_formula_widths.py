"""Nothing clipped (issue 35): no display formula is wider than its box, on the two tabs with the widest ones, at
1280, 1440, 1920 and 390 px. At 1920 the page's text (and so a formula's ex) grows while the column stops at
container-xxl's width: MultiHead(X) = [head_1 ... head_h]W_O was 548 px in a 522 px box, cut by its scroll bar."""

import pytest

from tests.test_lecture_figures import open_page

pytestmark = pytest.mark.browser

TOO_WIDE = """() => [...document.querySelectorAll('section:not([hidden]) .math-display')].map(d => {
  const img = d.querySelector('img.formula');
  return {formula: (img?.alt || '').slice(0, 40), box: d.clientWidth, formula_px: img?.getBoundingClientRect().width,
          scroll: d.scrollWidth - d.clientWidth};
}).filter(f => f.scroll > 0 || f.formula_px > f.box + 0.5)"""


@pytest.mark.parametrize("width", [1280, 1440, 1920, 390])
@pytest.mark.parametrize("tab", ["example", "mixing"])
def test_no_display_formula_is_wider_than_its_column(browser, app_url, width, tab):
    page = open_page(browser, f"{app_url}/?tab={tab}", width, 1080 if width > 400 else 844)
    page.wait_for_selector(f"#section-{tab}:not([hidden]) .math-display img.formula")
    assert page.evaluate("() => document.querySelectorAll('section:not([hidden]) .math-display').length") >= 1
    assert page.evaluate(TOO_WIDE) == []
    page.context.close()
