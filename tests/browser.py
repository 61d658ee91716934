"""Headless Debian Chromium for the browser tests (never a downloaded browser), and waiting on the page."""

import time

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--enable-unsafe-swiftshader",  # software WebGL for the 3D cube
]

# True once Dash has no callback pending or running (dash.testing reads the same store flag) and every
# graph under the selector has drawn (dcc.Graph marks itself dash-graph--pending while Plotly draws or resizes).
SETTLED = """selector => !!window.store && !window.store.getState().isLoading
  && Array.from(document.querySelectorAll(`${selector} .dash-graph`)).every(
       g => !g.classList.contains('dash-graph--pending') && g.querySelector('.main-svg'))"""


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)


def wait_until(page, predicate: str, arg=None, timeout: float = 20.0, interval_ms: int = 50):
    """Run the JS function `predicate` with page.evaluate until it returns something truthy; return that.

    Not page.wait_for_function: with a string it `eval`s in the page, which works today only because
    DevTools evaluation is exempt from the page's CSP (no 'unsafe-eval')."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(predicate, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout} s: {predicate} with {arg!r}")
        page.wait_for_timeout(interval_ms)  # the poll interval; lets Playwright deliver page events meanwhile
