"""Watch a page draw, for the browser tests and bench/bench_interactions.py: every 'plotly_afterplot' of every
graph since a clock started at the user's input, the resizes dcc.Graph asks of Plotly, and the callbacks in flight.
`settle` waits (polling every other frame, never sleeping) until the page is calm."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

QUIET = 1.0  # s without a draw, a callback or a pending resize: the interaction has ended
TIMEOUT = 60  # s for a page or an interaction to settle

# In the page: each graph's draws since the clock started, the resizes dcc.Graph asks of Plotly,
# and each graph's box. dcc.Graph calls Plotly.Plots.resize some 50 ms after its box changes size,
# so a box that changed after the last resize call, or an unfinished resize, means a draw may follow.
# The clock starts at the first pointer or key event after arm().
RECORDER = """() => {
  if (window.drawRecorder) return;
  const rec = window.drawRecorder = {armed: false, start: null, last: 0, draws: {}, reacts: {}, resizing: 0,
    boxes: new Map(),
    arm() { this.armed = true; this.start = null; this.draws = {}; this.reacts = {}; },
    // a graph no longer in the page (its tab's view unmounted: explorer/__init__.py) has nothing to resize
    pending() { return this.resizing > 0 || [...this.boxes].some(([gd, b]) => gd.isConnected && b.changed > b.resized); },
  };
  const graphId = gd => gd.parentElement.closest('[id]').id;
  const observer = new ResizeObserver(entries => entries.forEach(({target, contentRect: {width, height}}) => {
    const box = rec.boxes.get(target);  // the first entry, as observing starts, gives the size as it is
    const changed = box.width !== null && (box.width !== width || box.height !== height);
    Object.assign(box, {width, height}, changed ? {changed: performance.now()} : {});
  }));
  const watch = gd => {
    if (rec.boxes.has(gd) || !gd.on) return;
    rec.boxes.set(gd, {width: null, height: null, changed: 0, resized: 0});
    observer.observe(gd);
    gd.on('plotly_afterplot', () => {
      rec.last = performance.now();
      // a figure drawn: not the empty plot a graph draws as its tab's view mounts
      if (rec.start !== null && gd.data.length) (rec.draws[graphId(gd)] ||= []).push(rec.last - rec.start);
    });
  };
  document.querySelectorAll('.js-plotly-plot').forEach(watch);
  const react = Plotly.react;
  Plotly.react = function (gd, ...args) {
    // each new figure Dash hands a graph (a draw may also come from dcc.Graph's resize, after a new height)
    if (rec.start !== null && ((args[0] && args[0].data) || []).length) (rec.reacts[graphId(gd)] ||= []).push(performance.now());
    const done = react.call(this, gd, ...args);
    watch(gd);  // a graph drawn for the first time: Plotly has just given it .on()
    return done;
  };
  const resize = Plotly.Plots.resize;
  Plotly.Plots.resize = function (gd) {
    const box = rec.boxes.get(gd);
    if (box) box.resized = performance.now();
    rec.resizing += 1;
    const done = resize.call(this, gd);
    done.finally(() => { rec.resizing -= 1; rec.last = performance.now(); }).catch(() => {});
    return done;
  };
  for (const type of ['pointerdown', 'keydown']) {
    document.addEventListener(type, () => {
      if (rec.armed) { rec.armed = false; rec.start = rec.last = performance.now(); }
    }, true);
  }
}"""

# The recorder's state two frames on. A box's change of size reaches ResizeObservers in the frame after
# the draw that made it, so `calm` (nothing drew or resized between the two frames) means every such
# change is in `pending` by now.
STATE = """() => new Promise((resolve, reject) => {
  setTimeout(() => reject(new Error('no frame drawn in 10 s')), 10000);  // page.evaluate has no timeout
  requestAnimationFrame(() => {
    const before = window.drawRecorder.last;
    requestAnimationFrame(() => {
      const rec = window.drawRecorder;
      const answers = performance.getEntriesByType('resource').filter(e => e.name.includes('_dash-update-component')
        && rec.start !== null && e.startTime >= rec.start).map(e => e.responseStart - rec.start);
      const unplotted = [...document.querySelectorAll('.dash-graph')].filter(g => !g.querySelector('.js-plotly-plot'));
      resolve({now: performance.now(), start: rec.start, last: rec.last, calm: rec.last === before,
               pending: rec.pending(), draws: rec.draws, reacts: rec.reacts, requests: answers.length,
               answered: answers.length ? Math.max(...answers) : null,
               unplotted: unplotted.length});
    });
  });
})"""


def choose(control: str, label: str) -> Callable:
    """Set a control to `label`: type it into a number box, click its radio button, or pick it in a dropdown."""
    exactly = re.compile(f"^{re.escape(label)}$")
    starts = re.compile(f"^{re.escape(label)}")  # a tab's label ends with its short name for phones

    def act(page, arm):
        box = page.locator(f"#{control}")
        if box.evaluate("e => e.tagName") == "INPUT":
            box.fill(label)
            arm()
            box.press("Enter")
        elif box.locator("input[type=radio]").count():
            arm()
            box.locator("label").filter(has_text=starts).click()
        else:
            box.click()
            option = page.locator(".dash-dropdown-option").filter(has_text=exactly).first
            option.wait_for()
            arm()
            option.click()
    return act


class Callbacks:
    """Requests to Dash's callback endpoint in flight, from the page's request events. Only requests seen to start
    count: one that began before the listener (a page load's late callbacks) must not make the count negative,
    which read as never settled."""

    def __init__(self, page):
        self.started = set()
        page.on("request", lambda r: self.started.add(r) if "_dash-update-component" in r.url else None)
        page.on("requestfinished", lambda r: self.started.discard(r))
        page.on("requestfailed", lambda r: self.started.discard(r))

    @property
    def in_flight(self) -> int:
        return len(self.started)


def settle(page, callbacks: Callbacks, need_start: bool = False, ready: Callable = lambda s: True,
           quiet: float = QUIET) -> dict:
    """Poll every other frame until no callback is in flight, no resize is pending, `ready(state)`,
    and `quiet` s passed without a draw."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        state = page.evaluate(STATE)
        started = state["start"] is not None or not need_start
        if (started and not callbacks.in_flight and state["calm"] and not state["pending"] and ready(state)
                and state["now"] - max(state["last"], state["start"] or 0) >= quiet * 1000):
            return state
    raise TimeoutError(f"the page did not settle in {TIMEOUT} s")
