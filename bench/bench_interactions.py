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
scrolled) and what the user does. The app draws the figures near the screen (dashboard/explorer/gate.py):
scrolled to the heatmaps, that is the heatmaps and the cube, the floor's two figures.

Run: python bench/bench_interactions.py [--repeats 5] [--only h]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from deploy.serve import GUNICORN  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402
from tests.conftest import free_port, stop, wait_until_up  # noqa: E402
from tests.recorder import RECORDER, Callbacks, choose, settle  # noqa: E402

SOFTWARE_GL = ["--use-gl=swiftshader", "--enable-unsafe-swiftshader"]
ANSWERED = "answered"

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
    return click(f"#tab label:text-is('{label}')")


INTERACTIONS = [
    Interaction("h 1 → 8, page top", "?h=1", choose("heads", "8"), floor=True),
    Interaction("h 1 → 8", "?h=1", choose("heads", "8"), floor=True, scroll="#heatmaps"),
    Interaction("h 8 → 2", "?h=8", choose("heads", "2"), floor=True, scroll="#heatmaps"),
    Interaction("h 4 → 8", "?h=4", choose("heads", "8"), floor=True, scroll="#heatmaps"),
    Interaction("seed 0 → 5", "?h=4", choose("seed", "5"), floor=True, scroll="#heatmaps"),
    Interaction("cube head button", "?h=4", click("#cube-focus label:text-is('head 3')"), scroll="#cube"),
    Interaction("tab → single vs multi", "?h=4", tab("Single vs multi-head")),
    Interaction("tab → equivariance", "?h=4", tab("Equivariance")),
    Interaction("tab → learning", "?h=4", tab("Learning")),
    Interaction("tab → worked example", "?h=4&tab=mixing", tab("Worked example")),
    Interaction("learning-lab step", "?h=4&tab=learning", press("#learn-step [role=slider]", "ArrowLeft")),
]


def run_once(page, callbacks: Callbacks, url: str, interaction: Interaction) -> dict:
    """Load the start state, let it settle, then time the interaction: {graph: [draw times in s]},
    and under ANSWERED when the last callback's answer began to arrive (None if none was asked) and how many."""
    page.goto(url + "/" + interaction.start)
    page.wait_for_selector(".js-plotly-plot", state="attached")
    page.evaluate(RECORDER)
    settle(page, callbacks, ready=lambda state: state["unplotted"] == 0)  # every graph's first draw is done
    if interaction.scroll:  # the student has scrolled there: what is near it draws (views/gate.py)
        page.locator(interaction.scroll).scroll_into_view_if_needed()
        settle(page, callbacks)
    interaction.act(page, lambda: page.evaluate("window.drawRecorder.arm()"))
    state = settle(page, callbacks, need_start=True)
    draws = {graph: [t / 1000 for t in times] for graph, times in state["draws"].items()}
    return {**draws, ANSWERED: (state["answered"] and state["answered"] / 1000, state["requests"])}


def summary(runs: list[dict]) -> tuple[str, str, list[float], list[float]]:
    """'heatmaps 1, cube 1' (a range where the repeats differ); the median time the server's last
    answer began to arrive, with the number of callback requests; for each run the time every graph had drawn
    (the last of the graphs' first draws), and the time of the last draw."""
    answers = [run.pop(ANSWERED) for run in runs]
    graphs = sorted({g for run in runs for g in run}, key=lambda g: min(min(run.get(g, [99])) for run in runs))
    counts = []
    for g in graphs:
        n = [len(run.get(g, [])) for run in runs]
        counts.append(f"{g} {min(n)}" if min(n) == max(n) else f"{g} {min(n)}–{max(n)}")
    drawn = [max((times[0] for times in run.values()), default=float("nan")) for run in runs]
    ends = [max((times[-1] for times in run.values()), default=float("nan")) for run in runs]
    answered = [a for a, _ in answers if a is not None]
    requests = "–".join(sorted({str(n) for _, n in answers}))
    answer = f"{statistics.median(answered):.2f} s ({requests})" if answered else "—"
    return ", ".join(counts) or "none", answer, drawn, ends


def seconds(ends: list[float]) -> str:
    return f"{statistics.median(ends):.2f} s ({min(ends):.2f}–{max(ends):.2f})"


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
                first, repeat = page_bytes(page, url)
                print(f"{name:>5}: first load {first / 1e6:.2f} MB, repeat load {repeat / 1e3:.0f} kB transferred")
                pages[name] = (page, Callbacks(page), url)
            print(f"WebGL: {pages['app'][0].evaluate(WEBGL_RENDERER)}; {args.repeats} repeats\n")
            print("answer: the first byte of the server's last answer (callback requests); drawn: every graph\n"
                  "has drawn (the last first draw); last: the last draw. In s after the input, median (min–max)\n"
                  "of the repeats. app/floor: the app's last draw over the floor's drawn.\n")
            print(f"{'interaction':<22} | {'app: draws per graph':<40} | {'answer':<11} | {'app: drawn':<17} | "
                  f"{'app: last':<17} | {'floor: draws per graph':<22} | {'answer':<11} | {'floor: drawn':<17} | "
                  f"{'floor: last':<17} | app/floor")
            for interaction in chosen:
                runs = {"app": [], "floor": []}
                for _ in range(args.repeats):
                    for name in ("app", "floor") if interaction.floor else ("app",):
                        page, callbacks, url = pages[name]
                        runs[name].append(run_once(page, callbacks, url, interaction))
                        if args.verbose:
                            print(f"   {name}: " + ", ".join(f"{g} {times}" for g, times in runs[name][-1].items()))
                counts, answer, drawn, ends = summary(runs["app"])
                row = (f"{interaction.name:<22} | {counts:<40} | {answer:<11} | {seconds(drawn):<17} | "
                       f"{seconds(ends):<17} | ")
                if interaction.floor:
                    floor_counts, floor_answer, floor_drawn, floor_ends = summary(runs["floor"])
                    ratio = statistics.median(ends) / statistics.median(floor_drawn)
                    row += (f"{floor_counts:<22} | {floor_answer:<11} | {seconds(floor_drawn):<17} | "
                            f"{seconds(floor_ends):<17} | {ratio:.2f}x")
                else:
                    row += f"{'—':<22} | {'—':<11} | {'—':<17} | {'—':<17} |"
                print(row, flush=True)
            browser.close()
    finally:
        for proc, _ in servers:
            stop(proc)


if __name__ == "__main__":
    main()
