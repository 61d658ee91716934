"""Headless Debian Chromium for the browser tests (never a downloaded browser), and waiting on the page."""

import itertools
import os
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


class ReducedMotion:
    """A browser whose new contexts ask for reduced motion unless told otherwise. Bootstrap scrolls smoothly
    for everyone else, and each scroll a test makes then takes 0.4 s of animation before the page settles.
    (Playwright emulates the media feature per context, so a Chromium switch cannot set it.)

    Each context is also a device of its own address, as a class's phones and a lecturer's laptop are: it sends
    X-Real-IP, which the test server believes from 127.0.0.1 (conftest.app_url sets TRUSTED_PROXIES, as
    deploy/serve.py does for its nginx). Otherwise every session a run starts counts against one address, and
    class mode's bound of live sessions per address (sessions.MAX_SESSIONS_PER_OWNER) refused the eleventh start
    of a test run, whichever test that was."""

    def __init__(self, browser):
        self._browser = browser
        self._devices = itertools.count(1)

    def new_context(self, **options):
        device = next(self._devices)
        address = {"X-Real-IP": f"10.{os.getpid() % 250}.{device // 250}.{device % 250 + 1}"}
        return self._browser.new_context(**{"reduced_motion": "reduce", "extra_http_headers": address, **options})

    def __getattr__(self, name):
        return getattr(self._browser, name)


def wait_until(page, predicate: str, arg=None, timeout: float = 20.0, interval_ms: int = 50, look_at: str = ""):
    """Run the JS function `predicate` with page.evaluate until it returns something truthy; return that.
    With `look_at`, each poll first scrolls that element to the middle of the screen, as a student looking at
    it would (a figure draws near the screen); it is found by id each time, since dcc.Graph replaces its
    element as it loads.

    Not page.wait_for_function: with a string it `eval`s in the page, which works today only because
    DevTools evaluation is exempt from the page's CSP (no 'unsafe-eval')."""
    deadline = time.monotonic() + timeout
    while True:
        if look_at:
            page.evaluate("id => document.getElementById(id)?.scrollIntoView({block: 'center'})", look_at)
        value = page.evaluate(predicate, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout} s: {predicate} with {arg!r}")
        page.wait_for_timeout(interval_ms)  # the poll interval; lets Playwright deliver page events meanwhile


def header_control(page, selector: str):
    """A control of the explorer's header menu (theme, lecture mode, class mode, language). On a phone, and in
    lecture mode below 2200 px, the menu waits behind its button (assets/site/header.css), which this opens."""
    control = page.locator(selector)
    if not control.first.is_visible():
        page.locator(".controls .navbar-toggler").click()
    return control


# An init script for a page whose browser is never idle: what waits for idle time never runs.
NEVER_IDLE = "window.requestIdleCallback = () => 0;"

# Resolves after the next two frames: a scroll's check of which graphs came near the screen has run. A page
# that draws no frame (hidden, or its renderer stuck) fails the test in 10 s: page.evaluate has no timeout.
TWO_FRAMES = """() => new Promise((resolve, reject) => {
  requestAnimationFrame(() => requestAnimationFrame(resolve));
  setTimeout(() => reject(new Error('no frame drawn in 10 s')), 10000);
})"""


def scroll_through(page) -> None:
    """Scroll down the shown tab and back up, as a student reading it would. A figure draws while it is
    within half a screen of the viewport (dashboard/explorer/gate.py), so after this every graph of the tab
    has asked for its figure once."""
    page.wait_for_selector("main .js-plotly-plot", state="attached")  # the layout is there to scroll
    y = 0
    while y < page.evaluate("document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.evaluate(TWO_FRAMES)
        y += page.evaluate("window.innerHeight") // 2
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate(TWO_FRAMES)

