"""The bug clinic in headless Chromium: open it, switch a bug, and solve a mystery, as a student would."""

import re

import numpy as np
import pytest

from dashboard import bugs
from dashboard.attention import worked_example
from tests.browser import SETTLED, scroll_through, wait_until
from tests.test_explain_browser import CELL_CENTRE
from tests.test_browser import query

pytestmark = pytest.mark.browser

# The drawn heatmaps of both layers, [z of each panel], once Plotly has drawn them.
PANELS = """() => ['clinic-heatmaps', 'clinic-buggy-heatmaps'].flatMap(id => {
  const gd = document.querySelector(`#${id} .js-plotly-plot`);
  return gd && gd._fullData ? gd._fullData.map(t => Array.from(t.z, row => Array.from(row))) : [null]; })"""


def open_clinic(page, search=""):
    page.goto(page.base + "/?tab=clinic" + search)
    scroll_through(page)
    wait_until(page, SETTLED, "#section-clinic", timeout=60)


def drawn_pair(page, bug, h=4, seed=0):
    """Wait until the heatmaps show the correct layer's and `bug`'s weights, head by head."""
    ex = worked_example(seed)
    right, wrong = bugs.layer(*ex[:5], h), bugs.layer(*ex[:5], h, bug)
    expected = [*(bugs.layer(*ex[:5], h, causal=True) if bug.causal else right).A, *wrong.A]

    page.locator("#clinic-buggy-heatmaps").scroll_into_view_if_needed()  # a figure draws when it is near the screen

    def matches():
        z = page.evaluate(PANELS)
        return None not in z and len(z) == 2 * h and np.allclose(z, expected, atol=1e-6)

    deadline = 40
    while not matches():
        page.wait_for_timeout(100)
        deadline -= 0.1
        assert deadline > 0, f"the heatmaps never showed {bug.key}"


def test_open_the_clinic_and_switch_a_bug(page):
    open_clinic(page)
    first = bugs.BUGS[0]
    drawn_pair(page, first)
    assert page.locator("#clinic-story h3").first.inner_text() == first.name
    assert page.locator("#model-bar").is_visible()  # the model bar drives the clinic
    page.locator("#clinic-bug label", has_text="heads split without the transpose").click()
    page.wait_for_url("**bug=reshape**", timeout=10000)
    drawn_pair(page, bugs.BUGS_BY_KEY["reshape"])
    wait_until(page, "() => document.querySelector('#clinic-story h3')?.textContent === "
                     "'heads split without the transpose'")
    table = page.locator("#clinic-table tbody tr")
    assert table.nth(1).locator("td").last.inner_text() == "caught"  # equivariance catches the reshape
    assert "FuxiCTR issue #30" in page.locator("#clinic-story").inner_text()
    # the catch table: one row a bug, the reshape's row caught by equivariance and the reference
    row = page.locator("#clinic-catches tbody tr", has_text="heads split without the transpose")
    assert row.locator("td").all_inner_texts() == ["missed", "caught", "caught", "missed"]
    # a click on the buggy layer's head 2, query 5, key 0: its path, and the cell outlined on both layers
    point = page.evaluate(CELL_CENTRE, ["clinic-buggy-heatmaps", 1, 5, 0])
    page.mouse.click(point["x"], point["y"])
    X, W_Q = worked_example(0)[:2]
    q = (X @ W_Q)[5, 2:4], (X @ W_Q).reshape(4, 12, 2)[1, 5]  # head 2's query 5, correct and as the bug cuts it
    said = (f"first number that differs is q⁽²⁾_5, query 5 in head 2: ({q[0][0]:+.3f}, {q[0][1]:+.3f}) in the correct "
            f"layer, ({q[1][0]:+.3f}, {q[1][1]:+.3f}) in the layer with the bug")
    wait_until(page, "(text) => document.querySelector('#clinic-path').innerText.includes(text)", said)
    assert [page.input_value(f"#clinic-{box}") for box in ("head", "query", "key")] == ["2", "5", "0"]
    wait_until(page, """() => ['clinic-heatmaps', 'clinic-buggy-heatmaps'].every(id => {
      const s = document.querySelector(`#${id} .js-plotly-plot`).layout.shapes;
      return s.length === 1 && s[0].xref === 'x2' && (s[0].x0 + s[0].x1) / 2 === 0 && (s[0].y0 + s[0].y1) / 2 === 5;
    })""")
    assert page.errors == [] and all(u.startswith(page.base) for u in page.requests)



def test_new_mystery_takes_the_named_bug_out_of_the_url(page):
    """Issue 36, finding 11: "New mystery" from a named bug leaves no bug= in the URL, which would give it away."""
    open_clinic(page, "&h=2&bug=kq")
    assert query(page)["bug"] == "kq"
    page.locator("#clinic-new-mystery").click()
    page.wait_for_url(re.compile(r".*mystery=[1-9]\d*.*"), timeout=10000)
    assert "bug" not in query(page), page.url
    page.locator("#clinic-picker").wait_for(state="hidden")  # the bug's buttons go with it
    assert "bug" not in query(page) and page.errors == [], page.url

def test_a_mystery_from_a_link_and_from_the_button(page):
    open_clinic(page, "&h=2&mystery=17")
    mystery = bugs.mystery(17)
    drawn_pair(page, mystery, h=2)
    assert page.locator("#clinic-picker").is_hidden() and page.locator("#clinic-answer-box").is_visible()
    story = page.locator("#clinic-story").inner_text()
    assert "Mystery 17" in story and mystery.name not in story
    assert mystery.name not in page.locator("#clinic-headline").inner_text()
    wrong = next(b for b in bugs.BUGS if b.key != mystery.key and b.causal == mystery.causal)
    page.locator("#clinic-answer label", has_text=wrong.name).click()
    page.locator("#clinic-submit").click()
    wait_until(page, "() => document.querySelector('#clinic-verdict .wrong')")
    assert page.locator("#clinic-verdict").inner_text().startswith("Not that one")
    page.locator("#clinic-answer label", has_text=mystery.name).click()
    wait_until(page, "() => !document.querySelector('#clinic-verdict .wrong')")  # a new answer clears the verdict
    page.locator("#clinic-submit").click()
    wait_until(page, "() => document.querySelector('#clinic-verdict .right')")
    assert page.locator("#clinic-verdict").inner_text().startswith(f"Right: it was “{mystery.name}”")
    # another mystery: a new number in the URL, the verdict cleared; then back to the named bugs
    page.locator("#clinic-new-mystery").click()
    page.wait_for_url(re.compile(r".*mystery=(?!17\b)\d+.*"), timeout=10000)
    number = int(query(page)["mystery"])
    drawn_pair(page, bugs.mystery(number), h=2)
    # the verdict clears in its own round trip, which may land after the figures
    wait_until(page, "() => document.querySelector('#clinic-verdict').innerText === ''")
    page.locator("#clinic-leave-mystery").click()
    page.wait_for_url("**mystery=0**", timeout=10000)
    page.locator("#clinic-picker").wait_for(state="visible")
    assert page.locator("#clinic-answer-box").is_hidden() and page.errors == []
