"""The learning tab restores itself from a link, and never shows one training seed's runs under another's number."""

import time

import pytest

from dashboard import training
from tests.browser import wait_until

pytestmark = pytest.mark.browser

LOSS_TITLES = """() => { const g = document.querySelector('#learn-loss .js-plotly-plot');
  return g && g._fullLayout.annotations ? g._fullLayout.annotations.map(a => a.text).join(' ') : ''; }"""


def h1_title(seed: int) -> str:
    return f"test MSE {training.train(1, seed).test_loss:.3f}"


def titles_until(page, expected: str, timeout: float = 60) -> list[str]:
    """Every text the loss figure's titles had, read each 50 ms, until they hold `expected`."""
    seen, deadline = [], time.monotonic() + timeout
    while not seen or expected not in seen[-1]:
        assert time.monotonic() < deadline, f"{expected!r} never drawn; drawn: {seen[-3:]}"
        seen.append(page.evaluate(LOSS_TITLES))
        page.wait_for_timeout(50)
    return seen


def test_a_link_opens_its_training_seed_step_and_surgery(page):
    own, other = h1_title(4), h1_title(0)
    assert own != other  # the two seeds' runs can be told apart on the page
    link = "/?tab=learning&h=2&train=4&step=100&off=1"
    page.goto(page.base + link)
    seen = titles_until(page, own)
    assert not any(other in titles for titles in seen)  # seed 0's runs never stood under "4"
    assert page.input_value("#learn-seed") == "4" and "Training seed 4," in page.inner_text("#learn-loss-text")
    wait_until(page, "() => document.querySelector('#learn-roles').innerText.startsWith('At step 100,')")
    page.wait_for_selector("#surgery-result:has-text('after this surgery')")
    assert page.locator("#surgery-off input:checked").input_value() == "1"
    # "copy link" copies this very view, in the page's language
    assert page.input_value("#learn-share-link") == page.base + link + "&lang=en"

    page.fill("#learn-seed", "2")  # typed, "train" not pressed
    page.press("#learn-seed", "Enter")
    seen = titles_until(page, h1_title(2))
    gone = next(k for k, titles in enumerate(seen) if own not in titles)
    assert not any(own in titles for titles in seen[gone:])  # once 2 is asked for, seed 4's runs do not come back
    page.wait_for_url("**train=2**")
    assert page.errors == []
