"""Screenshot every tab at phone, laptop and projector width, light and dark, and in lecture mode at 1920.

    python tools/screenshots.py [URL] [OUT_DIR]      (default http://127.0.0.1:8050, screenshots/)
"""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard.limits import TABS  # noqa: E402
from tests.browser import launch_chromium  # noqa: E402

SIZES = {"390": (390, 844), "1440": (1440, 900), "1920": (1920, 1080)}
MODES = [(size, scheme, "") for size in SIZES for scheme in ("light", "dark")] + [("1920", "light", "&lecture=1"),
                                                                                 ("1920", "dark", "&lecture=1")]
DRAWN = """(section) => { const plots = document.querySelectorAll(`#${section} .js-plotly-plot`);
  return plots.length > 0 && Array.from(plots).every(gd => gd._fullData && gd._fullData.length > 0); }"""


def main(url: str = "http://127.0.0.1:8050", out: str = "screenshots") -> None:
    Path(out).mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for size, scheme, extra in MODES:
            w, h = SIZES[size]
            page = browser.new_page(viewport={"width": w, "height": h}, color_scheme=scheme)
            errors = []
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            for tab in TABS:
                page.goto(f"{url}/?tab={tab}&h=8&seed=3{extra}")
                page.wait_for_selector(f"#section-{tab} .js-plotly-plot .main-svg", timeout=20000)
                for _ in range(200):  # polled: the page's CSP forbids wait_for_function with a string
                    if page.evaluate(DRAWN, f"section-{tab}"):
                        break
                    page.wait_for_timeout(100)
                page.wait_for_timeout(800)
                path = f"{out}/{tab}-{size}-{scheme}{'-lecture' if extra else ''}.png"
                page.screenshot(path=path, full_page=True)
                print(path, "console errors:", errors)
            page.close()
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
