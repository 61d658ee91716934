"""WCAG 2.1 AA: how axe-core (npm, tests/node; `make node-tools`) is run (on every tab, light and dark, desktop
and phone, in test_each_tab.py; on class mode's pages in test_class_a11y.py), and the keyboard and
screen-reader paths axe cannot see."""

from pathlib import Path

import pytest

from tests.browser import NEVER_IDLE, scroll_through, wait_until

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "node" / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0/2.1 A and AA, and axe's best practices (one h1, a main landmark, all content in landmarks).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
# Every graph shown drawn, described, and as wide as the window lets it be (after a turn to a phone, redrawn). A
# graph in a hidden box is not shown: the two settings side by side while no figure is chosen (compare.py).
DRAWN = """(section) => { const plots = [...document.querySelectorAll(`#${section} .js-plotly-plot`)]
    .filter(gd => !gd.closest('[hidden]'));
  return plots.length > 0 && plots.every(gd => gd._fullData && gd._fullData.length > 0
    && gd.querySelector('.figure-text') && gd._fullLayout.width <= window.innerWidth); }"""


def wait_drawn(page, tab):
    """Every graph of the tab drawn and described, once the page has been scrolled through."""
    scroll_through(page)
    wait_until(page, DRAWN, f"section-{tab}", timeout=40)


def each_tab(page):
    """Each tab of the explorer shown in turn (the page's own tab switch, set from the test) and drawn: its name."""
    from dashboard.limits import TABS

    for tab in TABS:
        page.evaluate("(t) => window.dash_clientside.set_props('tab', {value: t})", tab)
        wait_drawn(page, tab)
        yield tab


def wait_graph(page, graph):
    """One graph drawn and described, looked at as a student would."""
    wait_until(page, """id => { const gd = document.querySelector(`#${id} .js-plotly-plot`);
      return gd && gd._fullData && gd._fullData.length > 0 && gd.querySelector('.figure-text'); }""", graph,
               timeout=40, look_at=graph)


def violations(page) -> list[str]:
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `make node-tools`")
    page.evaluate(AXE.read_text())  # axe's own source, from npm; never a CDN
    # only the violations' nodes are collected: the passes' would take most of the time on a large page
    result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, "
                           "resultTypes: ['violations']})", TAGS)
    return [f"{v['id']}: {v['help']} -> {[n['target'] for n in v['nodes']][:4]}" for v in result["violations"]]


@pytest.fixture(scope="module")
def example(browser, app_url):
    """The worked example at h = 2, seed 3, every figure drawn: for the checks that only read it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(app_url + "/?h=2&seed=3")
    wait_drawn(page, "example")
    yield page
    context.close()


def test_each_figure_is_described_once_drawn_even_on_a_page_that_is_never_idle(browser, app_url):
    """The text alternatives are built right after a figure is painted, not in idle time: on a busy machine that
    came only at its 2 s timeout, and a screen reader waited that long."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(NEVER_IDLE)
    page = context.new_page()
    page.goto(app_url + "/?tab=mixing&h=2")
    wait_until(page, DRAWN, "section-mixing", timeout=40)
    context.close()


def test_page_structure(page):
    page.goto(page.base + "/?tab=equivariance")
    wait_drawn(page, "equivariance")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.locator("h1").count() == 1 and page.locator("main").count() == 1
    assert page.locator(".dash-dropdown-focus-target, [aria-hidden=true] [tabindex='0']").count() == 0


def test_heatmaps_have_a_reading_and_their_numbers(example):
    from dashboard.attention import multi_head_attention, worked_example

    page = example
    text = page.locator("#heatmaps .figure-text")
    A = multi_head_attention(*worked_example(3)[:5], 2).A
    reading = text.locator("p").inner_text()
    assert reading.startswith("head 1: 12 × 12") and f"to {A[0].max():.2f}" in reading
    tables = text.locator("table")
    assert tables.count() == 2
    cells = tables.nth(1).locator("tbody tr").nth(5).locator("td").all_inner_texts()
    assert cells == [f"{v:.2f}" for v in A[1, 5]]
    # the drawing itself is hidden from screen readers: the text stands for it
    assert page.locator("#heatmaps .main-svg:not([aria-hidden=true])").count() == 0


def test_toolbars_are_out_of_the_tab_order(example):
    page = example
    assert page.locator(".modebar-btn").count() > 0
    assert page.locator(".modebar-btn:not([tabindex='-1'])").count() == 0


def test_seed_is_typed_from_the_keyboard(page):
    page.goto(page.base + "/")
    page.wait_for_selector("#heatmaps .main-svg")
    page.focus("#seed")
    page.keyboard.press("Control+A")
    page.keyboard.type("42")
    page.keyboard.press("Enter")
    page.wait_for_url("**seed=42**", timeout=10000)
    # the heads are a radio group: arrow keys move along it
    page.focus("#heads input:checked")
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**h=8**", timeout=10000)


def test_the_cube_reads_as_one_table_entry_per_cell(example):
    """Each cube plane samples a cell at its four corners; its table lists each cell once, as A^(i) itself."""
    from dashboard.attention import multi_head_attention, worked_example

    page = example
    wait_until(page, "() => document.querySelectorAll('#cube .figure-text table').length === 2")
    A = multi_head_attention(*worked_example(3)[:5], 2).A
    table = page.locator("#cube .figure-text table").nth(1)
    assert table.locator("thead th").count() == 1 + 12 and table.locator("tbody tr").count() == 12
    assert table.locator("tbody tr").nth(7).locator("td").all_inner_texts() == [f"{v:.2f}" for v in A[1, 7]]
