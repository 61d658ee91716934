"""First paint: Lighthouse (npm, tests/node) on the app and on the floor app, side by side, in Debian Chromium.

A cold load, desktop preset, no throttling (the machine as it is), both apps served both ways a lecturer
meets them, in one run: Dash's own server (`python app.py`) and gunicorn as `make serve` starts it, with
compression on. Prints the median largest contentful paint, total blocking time and performance score of
each. Targets: LCP <= 1.5 s, TBT <= 1.0 s, score at least the floor's, each way.

Then, in the app, the time from a click on each tab to its figures drawn, first visit and return.

Run: make node-tools; python bench/bench_lighthouse.py [--runs 3]
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from deploy.serve import GUNICORN  # noqa: E402
from dashboard.limits import TABS  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_FLAGS, launch_chromium  # noqa: E402
from tests.conftest import free_port, stop, wait_until_up  # noqa: E402

LIGHTHOUSE = ROOT / "tests" / "node" / "node_modules" / ".bin" / "lighthouse"
APPS = {"app": "app", "floor": "bench.floor_app"}  # modules with `app` (Dash) and `server` (Flask)
# How each is served: Dash's own server as `python app.py` runs it, or gunicorn as `make serve` does.
SERVED = {
    "python app.py": lambda module, port: ["-c", f"from {module} import app; app.run(port={port}, debug=False)"],
    "gunicorn": lambda module, port: ["-m"] + shlex.split(GUNICORN.format(port=port, module=module + ":server")),
}

# Resolves with performance.now() once every graph of a section near the screen (within the half screen
# below it, where the gates draw: dashboard/explorer/gate.py) has drawn a trace.
SECTION_DRAWN = """(section) => new Promise(resolve => {
  const done = () => {
    const plots = Array.from(document.querySelectorAll(`#${section} .js-plotly-plot`))
      .filter(gd => gd.getBoundingClientRect().top < 1.5 * window.innerHeight);
    return plots.length > 0 && plots.every(gd => gd._fullData && gd._fullData.length > 0);
  };
  const poll = () => done() ? resolve(performance.now()) : requestAnimationFrame(poll);
  poll();
})"""


def lighthouse(url: str) -> dict:
    """One cold Lighthouse run: {'lcp': s, 'tbt': s, 'score': 0..1}."""
    flags = " ".join(CHROMIUM_FLAGS)
    out = subprocess.run(
        [str(LIGHTHOUSE), url, "--preset=desktop", "--throttling-method=provided", "--only-categories=performance",
         "--output=json", "--output-path=stdout", "--quiet", f"--chrome-flags={flags}"],
        env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True, timeout=300)
    if out.returncode:
        raise RuntimeError(f"lighthouse failed: {out.stderr[-2000:]}")
    report = json.loads(out.stdout)
    audits = report["audits"]
    return {"lcp": audits["largest-contentful-paint"]["numericValue"] / 1000,
            "tbt": audits["total-blocking-time"]["numericValue"] / 1000,
            "score": report["categories"]["performance"]["score"]}


def lighthouse_runs(url: str, runs: int) -> tuple[list[dict], list[str]]:
    """`runs` completed Lighthouse runs, and why the others failed: Lighthouse now and then loses its trace of the
    load (NO_NAVSTART), so a failed run is tried again, up to twice as many times as asked."""
    results, failed = [], []
    while len(results) < runs and len(failed) < 2 * runs:
        try:
            results.append(lighthouse(url))
        except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError) as e:
            code = re.search(r"\(([A-Z_]+)\)", str(e))
            failed.append(code.group(1) if code else type(e).__name__)
    return results, failed


def tab_switches(url: str, rounds: int) -> dict:
    """Seconds from a click on each tab to its graphs drawn: {tab: (first visits, returns)}."""
    from playwright.sync_api import sync_playwright

    times = {tab: ([], []) for tab in TABS}
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for _ in range(rounds):
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(url + "/")
            page.evaluate(SECTION_DRAWN, "section-example")
            for visit in (0, 1):
                first, *others = TABS
                for tab in [*others, first]:
                    start = page.evaluate("performance.now()")
                    page.locator("#tab label", has_text=TABS[tab]).click()
                    end = page.evaluate(SECTION_DRAWN, f"section-{tab}")
                    times[tab][visit].append((end - start) / 1000)
            page.close()
        browser.close()
    return times


def measure(how: str, name: str, module: str, runs: int) -> None:
    """Serve `module` the way `how` says, and print its Lighthouse medians (and the app's tab switches)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable] + SERVED[how](module, port), cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_until_up(url + "/", proc, timeout=120)
        results, failed = lighthouse_runs(url + "/", runs)
        lost = f"; {len(failed)} run(s) failed and were tried again: {', '.join(sorted(set(failed)))}" if failed else ""
        if not results:
            print(f"{how:>13}, {name:>5}: no run completed{lost}", flush=True)
            return
        med = {k: statistics.median(r[k] for r in results) for k in ("lcp", "tbt", "score")}
        each = ", ".join(f"{r['lcp']:.2f}" for r in results)
        print(f"{how:>13}, {name:>5}: LCP {med['lcp']:.2f} s, TBT {med['tbt']:.2f} s, score {med['score']:.2f} "
              f"(median of {len(results)} cold loads; LCP {each}{lost})", flush=True)
        if name == "app" and how == "gunicorn":
            for tab, (first, back) in tab_switches(url, runs).items():
                print(f"       switch to {tab:>12}: first visit {statistics.median(first):.2f} s, "
                      f"return {statistics.median(back):.2f} s (median of {runs})", flush=True)
    finally:
        stop(proc)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        sys.exit("Lighthouse is not installed: run `make node-tools`")
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for how in SERVED:
        for name, module in APPS.items():
            measure(how, name, module, args.runs)


if __name__ == "__main__":
    main()
