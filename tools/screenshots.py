"""Screenshots, two kinds.

`docs`: every picture in README.md and docs/ (docs/img/, WebP from Chromium, each at most MAX_BYTES). Each is a
setting a link opens (DOCS: its URL, and the figure it shows), so tests/test_docs.py can check that each still
opens. Run it after a change that alters what they show, with the app running:

    python tools/screenshots.py docs [URL]                  (default http://127.0.0.1:8050)

Otherwise, for a review: every tab at phone, laptop and projector width, light and dark; in lecture mode at
1920; and the presenter view of the heatmaps at 1920. The worked example shows the learning lab's trained layer
(h = 8). In another language (zh-CN, es), every file name starts with it.

    python tools/screenshots.py [URL] [OUT_DIR] [LANG]      (default http://127.0.0.1:8050, screenshots/, en)

`classic`: a school's desktop browser, whose scrollbars take 15 px of the page (Chromium without
--hide-scrollbars): every tab, class mode's stage with a question posed, and a phone joined to it, in Chinese and
Spanish at 390, 1440 and 1920 (issue 37's review set). Each class session it starts, it ends.

    python tools/screenshots.py classic [URL] [OUT_DIR]     (default http://127.0.0.1:8050, screenshots/)
"""

import base64
import sys
from pathlib import Path
from typing import NamedTuple

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard.limits import TABS  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_FLAGS, TWO_FRAMES, launch_chromium, wait_until  # noqa: E402
from tests.test_a11y import wait_drawn  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS_IMG = ROOT / "docs" / "img"
MAX_BYTES = 150 * 1024


class Shot(NamedTuple):
    """One picture of the docs: the page `url` opens (a path and its query), cut to the frame of the figure
    `graph` (or the whole window when None), in a window of `size`; with `present`, shown in the presenter
    view (the P key), at 1920 x 1080; `session` starts a class session first and poses the form's question."""
    name: str
    url: str
    graph: str | None = None
    size: tuple[int, int] = (1280, 900)
    present: bool = False
    session: bool = False


WORKED = "/?tab=example&h=4&weights=trained"
DOCS = [
    Shot("worked-example", WORKED, "heatmaps"),
    *[Shot(f"heads-{h}", f"/?tab=example&h={h}&weights=trained", "heatmaps", (900, 800)) for h in (1, 2, 4, 8)],
    Shot("tab-example", WORKED, "cube"),
    Shot("tab-mixing", "/?tab=mixing&h=4&weights=trained", "mixing-multi"),
    Shot("tab-equivariance", "/?tab=equivariance&h=4&weights=trained", "eq-attention"),
    Shot("tab-learning", "/?tab=learning", "learn-loss"),
    Shot("tab-clinic", "/?tab=clinic&bug=kq", "clinic-buggy-heatmaps"),
    Shot("presenter", WORKED + "&lecture=1", "heatmaps", (1920, 1080), present=True),
    Shot("class-lecturer", "/class", None, (1440, 1000), session=True),
]


def webp(page, clip: dict | None, quality: int = 80) -> bytes:
    """The page (or the `clip` of it, in the page's CSS pixels) as WebP: Chromium encodes it (DevTools), so no
    image library is needed."""
    cdp = page.context.new_cdp_session(page)
    params = {"format": "webp", "quality": quality, "captureBeyondViewport": bool(clip)}
    if clip:
        params["clip"] = {**clip, "scale": 1}
    data = base64.b64decode(cdp.send("Page.captureScreenshot", params)["data"])
    cdp.detach()
    return data


def docs(url: str = "http://127.0.0.1:8050") -> None:
    from tests.test_a11y import wait_graph

    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for shot in DOCS:
            w, h = shot.size
            page = browser.new_page(viewport={"width": w, "height": h}, color_scheme="light", reduced_motion="reduce")
            errors = []
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))  # noqa: B023 (this page's)
            page.goto(url + shot.url)
            clip = None
            if shot.session:
                page.get_by_role("button", name="start a session").click()
                page.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
                page.get_by_role("button", name="pose question").click()
                page.wait_for_selector("#class-results .js-plotly-plot, #class-prompt:not(:empty)")
                page.evaluate(TWO_FRAMES)
            elif shot.present:
                wait_graph(page, shot.graph)
                page.evaluate("id => document.getElementById(id).scrollIntoView({block: 'center'})", shot.graph)
                page.evaluate(TWO_FRAMES)
                page.keyboard.press("p")
                wait_until(page, "() => document.documentElement.classList.contains('presenting')")
                wait_until(page, """() => { const gd = document.querySelector('.presented .js-plotly-plot');
                  return gd && !gd.closest('.dash-graph--pending'); }""")
                page.evaluate(TWO_FRAMES)
            else:
                wait_graph(page, shot.graph)
                page.evaluate(TWO_FRAMES)
                clip = page.evaluate("""id => { const r = document.getElementById(id).closest('.figure-frame')
                  .getBoundingClientRect(); return {x: r.x + scrollX, y: r.y + scrollY, width: r.width,
                  height: r.height}; }""", shot.graph)
            for quality in (80, 70, 60, 50, 40):
                image = webp(page, clip, quality)
                if len(image) <= MAX_BYTES:
                    break
            path = DOCS_IMG / f"{shot.name}.webp"
            path.write_bytes(image)
            print(path.relative_to(ROOT), f"{len(image) // 1024} KB, quality {quality}", "console errors:", errors)
            page.close()
        browser.close()


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


def classic(url: str = "http://127.0.0.1:8050", out: str = "screenshots") -> None:
    Path(out).mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS,
                                    ignore_default_args=["--hide-scrollbars"])
        for lang in ("zh-CN", "es"):
            for size, (w, h) in SIZES.items():
                page = browser.new_page(viewport={"width": w, "height": h}, reduced_motion="reduce")
                for tab in TABS:
                    page.goto(f"{url}/?tab={tab}&{QUERY}&lang={lang}")
                    wait_drawn(page, tab)
                    page.screenshot(path=f"{out}/classic-{lang}-{tab}-{size}.png")
                page.goto(f"{url}/class?lang={lang}")
                page.click("#class-start")
                page.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
                page.click("#class-pose")
                page.wait_for_selector("#class-prompt:not(:empty)")
                page.evaluate(TWO_FRAMES)
                page.screenshot(path=f"{out}/classic-{lang}-class-stage-{size}.png")
                if size == "390":
                    code = page.inner_text("#class-code")
                    phone = browser.new_page(viewport={"width": w, "height": h}, is_mobile=True, has_touch=True)
                    phone.goto(f"{url}/class/{code}?lang={lang}")
                    phone.wait_for_selector("#class-student-prompt:not(:empty)")
                    phone.evaluate(TWO_FRAMES)
                    phone.screenshot(path=f"{out}/classic-{lang}-class-phone-{size}.png")
                    phone.close()
                page.once("dialog", lambda d: d.accept())  # end the session: an address may hold 10
                page.click("#class-end")
                page.wait_for_selector("#class-start", state="visible")
                print(lang, size, "done")
                page.close()
        browser.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["docs"]:
        docs(*sys.argv[2:])
    elif sys.argv[1:2] == ["classic"]:
        classic(*sys.argv[2:])
    else:
        main(*sys.argv[1:])
