"""The headers in headless Chromium: the light, dark and auto switch (kept in the browser, taken over by class
mode), dark mode's diverging colour maps, the phone's header, the seed box, and lecture mode in class mode."""

import base64

import pytest

from dashboard.limits import SEEDS
from tests.browser import SETTLED, scroll_through, wait_until
from tests.test_a11y import AXE, violations

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SCHEME = "() => document.documentElement.getAttribute('data-bs-theme')"
STORED = "key => localStorage.getItem(key)"
CHECKED_THEME = "() => document.querySelector('#theme input:checked')?.value"


@pytest.fixture
def open_context(browser):
    """Contexts (a browser profile each: its own localStorage), closed after the test."""
    made = []

    def make(**options):
        made.append(browser.new_context(**options))
        page = made[-1].new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
        return page
    yield make
    for context in made:
        context.close()


def choose_theme(page, name):
    page.locator("#theme label", has_text=name).click()  # btn-check: the input is hidden, its label is the button


def test_the_theme_switch_overrides_the_system_and_class_mode_keeps_it(open_context, app_url):
    page = open_context(viewport={"width": 1440, "height": 900}, color_scheme="light")
    page.goto(app_url + "/")
    page.wait_for_selector("#theme label")
    assert page.evaluate(SCHEME) == "light" and page.evaluate(CHECKED_THEME) == "auto"
    choose_theme(page, "dark")
    wait_until(page, f"() => ({SCHEME})() === 'dark'")
    assert page.evaluate(STORED, "mha-theme") == "dark"
    assert "theme=" not in page.url  # a device's choice, not the link's
    page.reload()
    wait_until(page, f"() => ({CHECKED_THEME})() === 'dark'")
    assert page.evaluate(SCHEME) == "dark"

    # class mode, another app on the same server, opens in the explorer's theme, and its switch shows it
    page.goto(app_url + "/class")
    wait_until(page, f"() => ({CHECKED_THEME})() === 'dark'")
    assert page.evaluate(SCHEME) == "dark"
    choose_theme(page, "auto")
    wait_until(page, f"() => ({SCHEME})() === 'light'")  # the system's: this context's is light
    assert page.evaluate(STORED, "mha-theme") == "auto"

    # light beats a dark system
    dark_system = open_context(viewport={"width": 1440, "height": 900}, color_scheme="dark")
    dark_system.goto(app_url + "/")
    dark_system.wait_for_selector("#theme label")
    assert dark_system.evaluate(SCHEME) == "dark"
    choose_theme(dark_system, "light")
    wait_until(dark_system, f"() => ({SCHEME})() === 'light'")
    assert page.errors == [] and dark_system.errors == []


# The colour bar's pixels as drawn, top (largest value) to bottom, from an element screenshot decoded in the page
# (its CSP allows data: images), as [r, g, b] in 0..1 down the bar's middle.
PIXELS = """async (png) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + png;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width; canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const x = Math.floor(image.width / 2);
  return Array.from({length: image.height},
    (_, y) => Array.from(context.getImageData(x, y, 1, 1).data.slice(0, 3), v => v / 255));
}"""


# An element's text colour, or the background it is drawn on: its own or the first opaque one behind it.
COLOUR = """([selector, prop]) => {
  let e = document.querySelector(selector);
  let c = getComputedStyle(e)[prop];
  while (prop === 'backgroundColor' && /rgba\\(.*, 0\\)$/.test(c) && e.parentElement) {
    e = e.parentElement;
    c = getComputedStyle(e)[prop];
  }
  return c.slice(c.indexOf('(') + 1, c.indexOf(')')).split(',').slice(0, 3).map(v => parseFloat(v) / 255);
}"""


def colour(page, selector, prop):
    """A computed colour as [r, g, b] in 0..1: `prop` is "color" or "backgroundColor" (the one it is drawn on)."""
    return page.evaluate(COLOUR, [selector, prop])


def luminance(rgb):
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b):
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_dark_mode_keeps_the_red_blue_map_red_and_blue(open_context, app_url):
    """The signed values' map (M_i, logits, X): in dark mode zero is dark, and the largest values of each sign
    keep their hue and saturation and stand out from the page (WCAG 1.4.11, 3:1). The lightness inversion of
    the attention maps turned the most negative blue nearly white."""
    page = open_context(viewport={"width": 1440, "height": 900}, color_scheme="dark")
    page.goto(app_url + "/")
    scroll_through(page)
    page.locator("#bilinear-forms").scroll_into_view_if_needed()
    page.wait_for_selector("#bilinear-forms .colorbar .cbfills", state="attached", timeout=20000)
    wait_until(page, SETTLED, "#bilinear-forms")
    assert page.evaluate(SCHEME) == "dark"
    png = page.locator("#bilinear-forms .colorbar .cbfills").screenshot()
    bar = page.evaluate(PIXELS, base64.b64encode(png).decode())[2:-2]  # inside the bar's antialiased ends
    top, bottom, middle = bar[0], bar[-1], bar[len(bar) // 2]
    page_bg = colour(page, "body", "backgroundColor")
    assert top[0] - max(top[1:]) > 0.4, top  # the largest value red, saturated
    assert bottom[2] - max(bottom[:2]) > 0.4, bottom  # the most negative blue, saturated
    assert contrast(top, page_bg) >= 3 and contrast(bottom, page_bg) >= 3, (top, bottom, page_bg)
    assert luminance(middle) < min(luminance(top), luminance(bottom)) / 3, (middle, top, bottom)
    # the attention weights' one-hue map keeps app.css's inversion
    attention = "getComputedStyle(document.querySelector('#heatmaps .heatmaplayer image')).filter"
    assert "invert" in page.evaluate(attention)
    assert page.errors == []


def test_the_phone_header_is_one_row_and_a_menu(open_context, app_url):
    page = open_context(**PHONE)
    page.goto(app_url + "/")
    page.wait_for_selector("#heatmaps .main-svg", timeout=20000)
    wait_until(page, SETTLED, "#section-example")
    header = page.evaluate("document.querySelector('.controls').getBoundingClientRect().height")
    assert header <= 0.12 * 844, header
    # h, the seed and every tab are on screen, inside the page's width; the rest is behind the menu button
    for selector in ["#heads label", "#seed", "#tab label", "#header-menu-button"]:
        for k in range(page.locator(selector).count()):
            box = page.locator(selector).nth(k).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, k, box)
    assert not page.locator("#header-menu").is_visible()
    assert page.locator("h1").count() == 1 and page.locator("h1").inner_text() == "Multi-head attention"

    # by keyboard: from the seed box, Tab reaches the menu button, Enter opens it, Tab goes into the theme switch
    page.focus("#seed")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "header-menu-button"
    assert page.get_attribute("#header-menu-button", "aria-expanded") == "false"
    assert page.get_attribute("#header-menu-button", "aria-label")
    page.keyboard.press("Enter")
    wait_until(page, "() => document.querySelector('#header-menu-button').getAttribute('aria-expanded') === 'true'")
    page.wait_for_selector("#header-menu", state="visible")
    for control in ["#theme", "label[for=lecture]", "#header-menu a[href='/class']"]:
        assert page.locator(control).first.is_visible(), control
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#theme') !== null")
    # every control of the header has a name
    names = page.evaluate("""() => Array.from(
      document.querySelectorAll('.controls input, .controls button, .controls a')).map(e => [e.id || e.tagName,
        (e.labels && e.labels.length ? e.labels[0].textContent : '') || e.getAttribute('aria-label') || e.textContent]
        .map(s => s.trim()))""")
    assert all(name for _, name in names), names
    page.click("#header-menu-button")
    wait_until(page, "() => document.querySelector('#header-menu-button').getAttribute('aria-expanded') === 'false'")
    assert page.errors == []


def seed_in_url(page) -> str | None:
    return page.evaluate("() => new URLSearchParams(location.search).get('seed')")


def test_a_seed_out_of_range_is_refused_out_loud_and_a_typed_one_applies_without_enter(open_context, app_url):
    page = open_context(viewport={"width": 1440, "height": 900})
    page.goto(app_url + "/?seed=7")
    page.wait_for_selector("#heatmaps .main-svg", timeout=20000)
    assert seed_in_url(page) == "7"
    page.fill("#seed", "150")  # no Enter
    page.wait_for_selector("#seed.is-invalid", timeout=5000)
    message = page.inner_text("#seed-message")
    assert f"Seeds run {SEEDS[0]} to {SEEDS[-1]}" in message and "seed 7" in message, message
    assert page.get_attribute("#seed", "aria-invalid") == "true"
    assert page.get_attribute("#seed", "aria-describedby") == "seed-message"
    assert page.locator("#seed-message").is_visible() and page.get_attribute("#seed-message", "role") == "status"
    assert seed_in_url(page) == "7"

    page.fill("#seed", "42")  # no Enter: it applies once the typing stops
    wait_until(page, "() => new URLSearchParams(location.search).get('seed') === '42'", timeout=10)
    page.wait_for_selector("#seed:not(.is-invalid)")
    assert page.inner_text("#seed-message") == "" and page.get_attribute("#seed", "aria-invalid") == "false"

    page.fill("#seed", "12")
    page.keyboard.press("Tab")  # leaving the box
    wait_until(page, "() => new URLSearchParams(location.search).get('seed') === '12'", timeout=10)

    # typed and Enter: applied (dbc.Input's debounce, SEED_DEBOUNCE_MS at most), and a key typed in the box is the
    # box's, not a shortcut (3 is none, but 1 would be h = 1)
    page.fill("#seed", "")
    page.locator("#seed").type("31")
    page.keyboard.press("Enter")
    wait_until(page, "() => new URLSearchParams(location.search).get('seed') === '31'", timeout=10)
    assert page.evaluate("() => document.querySelector('#heads input:checked').value") == "4"
    page.fill("#seed", "150")  # refused out loud, as typed
    page.keyboard.press("Enter")
    page.wait_for_selector("#seed.is-invalid", timeout=5000)
    assert seed_in_url(page) == "31"
    assert page.errors == []


def test_class_mode_opens_in_lecture_mode_when_the_explorer_was(open_context, app_url):
    page = open_context(viewport={"width": 1920, "height": 1080})
    page.goto(app_url + "/?lecture=1")
    page.wait_for_selector("#lecture:checked", state="attached")  # in lecture mode, behind the menu button
    wait_until(page, "() => localStorage.getItem('mha-lecture') === '1'")
    page.goto(app_url + "/class")
    page.wait_for_selector("#class-start", state="visible")
    wait_until(page, "() => document.documentElement.classList.contains('lecture')")
    assert page.is_checked("#lecture")
    assert page.get_attribute("#explorer-link", "href") == "/?lecture=1"  # and back again
    assert "lecture" not in page.url  # nothing in the address the projector shows
    lecture_text = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")

    # turned off here, it is off in the explorer's link and for the next class page
    page.locator("label[for=lecture]").click()
    wait_until(page, "() => !document.documentElement.classList.contains('lecture')")
    assert page.get_attribute("#explorer-link", "href") == "/"
    assert page.evaluate(STORED, "mha-lecture") == "0"
    assert page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)") < lecture_text

    # the explorer without lecture mode: class mode without it
    page.locator("label[for=lecture]").click()
    page.goto(app_url + "/")
    page.wait_for_selector("#heatmaps .main-svg", timeout=20000)
    wait_until(page, "() => localStorage.getItem('mha-lecture') === '0'")
    page.goto(app_url + "/class")
    page.wait_for_selector("#class-start", state="visible")
    page.wait_for_selector("#lecture:not(:checked)", state="attached")
    assert not page.evaluate("document.documentElement.classList.contains('lecture')")
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_class_mode_header_has_no_axe_violations(browser, app_url, scheme):
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `make node-tools`")
    context = browser.new_context(**PHONE, color_scheme=scheme, bypass_csp=True)
    page = context.new_page()
    page.goto(app_url + "/class")
    page.wait_for_selector("#class-start", state="visible")
    # the name on the header's background: axe only lists white on white as one to review ("incomplete")
    name, background = colour(page, ".class-header h1", "color"), colour(page, ".class-header", "backgroundColor")
    assert contrast(name, background) >= 4.5, (name, background)
    page.click("#header-menu-button")
    page.wait_for_selector("#header-menu", state="visible")
    found = violations(page)
    context.close()
    assert found == [], "\n".join(found)


def test_the_header_names_the_class_session_this_browser_runs(page):
    """A lecturer back in the explorer returns to the running session (its code on the link), not a new one."""
    page.goto(page.base + "/")
    wait_until(page, "() => document.getElementById('class-link')?.textContent === 'class mode'")
    page.evaluate("() => localStorage.setItem('class-running', JSON.stringify({code: 'ABC234', token: 't'}))")
    page.reload()
    wait_until(page, "() => document.getElementById('class-link')?.textContent === 'class session ABC234'")
    assert page.get_attribute("#class-link", "href") == "/class"  # the token never sits in the explorer's page
