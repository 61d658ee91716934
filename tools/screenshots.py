"""Screenshot every tab at desktop and phone size in headless Chromium.

    python tools/screenshots.py [URL] [OUT_DIR]      (default http://127.0.0.1:8050, screenshots/)
"""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard.limits import TABS  # noqa: E402
from tests.browser import launch_chromium  # noqa: E402

SIZES = {"desktop": (1440, 900), "phone": (390, 844)}


def main(url: str = "http://127.0.0.1:8050", out: str = "screenshots") -> None:
    Path(out).mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for size, (w, h) in SIZES.items():
            for scheme in ("light", "dark"):
                page = browser.new_page(viewport={"width": w, "height": h}, color_scheme=scheme)
                errors = []
                page.on("console", lambda m: m.type == "error" and errors.append(m.text))
                for tab in TABS:
                    page.goto(f"{url}/?tab={tab}&h=8&seed=3")
                    page.wait_for_selector(f"#section-{tab} .js-plotly-plot .main-svg", timeout=20000)
                    page.wait_for_timeout(1500)
                    path = f"{out}/{tab}-{size}-{scheme}.png"
                    page.screenshot(path=path, full_page=True)
                    print(path, "console errors:", errors)
                page.close()
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
