"""Each tab at h = 8 with trained weights, opened once on a desktop (1440x900) and once on a phone (390x844,
touch), every figure drawn, then read by every check that only looks: axe-core (WCAG 2.1 AA) in light and dark,
tick labels that read and clear of the axis titles, formulas that fit their column, and on the phone no sideways scroll and no toolbar,
colour bar or legend on top of anything. One load per tab and device: a load and its draws are most of a
browser test's time on this machine."""

import pytest

from dashboard.limits import TABS
from tests.browser import wait_until
from tests.test_a11y import violations, wait_drawn
from tests.test_display import COLLISIONS
from tests.test_lecture_figures import FIGURE_TEXT, PHONE_BOXES, meet

pytestmark = pytest.mark.browser

# The display formulas that do not fit their column (they scroll sideways), by their TeX.
WIDE_FORMULAS = """(section) => Array.from(document.querySelectorAll(`#${section} .math-display`))
  .filter(box => box.scrollWidth > box.clientWidth + 1).map(box => box.querySelector('img').alt)"""


@pytest.fixture(scope="module", params=list(TABS))
def tab(request):
    return request.param


def open_tab(browser, app_url, tab, width, height, phone=False):
    # bypass_csp lets axe's source be evaluated in the page; the app's own scripts run as always
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone,
                                  bypass_csp=True)
    page = context.new_page()
    page.goto(f"{app_url}/?tab={tab}&h=8&weights=trained")
    wait_drawn(page, tab)
    return page


@pytest.fixture(scope="module")
def desktop(browser, app_url, tab):
    page = open_tab(browser, app_url, tab, 1440, 900)
    yield page
    page.context.close()


@pytest.fixture(scope="module")
def phone(browser, app_url, tab):
    page = open_tab(browser, app_url, tab, 390, 844, phone=True)
    yield page
    page.context.close()


def axe_in(page, schemes) -> dict:
    """axe's violations in each colour scheme, as the system's setting switches it."""
    found = {}
    for scheme in schemes:
        page.emulate_media(color_scheme=scheme)
        wait_until(page, "s => document.documentElement.dataset.bsTheme === s", scheme)
        found[scheme] = violations(page)
    return found


def test_tick_labels_read_on_a_desktop(desktop, tab):
    small = [t for t in desktop.evaluate(FIGURE_TEXT, f"section-{tab}") if t["tick"] and t["size"] < 12]
    assert small == [], small[:5]


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_axis_titles_clear_their_tick_labels_and_no_label_is_cut(request, device, tab):
    """Issue 11's phone: W_O's "from head i" lost its first letters."""
    assert request.getfixturevalue(device).evaluate(COLLISIONS, f"section-{tab}") == []


def test_every_display_formula_fits_its_column_on_a_desktop(desktop, tab):
    """Read whole at 1440; on a phone one may scroll in its own box (a11y.js lets keys reach it)."""
    assert desktop.evaluate(WIDE_FORMULAS, f"section-{tab}") == []


def test_no_axe_violations_on_a_desktop(desktop, tab):
    found = axe_in(desktop, ("light", "dark"))
    assert found == dict.fromkeys(found, []), found


def test_on_a_phone_the_page_does_not_scroll_sideways(phone):
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def test_on_a_phone_no_toolbar_colour_bar_or_legend_covers_anything(phone, tab):
    graphs = phone.evaluate(PHONE_BOXES, f"section-{tab}")
    covered = [(g["graph"], t["text"]) for g in graphs if g["modebar"] for t in g["titles"] if meet(g["modebar"], t)]
    assert covered == []
    on_a_plot = [(g["graph"], p["id"]) for g in graphs for bar in g["colorbars"] for p in g["plots"] if meet(bar, p)]
    assert on_a_plot == []
    on_a_label = [(g["graph"], t["text"]) for g in graphs if g["legend"] for t in g["labels"] if meet(g["legend"], t)]
    assert on_a_label == []


def test_no_axe_violations_on_a_phone(phone, tab):
    found = axe_in(phone, ("dark", "light"))
    assert found == dict.fromkeys(found, []), found
