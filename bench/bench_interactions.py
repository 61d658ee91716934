"""Every interaction in headless Chromium with software WebGL that really draws: how many times each
graph drew, and when the last draw ended, for the app and the floor app (bench/floor_app.py), side
by side in the same run. Also the bytes of a first and a repeat page load.

A draw is a 'plotly_afterplot' event: Plotly fires one at the end of every Plotly.react, whether
it replotted or restyled, and of every relayout, the no-op ones too. The clock starts at the user's
input (the pointer or key event that makes the change), read in the page, and stops at the last draw.
An interaction ends when no callback is in flight, no resize is pending and nothing drew for QUIET s.
Both apps run under gunicorn with compression on; each row is the median of --repeats runs, each
from a fresh page load, app and floor taking turns.

An interaction is one entry of INTERACTIONS: the state it starts from (a URL and where the student has
scrolled) and what the user does. The app draws every figure of the shown tab (dashboard/explorer/controls.py);
the floor app draws two, the heatmaps and the cube.

Run: python bench/bench_interactions.py [--repeats 5] [--only h]
A run of every interaction also writes its measurements (DATA) and draws them (CHART, bench/chart.py), the chart
docs/performance.md shows.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from deploy.serve import GUNICORN  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402
from tests.conftest import free_port, stop, wait_until_up  # noqa: E402
from tests.recorder import RECORDER, TIMEOUT, Callbacks, choose, settle  # noqa: E402
from bench import chart  # noqa: E402

SOFTWARE_GL = ["--use-gl=swiftshader", "--enable-unsafe-swiftshader"]
ANSWERED = "answered"
TARGETS = {"tab": 0.5, "drill-down": 0.3}  # issue 34: a tab switch draws within 0.5 s, a cell's drill-down 0.3 s

class Interaction(NamedTuple):
    name: str
    start: str  # the URL's query: the state the page is in before the user acts
    act: Callable  # act(page, arm): what the user does; arm() just before the input that makes the change
    floor: bool = False  # the floor app has the same control
    scroll: str = ""  # the graph the student has scrolled to first ("#id"); the page draws what is near it


def click(selector: str) -> Callable:
    def act(page, arm):
        arm()
        page.click(selector)
    return act


def press(selector: str, key: str) -> Callable:
    def act(page, arm):
        page.focus(selector)
        arm()
        page.keyboard.press(key)
    return act


def tab(label: str) -> Callable:
    return choose("tab", label)  # a tab's label ends with its short name for phones: it starts with `label`


HEAD_3 = "#cube-focus label:text-is('head 3')"
CUBE_BUTTON = Interaction("cube head button", "?h=4", click(HEAD_3), scroll="#cube")
INTERACTIONS = [
    Interaction("h 2 → 8", "?h=2", choose("heads", "8"), floor=True, scroll="#heatmaps"),
    Interaction("h 4 → 8", "?h=4", choose("heads", "8"), floor=True, scroll="#heatmaps"),
    Interaction("h 8 → 2", "?h=8", choose("heads", "2"), floor=True, scroll="#heatmaps"),
    Interaction("seed 0 → 5", "?h=4", choose("seed", "5"), floor=True, scroll="#heatmaps"),
    Interaction("h 1 → 8, page top", "?h=1", choose("heads", "8"), floor=True),
    CUBE_BUTTON,
    Interaction("tab → single vs multi", "?h=4", tab("Single vs multi-head")),
    Interaction("tab → equivariance", "?h=4", tab("Equivariance")),
    Interaction("tab → learning", "?h=4", tab("Learning")),
    Interaction("tab → worked example", "?h=4&tab=mixing", tab("Worked example")),
    Interaction("learning-lab step", "?h=4&tab=learning", press("#learn-step [role=slider]", "ArrowLeft")),
]
FOCUS = "heatmaps"  # the figure the student looks at in the rows scrolled to it: its draw is reported apart


def load(page, callbacks: Callbacks, url: str, start: str, scroll: str) -> None:
    """Load the state `start` (a URL's query), let every graph draw, then scroll to `scroll` (if any)."""
    page.goto(url + "/" + start)
    page.wait_for_selector(".js-plotly-plot", state="attached")
    page.evaluate(RECORDER)
    settle(page, callbacks, ready=lambda state: state["unplotted"] == 0)  # every graph's first draw is done
    if scroll:
        page.locator(scroll).scroll_into_view_if_needed()
        settle(page, callbacks)


def run_once(page, callbacks: Callbacks, url: str, interaction: Interaction) -> dict:
    """Load the start state, let it settle, then time the interaction: {graph: [draw times in s]},
    and under ANSWERED when the last callback's answer began to arrive (None if none was asked) and how many."""
    load(page, callbacks, url, interaction.start, interaction.scroll)
    interaction.act(page, lambda: page.evaluate("window.drawRecorder.arm()"))
    # every interaction here draws something: a change whose first request comes more than QUIET s after the
    # input must not end the run before it (it did for a typed seed), and one that draws nothing is a timeout
    state = settle(page, callbacks, need_start=True, ready=lambda state: bool(state["draws"]))
    draws = {graph: [t / 1000 for t in times] for graph, times in state["draws"].items()}
    return {**draws, ANSWERED: (state["answered"] and state["answered"] / 1000, state["requests"])}


def summary(runs: list[dict | None]) -> tuple[str, str, list[float], list[float], list[float], int]:
    """Over the runs that settled: 'heatmaps 1, cube 1' (a range where the repeats differ); the median time the
    server's last answer began to arrive, with the number of callback requests; per run the time FOCUS first
    drew, the time every graph had drawn (the last of the graphs' first draws), and the time of the last draw;
    and how many runs timed out."""
    settled = [run for run in runs if run is not None]
    answers = [run.pop(ANSWERED) for run in settled]
    graphs = sorted({g for run in settled for g in run}, key=lambda g: min(min(run.get(g, [99])) for run in settled))
    counts = []
    for g in graphs:
        n = [len(run.get(g, [])) for run in settled]
        counts.append(f"{g} {min(n)}" if min(n) == max(n) else f"{g} {min(n)}–{max(n)}")
    focus = [run[FOCUS][0] for run in settled if FOCUS in run]
    drawn = [max((times[0] for times in run.values()), default=float("nan")) for run in settled]
    ends = [max((times[-1] for times in run.values()), default=float("nan")) for run in settled]
    answered = [a for a, _ in answers if a is not None]
    requests = "–".join(sorted({str(n) for _, n in answers}))
    answer = f"{statistics.median(answered):.2f} s ({requests})" if answered else "—"
    return ", ".join(counts) or "none", answer, focus, drawn, ends, len(runs) - len(settled)


def seconds(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} s ({min(times):.2f}–{max(times):.2f})" if times else "—"


def ratio(app: list[float], floor: list[float]) -> str:
    return f"{statistics.median(app) / statistics.median(floor):.2f}x" if app and floor else "—"


def attempt(page, callbacks: Callbacks, url: str, interaction: Interaction) -> dict | None:
    """One run, or None when the page did not settle in time: a row says so, the bench goes on."""
    try:
        return run_once(page, callbacks, url, interaction)
    except (TimeoutError, PlaywrightError):
        return None


def measured(measure, *args) -> list[float]:
    """A measurement, or nothing when the page did not get there in time."""
    try:
        return [measure(*args)]
    except (TimeoutError, PlaywrightError):
        return []


WEBGL_RENDERER = """() => { const gl = document.createElement('canvas').getContext('webgl');
  return gl ? gl.getParameter(gl.getExtension('WEBGL_debug_renderer_info').UNMASKED_RENDERER_WEBGL) : 'none'; }"""
TRANSFERRED = """() => performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
  .reduce((sum, e) => sum + e.transferSize, 0)"""


def page_bytes(page, url: str) -> tuple[int, int]:
    """Bytes transferred by a first page load (empty cache) and by a repeat load."""
    sizes = []
    for load in (page.goto, lambda _: page.reload()):
        load(url + "/")
        page.wait_for_load_state("networkidle")
        sizes.append(page.evaluate(TRANSFERRED))
    return sizes[0], sizes[1]


# In the page: the time from the next pointer event to the first change under a selector (null after TIMEOUT s),
# as a promise kept in the page (returned, Playwright would wait for it before the click that resolves it).
FIRST_CHANGE = """([selector, timeout]) => { window.firstChange = new Promise(resolve => {
  let start = null;
  setTimeout(() => resolve(null), timeout * 1000);
  document.addEventListener('pointerdown', () => { start ??= performance.now(); }, {capture: true, once: true});
  new MutationObserver((_, observer) => { if (start !== null) { observer.disconnect();
    resolve((performance.now() - start) / 1000); } }).observe(document.querySelector(selector),
    {childList: true, subtree: true, characterData: true});
}); }"""

# In the page: a plain button, added on top of the page, whose click restyles the cube planes' opacities with
# Plotly.restyle (head 2 forward, then head 1, in turn), the same restyle the head buttons make.
DIRECT_BUTTON = """() => {
  const gd = document.querySelector('#cube .js-plotly-plot');
  const planes = gd.data.map((t, i) => t.type === 'mesh3d' ? i : -1).filter(i => i >= 0);
  const button = document.createElement('button');
  button.id = 'direct-restyle';
  button.textContent = 'restyle';
  button.style = 'position: fixed; top: 50%; left: 1rem; z-index: 10000';
  const {on, off} = gd.layout.meta.opacity;  // the figure's, as the head buttons read them
  let forward = 0;
  button.addEventListener('click', () => {
    forward = forward === 1 ? 0 : 1;
    Plotly.restyle(gd, {opacity: planes.map((_, k) => k === forward ? on : off)}, planes);
  });
  document.body.append(button);
}"""

# In the page: the time from the next pointer going down until Plotly has drawn the cube (null after TIMEOUT s,
# or for a draw before any pointer went down), as a promise kept in the page. One clock for both buttons: the
# click is part of both.
CLICK_TO_CUBE = """timeout => { window.clickToCube = new Promise(resolve => {
  setTimeout(() => resolve(null), timeout * 1000);
  let start = null;
  document.addEventListener('pointerdown', () => { start ??= performance.now(); }, {capture: true, once: true});
  document.querySelector('#cube .js-plotly-plot').once('plotly_afterplot',
    () => resolve(start === null ? null : (performance.now() - start) / 1000));
}); }"""


def drilldown(page, callbacks: Callbacks, url: str) -> float:
    """s from a click on a cell of the heatmaps until the drill-down shows that weight."""
    page.goto(url + "/?h=4")
    page.wait_for_selector(".js-plotly-plot", state="attached")
    page.evaluate(RECORDER)
    page.wait_for_selector("#heatmaps .heatmaplayer image", state="attached")
    page.wait_for_selector("#drilldown table", state="attached")
    settle(page, callbacks)  # the page's own updates are done (the figures above have their heights): the next
    # change is the click's; the heatmaps in the middle of the screen, clear of the sticky header
    # instantly: Bootstrap makes the page's scrolling smooth, and a click while it still moves hits another point
    page.evaluate("() => document.getElementById('heatmaps').scrollIntoView({block: 'center', behavior: 'instant'})")
    settle(page, callbacks)
    page.evaluate(FIRST_CHANGE, ["#drilldown", TIMEOUT])
    box = page.locator("#heatmaps .nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + 0.7 * box["width"], box["y"] + 0.4 * box["height"])
    return answered(page.evaluate("() => window.firstChange"))


def answered(seconds: float | None) -> float:
    """What a page measurement found, or TimeoutError when it gave up (null)."""
    if seconds is None:
        raise TimeoutError(f"nothing happened in {TIMEOUT} s")
    return seconds


def cube_button(page, callbacks: Callbacks, url: str, direct_first: bool) -> tuple[float, float]:
    """s from a click on a cube head button until the cube drew, and from a click on a button that restyles the
    same planes directly, in the same page. The first restyle after a load takes some 5 to 10 ms longer than the
    next, whichever button makes it: an untimed click of the plain button comes first, and the repeats take
    turns at which is timed first."""
    load(page, callbacks, url, CUBE_BUTTON.start, CUBE_BUTTON.scroll)
    page.evaluate(DIRECT_BUTTON)
    buttons = {"app": HEAD_3, "direct": "#direct-restyle"}
    times = {}
    for name in ("untimed", "direct", "app") if direct_first else ("untimed", "app", "direct"):
        page.evaluate(CLICK_TO_CUBE, TIMEOUT)
        page.click(buttons.get(name, buttons["direct"]))
        times[name] = answered(page.evaluate("() => window.clickToCube"))
        settle(page, callbacks)  # the app's click also sets the buttons' value in Dash
    return times["app"], times["direct"]


def serve(module: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m"] + shlex.split(GUNICORN.format(port=port, module=module)),
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_up(url + "/", proc, timeout=120)
    return proc, url


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="run the interactions whose name contains this")
    parser.add_argument("--verbose", action="store_true", help="print each run's draw times")
    args = parser.parse_args()
    chosen = [i for i in INTERACTIONS if args.only in i.name]
    data = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "repeats": args.repeats,
            "load": [os.getloadavg()[0]], "compared": [], "alone": []}
    servers = []
    try:
        servers = [serve("app:server"), serve("bench.floor_app:server")]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS + SOFTWARE_GL, headless=True)
            pages = {}
            for name, (_, url) in zip(("app", "floor"), servers):
                context = browser.new_context(viewport={"width": 1440, "height": 900})
                page = context.new_page()
                page.on("pageerror", lambda e, name=name: print(f"   {name} page error: {e}"))
                page.on("requestfailed", lambda r, name=name: print(f"   {name} request failed: {r.url} {r.failure}"))
                first, repeat = page_bytes(page, url)
                print(f"{name:>5}: first load {first / 1e6:.2f} MB, repeat load {repeat / 1e3:.0f} kB transferred")
                pages[name] = (page, Callbacks(page), url)
            data["machine"] = f"{os.cpu_count()} cores, Chromium {browser.version}, software WebGL"
            print(f"WebGL: {pages['app'][0].evaluate(WEBGL_RENDERER)}; {args.repeats} repeats; "
                  f"load average {os.getloadavg()[0]:.1f}\n")
            print("In s after the input, median (min–max) of the repeats, app and floor taking turns in one browser.\n"
                  f"{FOCUS}: when the figure the student looks at first drew; last: the last draw of anything\n"
                  "near the screen; answer: the first byte of the server's last answer (callback requests).\n")
            print(f"{'interaction':<22} | {'app: draws per graph':<44} | {'answer':<11} | {'app: ' + FOCUS:<17} | "
                  f"{'floor: ' + FOCUS:<17} | {'ratio':<6} | {'app: last':<17} | {'floor: last':<17} | "
                  f"{'ratio':<6} | timeouts")
            for interaction in chosen:
                runs = {"app": [], "floor": []}
                for _ in range(args.repeats):
                    for name in ("app", "floor") if interaction.floor else ("app",):
                        page, callbacks, url = pages[name]
                        runs[name].append(attempt(page, callbacks, url, interaction))
                        if args.verbose and runs[name][-1]:
                            print(f"   {name}: " + ", ".join(f"{g} {t}" for g, t in runs[name][-1].items()))
                counts, answer, focus, _, ends, timeouts = summary(runs["app"])
                _, _, floor_focus, _, floor_ends, floor_timeouts = summary(runs["floor"])
                print(f"{interaction.name:<22} | {counts:<44} | {answer:<11} | {seconds(focus):<17} | "
                      f"{seconds(floor_focus):<17} | {ratio(focus, floor_focus):<6} | {seconds(ends):<17} | "
                      f"{seconds(floor_ends):<17} | {ratio(ends, floor_ends):<6} | "
                      f"{timeouts} app, {floor_timeouts} floor", flush=True)
                if interaction.floor:
                    if focus or floor_focus:
                        data["compared"].append({"name": interaction.name, "what": FOCUS, "app": focus,
                                                 "floor": floor_focus})
                    data["compared"].append({"name": interaction.name, "what": "last draw", "app": ends,
                                             "floor": floor_ends})
                elif interaction is not CUBE_BUTTON:
                    data["alone"].append({"name": interaction.name, "what": "last draw", "app": ends,
                                          "target": TARGETS.get(interaction.name.split()[0])})
            page, callbacks, url = pages["app"]
            clicks = [t for _ in range(args.repeats) for t in measured(drilldown, page, callbacks, url)]
            print(f"\nclick on a cell → drill-down: {seconds(clicks)} ({args.repeats - len(clicks)} timeouts)")
            cube = [pair for k in range(args.repeats)
                    for pair in measured(cube_button, page, callbacks, url, k % 2 == 1)]
            button, direct = [b for b, _ in cube], [d for _, d in cube]
            print(f"cube head button: {seconds(button)}; a button that calls Plotly.restyle of the same opacities: "
                  f"{seconds(direct)}; {ratio(button, direct)} ({args.repeats - len(cube)} timeouts)")
            data["alone"] += [{"name": "click on a cell", "what": "drill-down", "app": clicks,
                               "target": TARGETS["drill-down"]},
                              {"name": "cube head button", "what": "cube drawn", "app": button}]
            browser.close()
        if not args.only:  # a partial run would leave the chart without its other rows
            data["load"].append(os.getloadavg()[0])
            chart.write(data, chart.DATA, chart.CHART)
            print(f"\nwrote {chart.DATA.relative_to(ROOT)} and {chart.CHART.relative_to(ROOT)}")
    finally:
        for proc, _ in servers:
            stop(proc)


if __name__ == "__main__":
    main()
