"""Dark mode in headless Chromium: the diverging colour maps keep their colours."""

import base64

import pytest

from tests.browser import SETTLED, scroll_through, wait_until

pytestmark = pytest.mark.browser

SCHEME = "() => document.documentElement.getAttribute('data-bs-theme')"


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
    page_bg = [int(page.evaluate("getComputedStyle(document.body).backgroundColor")[4:-1].split(",")[k]) / 255
               for k in range(3)]
    assert top[0] - max(top[1:]) > 0.4, top  # the largest value red, saturated
    assert bottom[2] - max(bottom[:2]) > 0.4, bottom  # the most negative blue, saturated
    assert contrast(top, page_bg) >= 3 and contrast(bottom, page_bg) >= 3, (top, bottom, page_bg)
    assert luminance(middle) < min(luminance(top), luminance(bottom)) / 3, (middle, top, bottom)
    # the attention weights' one-hue map keeps app.css's inversion
    attention = "getComputedStyle(document.querySelector('#heatmaps .heatmaplayer image')).filter"
    assert "invert" in page.evaluate(attention)
    assert page.errors == []
