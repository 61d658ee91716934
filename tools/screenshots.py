"""Screenshot every tab at phone, laptop and projector width, light and dark; in lecture mode at 1920; and the
presenter view of the heatmaps at 1920. The worked example shows the learning lab's trained layer (h = 8).
In another language (zh-CN, es), every file name starts with it.

    python tools/screenshots.py [URL] [OUT_DIR] [LANG]      (default http://127.0.0.1:8050, screenshots/, en)
"""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard.limits import TABS  # noqa: E402
from tests.browser import TWO_FRAMES, launch_chromium, wait_until  # noqa: E402
from tests.test_a11y import wait_drawn  # noqa: E402

SIZES = {"390": (390, 844), "1440": (1440, 900), "1920": (1920, 1080)}
MODES = [(size, scheme, "") for size in SIZES for scheme in ("light", "dark")] + [
    ("1920", scheme, "lecture") for scheme in ("light", "dark")]
QUERY = "h=8&weights=trained"


def main(url: str = "http://127.0.0.1:8050", out: str = "screenshots", lang: str = "en") -> None:
    Path(out).mkdir(exist_ok=True)
    query = f"{QUERY}&lang={lang}"
    prefix = f"{out}/" + ("" if lang == "en" else f"{lang}-")
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for size, scheme, mode in MODES:
            w, h = SIZES[size]
            page = browser.new_page(viewport={"width": w, "height": h}, color_scheme=scheme, reduced_motion="reduce")
            errors = []
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            for tab in TABS:
                page.goto(f"{url}/?tab={tab}&{query}{'&lecture=1' if mode else ''}")
                wait_drawn(page, tab)
                path = f"{prefix}{tab}-{size}-{scheme}{'-' + mode if mode else ''}.png"
                page.screenshot(path=path, full_page=True)
                print(path, "console errors:", errors)
            page.close()
        for scheme in ("light", "dark"):  # the presenter view: P on the figure in the middle of the screen
            page = browser.new_page(viewport={"width": 1920, "height": 1080}, color_scheme=scheme,
                                    reduced_motion="reduce")
            page.goto(f"{url}/?{query}")
            wait_drawn(page, "example")
            page.evaluate("document.getElementById('heatmaps').scrollIntoView({block: 'center'})")
            page.evaluate(TWO_FRAMES)
            page.keyboard.press("p")
            wait_until(page, "() => document.documentElement.classList.contains('presenting')")
            wait_until(page, """() => { const gd = document.querySelector('.presented .js-plotly-plot');
              return gd && gd._fullLayout.font.size >= 24 && !gd.closest('.dash-graph--pending'); }""")
            path = f"{prefix}presenter-heatmaps-1920-{scheme}.png"
            page.screenshot(path=path)
            print(path)
            page.close()
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
