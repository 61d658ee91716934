// The gates' browser side (dashboard/explorer/gate.py): hidden tabs do no work. A gate passes its controls'
// values on, by name, while one of its tabs is shown, once one of the graphs it watches is near the screen, and
// only when they differ from those it last passed; the figure the student looks at draws first (release).
(function () {
  // The watched graphs near the screen: from half a screen above the viewport to half a screen below it. A
  // gate that watches graphs passes only while one of them is near: a change of h redraws what the student
  // can see, and a figure further away redraws, once, when the student scrolls to it. A graph in a hidden tab
  // is never near. Graphs are found by id at each check: dcc.Graph replaces its element as it loads.
  // Nearness is this module's own state, not a Dash store: a scroll releases the gates that waited for it
  // and wakes no other callback (as a store input, each scroll ran every gate).
  const watched = new Set();
  let near = [];
  let gates = null;  // config.gates, once a gate has run
  let checkQueued = false;
  const sent = {};  // gate id -> the values it last passed, as JSON
  const waiting = {};  // gate id -> the latest values it holds back, until a graph it watches comes near
  const queued = new Map();  // key -> the token of the work that runs once the graph looked at drew (afterLookedAt)
  const drawing = new Map();  // graph id -> what waits for its figure on the way to be drawn (pass)
  const listening = new WeakSet();  // graph elements with a listener for their next draw (pass)
  const startHidden = new Set();  // gates whose start values' answer the page hides (explorer.untilAnswered)

  function isNear(id) {
    const box = document.getElementById(id)?.getBoundingClientRect();
    const margin = window.innerHeight / 2;
    return !!box && box.height > 0 && box.top < window.innerHeight + margin && box.bottom > -margin;
  }
  function checkGraphs() {
    checkQueued = false;
    near = [...watched].filter(isNear);
    Object.keys(waiting).forEach(release);
  }
  // The near graph whose middle is nearest the middle of the screen: the one the student looks at.
  function lookedAt() {
    const offset = (graph) => {
      const box = document.getElementById(graph)?.getBoundingClientRect();
      return box ? Math.abs(box.top + box.height / 2 - window.innerHeight / 2) : Infinity;
    };
    return near.slice().sort((a, b) => offset(a) - offset(b))[0];
  }
  // Passes a gate's values on. The graphs it watches then have a figure on the way: until each has drawn,
  // `drawing` holds what waits for it (release).
  function pass(id) {
    const named = waiting[id];
    delete waiting[id];
    sent[id] = JSON.stringify(named);
    gates[id].watch.forEach((graph) => {
      const gd = document.querySelector(`#${graph} .js-plotly-plot`);
      if (typeof gd?.once !== "function") return;  // never drawn yet: nothing to wait on
      if (!drawing.has(graph)) drawing.set(graph, []);
      // One listener on the element as it is now: an entry ends at the graph's next draw, even after an answer
      // that drew nothing or an element that dcc.Graph replaced, and a gate that watches a graph it does not
      // draw (the clinic's path) adds no listener per click.
      if (listening.has(gd)) return;
      listening.add(gd);
      gd.once("plotly_afterplot", () => {
        listening.delete(gd);
        const then = drawing.get(graph) || [];
        drawing.delete(graph);
        then.forEach((go) => go());
      });
    });
    return named;
  }
  // A waiting gate passes now if it watches nothing or the graph looked at. If it watches another near graph, or
  // passes text beside the figures (`after`), it passes once the graph looked at has drawn (afterLookedAt), so a
  // WebGL cube or a table never delays the figure looked at, nor waits for its paint. Else it waits.
  function release(id) {
    const { watch } = gates[id];
    if (!(id in waiting) || (watch.length && !watch.some((graph) => near.includes(graph)))) return;
    if (passesNow(id)) {
      window.dash_clientside.set_props(id, { data: pass(id) });
    } else {
      afterLookedAt(id, () => {
        if (id in waiting && (!watch.length || watch.some(isNear))) window.dash_clientside.set_props(id, { data: pass(id) });
      });
    }
  }

  // Whether a gate passes without waiting for the graph looked at: it watches nothing or that graph, and is no text.
  function passesNow(id) {
    const { watch, after } = gates[id];
    return (!watch.length || watch.includes(lookedAt())) && !after;
  }

  // Runs `go` once the graph looked at has drawn the figure on its way, at the next frame if it has none on the
  // way (every callback of the change has run by then), or after a second if its answer drew nothing. Not in
  // idle time: the page is idle while it waits for the server, and work begun then delays the figure looked at.
  // While one waits under `key`, another is not queued: `go` does the latest work when it runs.
  function afterLookedAt(key, go) {
    if (queued.has(key)) return;
    // whichever of the three comes first runs; the others, and any left from an earlier change, find another
    // token and do nothing
    const token = {};
    queued.set(key, token);
    const run = () => {
      if (queued.get(key) !== token) return;
      queued.delete(key);
      clearTimeout(fallback);
      go();
    };
    const fallback = setTimeout(run, 1000);
    requestAnimationFrame(() => {
      const looked = drawing.get(lookedAt());
      if (looked) looked.push(run);
      else run();
    });
  }

  function queueCheck() {
    if (!checkQueued && watched.size && gates) {
      checkQueued = true;
      requestAnimationFrame(checkGraphs);  // after the frame's layout: a tab just shown has its boxes
    }
  }

  // A gate's clientside callback (explorer.js): the values to pass on now, by name, or null for none yet.
  function gate(id, tab, values, passed, config) {
    gates = config;
    const { tabs, watch, fields } = gates[id];
    watch.forEach((graph) => watched.add(graph));
    queueCheck();
    delete waiting[id];  // a later change replaces what waits: the latest values pass, never starve
    if (!tabs.includes(tab)) return null;
    const named = Object.fromEntries(fields.map((name, k) => [name, values[k]]));
    // until it first passes, a gate holds its start values (gate.py, Gate.start): a load passes no mere repeat,
    // unless the page hides their answer (a link opened on other values, then set back to them)
    const start = startHidden.has(id) ? null : gates[id].start;
    if (JSON.stringify(named) === (sent[id] ?? JSON.stringify(passed ?? start))) return null;
    waiting[id] = named;
    if (passesNow(id)) return pass(id);
    release(id);
    return null;
  }

  // A scroll, a new window size, graphs and text that load and move the rest: which graphs are near may change.
  function listen() {
    window.addEventListener("scroll", queueCheck, { passive: true });
    window.addEventListener("resize", queueCheck);
    new ResizeObserver(queueCheck).observe(document.documentElement);
  }

  // The answer the layout holds for a gate's start values is hidden: those values must pass like any other.
  function hideStart(id) {
    startHidden.add(id);
  }

  window.explorerGates = { gate, listen, hideStart, afterLookedAt };
})();
