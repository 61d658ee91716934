"""In headless Chromium: bytes of a first and a repeat page load, and the time from choosing
h = 8 to the figures drawn, for the real app and for the floor app in the same run.

Time to draw: from just before the click that opens the h dropdown to the moment both the
heatmaps and the cube have 8 heads and Plotly has fired 'plotly_afterplot' for each (the cube
in software WebGL). Both apps run under gunicorn with compression on.

Run: python bench/bench_browser.py [--rounds 5]
"""

import argparse
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_load import GUNICORN  # noqa: E402
from tests.browser import launch_chromium  # noqa: E402
from tests.conftest import free_port, stop, wait_until_up  # noqa: E402

TRANSFERRED = """() => performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
  .reduce((sum, e) => sum + e.transferSize, 0)"""

# Resolves when both graphs show h heads and each has drawn since the call started.
DRAWN = """([h]) => { window.drawn = new Promise(resolve => {
  const ids = ['heatmaps', 'cube'], kinds = {heatmaps: 'heatmap', cube: 'surface'}, done = {};
  const check = () => {
    if (ids.every(id => done[id])) resolve(performance.now());
  };
  for (const id of ids) {
    const gd = document.getElementById(id).querySelector('.js-plotly-plot');
    gd.on('plotly_afterplot', () => {
      if (gd._fullData.filter(t => t.type === kinds[id]).length === h) { done[id] = true; check(); }
    });
  }
}); }"""


def time_to_draw(page, url: str, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        page.goto(url + "/?h=4")
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 2 && "
                               "document.querySelector('#cube .js-plotly-plot')._fullData.length >= 4")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(2000)  # let the first draw and its resize settle before the clock starts
        page.evaluate(DRAWN, [8])
        start = page.evaluate("performance.now()")
        if page.locator("#heads label").count():  # the app's button group
            page.locator("#heads label", has_text="8").click()
        else:  # the floor's dropdown
            page.click("#heads")
            page.locator(".dash-dropdown-option", has_text="8").first.click()
        end = page.evaluate("window.drawn")
        times.append((end - start) / 1000)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for name, module in [("app", "app:server"), ("floor", "bench.floor_app:server")]:
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            proc = subprocess.Popen([sys.executable, "-m"] + shlex.split(GUNICORN.format(port=port, module=module)),
                                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait_until_up(url + "/", proc)
                context = browser.new_context(viewport={"width": 1440, "height": 900})
                page = context.new_page()
                page.on("console", lambda m: print("   console:", m.type, m.text[:200]) if m.type == "error" else None)
                page.goto(url + "/")
                page.wait_for_selector("#heatmaps .js-plotly-plot .main-svg")
                page.wait_for_timeout(1500)
                first = page.evaluate(TRANSFERRED)
                page.reload()
                page.wait_for_selector("#heatmaps .js-plotly-plot .main-svg")
                page.wait_for_timeout(1500)
                repeat = page.evaluate(TRANSFERRED)
                times = time_to_draw(page, url, args.rounds)
                print(f"{name:>5}: first load {first / 1e6:.2f} MB, repeat load {repeat / 1e3:.0f} kB transferred; "
                      f"choose h = 8 to drawn: median {statistics.median(times):.2f} s "
                      f"(min {min(times):.2f}, max {max(times):.2f}, {args.rounds} rounds)")
                context.close()
            finally:
                stop(proc)
        browser.close()


if __name__ == "__main__":
    main()
