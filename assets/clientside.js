// Clientside callbacks: what needs no server round trip runs here.
// `config` is the page's CONFIG store (dashboard/views/__init__.py): allowed values, defaults and ids,
// defined once in Python (dashboard/limits.py); nothing here repeats a rule of its own.

// The watched graphs near the screen, from half a screen above the viewport to half a screen below it, in the
// NEAR store. A gate that watches a graph passes only while it is near: a change of h redraws what the student
// can see, and a figure further away redraws, once, when the student scrolls to it. A graph in a hidden tab is
// never near. Graphs are found by id at each check: dcc.Graph replaces its own element as it loads.
const watchedGraphs = new Set();
let nearStore = null;
let nearNow = "";
let checkQueued = false;
function checkGraphs() {
  checkQueued = false;
  const margin = window.innerHeight / 2;
  const near = [...watchedGraphs].filter((id) => {
    const graph = document.getElementById(id);
    const box = graph && graph.getBoundingClientRect();
    return box && box.height > 0 && box.top < window.innerHeight + margin && box.bottom > -margin;
  }).sort();
  if (near.join() !== nearNow) {
    nearNow = near.join();
    dash_clientside.set_props(nearStore, { data: near });
  }
}
function queueCheck() {
  if (!checkQueued && watchedGraphs.size) {
    checkQueued = true;
    requestAnimationFrame(checkGraphs);  // after the frame's layout: a tab just shown has its boxes
  }
}
function watchGraph(id, storeId) {
  nearStore = storeId;
  watchedGraphs.add(id);
  queueCheck();
}
window.addEventListener("scroll", queueCheck, { passive: true });
window.addEventListener("resize", queueCheck);
new ResizeObserver(queueCheck).observe(document.documentElement);  // graphs and text that load move the rest

window.dash_clientside = Object.assign({}, window.dash_clientside, {
  explorer: {
    // One section visible at a time; the others stay mounted so their figures and cameras persist.
    // The model bar shows on the tabs it drives (config.modelTabs).
    showTab: function (tab, config) {
      return dash_clientside.callback_context.outputs_list.map((o) =>
        o.id === config.ids.modelBar ? !config.modelTabs.includes(tab) : o.id !== config.ids.section + tab);
    },

    // Hidden tabs do no work (dashboard/views/gate.py): a gate passes its controls' values on while one of
    // its tabs is shown and one of the graphs it watches is near the screen, and only when they differ from
    // those its view last drew.
    gate: function (tab, near, ...values) {
      const config = values.pop();
      const passed = values.pop();
      const { tabs, watch } = config.gates[dash_clientside.callback_context.outputs_list.id];
      watch.forEach((id) => watchGraph(id, config.ids.near));
      if (watch.length && !watch.some((id) => near.includes(id))) return dash_clientside.no_update;
      const same = JSON.stringify(values) === JSON.stringify(passed);
      return tabs.includes(tab) && !same ? values : dash_clientside.no_update;
    },

    // How figures are drawn: a phone-width page puts fewer panels in a row (turning the phone updates it),
    // lecture mode draws them larger. The width test is the CSS's (max-width: …), so both switch together.
    display: function (pathname, lecture, config) {
      const query = window.matchMedia("(max-width: " + (config.narrowWidth - 0.02) + "px)");
      const state = { narrow: query.matches, lecture: lecture === true };
      document.documentElement.classList.toggle("lecture", state.lecture);
      window.explorerDisplay = state;
      if (!window.explorerWatchesWidth) {
        window.explorerWatchesWidth = true;
        query.addEventListener("change", (e) => {
          window.explorerDisplay = Object.assign({}, window.explorerDisplay, { narrow: e.matches });
          dash_clientside.set_props(config.ids.display, { data: window.explorerDisplay });
        });
      }
      return state;
    },

    // Head buttons follow h: 'head 1..h', after 'all' where the view has it.
    // A chosen head that no longer exists falls back to the first button.
    headOptions: function (h, chosen, config) {
      const n = config.heads.includes(h) ? h : 1;
      const heads = Array.from({ length: n }, (_, k) => ({ label: "head " + (k + 1), value: k + 1 }));
      const withAll = config.ids.headButtonsWithAll.includes(dash_clientside.callback_context.outputs_list[0].id);
      const options = withAll ? [{ label: "all", value: config.allHeads }].concat(heads) : heads;
      return [options, options.some((o) => o.value === chosen) ? dash_clientside.no_update : options[0].value];
    },

    // Bring one plane of the cube forward by patching trace opacities only: the camera stays.
    focusHead: function (focus, figure, config) {
      const patch = new dash_clientside.Patch();
      const opacity = figure.layout.meta.opacity;
      figure.data.forEach((trace, i) => {
        if (trace.type === "surface") {
          const on = focus === config.allHeads || focus === i + 1;
          patch.assign(["data", i, "opacity"], on ? opacity.on : opacity.off);
        }
      });
      return patch.build();
    },

    // A click on a per-head heatmap (trace i is head i + 1, x the key, y the query) selects that cell.
    // Cube planes report cell corners, which round to the cell.
    pickCell: function (click) {
      const point = click && click.points && click.points[0];
      if (!point) return [dash_clientside.no_update, dash_clientside.no_update, dash_clientside.no_update];
      return [point.curveNumber + 1, Math.round(point.y), Math.round(point.x)];
    },

    // Shuffle, reverse or reset the typed token order; the server checks whatever arrives.
    reorder: function (shuffles, reverses, resets, text, identityOrder, config) {
      const trigger = dash_clientside.callback_context.triggered_id;
      const identity = identityOrder.split(" ").map(Number);
      let order = identity;
      if (trigger === config.ids.shuffle) {
        order = identity.slice();
        for (let i = order.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [order[i], order[j]] = [order[j], order[i]];
        }
      } else if (trigger === config.ids.reverse) {
        const current = String(text || "").trim().split(/[\s,;]+/).map(Number);
        const valid = current.length === identity.length && current.every(Number.isInteger);
        order = (valid ? current : identity).slice().reverse();
      }
      return order.join(" ");
    },

    // The page's own address, for the share box.
    shareLink: function (search) {
      return window.location.origin + window.location.pathname + (search || "");
    },

    // Copy the share box's link: the clipboard where the browser allows it (https or localhost),
    // else the link is selected for Ctrl+C.
    copyLink: function (clicks, boxId) {
      const box = document.getElementById(boxId);
      if (navigator.clipboard && window.isSecureContext) {
        return navigator.clipboard.writeText(box.value).then(() => "link copied", () => "press Ctrl+C to copy");
      }
      box.select();
      return "selected: press Ctrl+C to copy";
    },

    // "train" shows the runs of the chosen training seed; the server trains them once, then caches them.
    train: function (clicks, seed) {
      return seed;
    },

    // Play steps the training slider forward, one snapshot every tick of the timer, and stops at the end.
    play: function (clicks, ticks, step, paused, config) {
      const no = dash_clientside.no_update;
      const { every, last } = config.steps;
      if (dash_clientside.callback_context.triggered_id === config.ids.play) {
        return paused ? [step >= last ? 0 : no, false, "pause"] : [no, true, "play"];
      }
      return step + every >= last ? [last, true, "play"] : [step + every, no, no];
    },

    // Class mode (dashboard/views/classroom.py): /class starts a session; /class/CODE is the lecturer's page
    // when this tab holds the session's control token, else a student's. The token comes in the fragment
    // (#control=…, in no request line, so in no access log); it moves to sessionStorage (the CONTROL store)
    // and out of the address bar, which the projector shows. The server checks code and token.
    classPage: function (pathname, hash, control, config) {
      const root = config.classMode.path;
      const path = pathname || "";
      const inClass = path === root || path.startsWith(root + "/");
      const code = inClass ? path.slice(root.length + 1).split("/")[0] : "";
      const given = new URLSearchParams((hash || "").slice(1)).get("control");
      let stored = dash_clientside.no_update;
      if (given && code) control = stored = { code: code, token: given };
      const token = control && control.code === code ? control.token : null;
      const mode = !inClass ? "off" : !code ? "start" : token ? "lecturer" : "student";
      const page = { mode: mode, code: code, token: token, origin: window.location.origin };
      document.documentElement.classList.toggle("class-mode", inClass);  // hides the dashboard (class.css)
      const cleared = given ? "" : dash_clientside.no_update;  // dcc.Location then drops it from the address bar
      return [page, stored, cleared, !inClass, mode !== "start", mode !== "lecturer", mode !== "student"];
    },

    // The join link and code for the projector; the control link only in the lecturer's own box.
    classLinks: function (page, config) {
      if (!page || page.mode !== "lecturer") return ["", "", ""];
      const join = page.origin + config.classMode.path + "/" + page.code;
      return [join, page.code, join + "#control=" + page.token];
    },

    // A student's anonymous id, kept in localStorage: random, made once per browser. getRandomValues also
    // works on a plain-http classroom address, where crypto.randomUUID does not.
    studentId: function (page, id) {
      if (id) return dash_clientside.no_update;
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    },

    // A student's page polls for the question; no other page does.
    studentPoll: function (page) {
      return !(page && page.mode === "student");
    },

    // The URL holds the state listed in config.url (each entry: key, component id, default, rule, tab, when),
    // so a link opens that view and back and forward work. A missing or bad parameter means the default.
    syncUrl: function (search, ...args) {
      const config = args.pop();
      const params = config.url;
      const no = dash_clientside.no_update;
      const triggered = dash_clientside.callback_context.triggered.map((t) => t.prop_id);
      const fromUrl = triggered.length === 0 || triggered.some((p) => p === config.ids.url + ".search" || p === ".");
      if (fromUrl) {
        const q = new URLSearchParams(search || "");
        // A class-mode page (/class…) shows no tab: the hidden dashboard's views then draw nothing.
        const inClass = window.location.pathname.startsWith(config.classMode.path);
        return [no].concat(params.map((p) => (inClass && p.key === "tab" ? null : readParam(q, p))));
      }
      const value = (key) => args[params.findIndex((p) => p.key === key)];
      const before = new URLSearchParams(search || "");
      const q = new URLSearchParams();
      params.forEach((p, i) => {
        if ((p.tab === null || p.tab === value("tab")) && (p.when === null || value(p.when[0]) === p.when[1])) {
          const text = writeParam(p, args[i]);
          const kept = text === undefined ? before.get(p.key) : text;  // a bad value leaves the URL as it was
          if (kept !== null) q.set(p.key, kept);
        }
      });
      const next = "?" + q.toString();
      return [next === search ? no : next].concat(params.map(() => no));
    },
  },
});

// A URL parameter by its rule (see dashboard/limits.py, url_param), or the default.
function readParam(q, p) {
  const text = q.get(p.key);
  if (text === null || text === "") return p.default;
  const rule = p.rule;
  if (rule.flag) return text === "1";
  if (rule.items) return text.split(",").slice(0, rule.items).map(Number).filter(Number.isInteger);
  if (rule.order) return isOrder(text.split(","), rule.order) ? text.replaceAll(",", " ") : p.default;
  const number = Number(text);
  if (rule.count) return Number.isInteger(number) && number >= 0 && number < rule.count ? number : p.default;
  const found = rule.choices.find((c) => String(c) === text);
  return found === undefined ? p.default : found;
}

// A value as it stands in the URL; null leaves it out, undefined keeps what the URL has.
function writeParam(p, value) {
  if (p.rule.flag) return value ? "1" : null;
  if (p.rule.items) return Array.isArray(value) && value.length ? value.join(",") : null;
  if (p.rule.order) {
    const words = String(value || "").trim().split(/[\s,;]+/);
    return isOrder(words, p.rule.order) ? words.join(",") : undefined;
  }
  if (p.rule.count) return Number.isInteger(value) && value >= 0 && value < p.rule.count ? String(value) : undefined;
  return String(value);
}

// Words that are the numbers 0..k-1, each once, in some order, for some k up to `most`.
// The server checks the order against the current number of tokens; this only keeps junk out of the URL.
function isOrder(words, most) {
  const seen = new Set(words.filter((w) => /^[0-9]+$/.test(w)).map(Number));
  return words.length <= most && seen.size === words.length && [...seen].every((k) => k < words.length);
}

// dcc.Graph calls Plotly.Plots.resize whenever a graph's box changes size, and the box changes size
// when Plotly has just drawn a figure of another height (a change of h adds or removes a row of heatmaps).
// That resize finds the box already at the drawn size, yet relayouts the graph and fires a second
// 'plotly_afterplot', some 150 ms and a busy main thread later. Skip a resize that cannot change
// the drawing: a graph in a hidden tab (no box), one whose box has the drawn size, to Plotly's own
// 1 px (plotAutoSize), or one with no traces yet (a view's placeholder: its figure is on the way, and
// layout.autosize draws it at the box's width). A box of any other size (the window, a phone turned,
// a tab shown) resizes as before.
document.addEventListener("DOMContentLoaded", () => {
  const resize = Plotly.Plots.resize;
  Plotly.Plots.resize = function (gd) {
    const full = gd && gd._fullLayout;
    if (full && gd.getClientRects) {
      const style = window.getComputedStyle(gd);
      const hidden = gd.getClientRects().length === 0;
      const drawnSize = Math.abs(parseFloat(style.width) - full.width) <= 1
        && Math.abs(parseFloat(style.height) - full.height) <= 1;
      const placeholder = !gd.data || gd.data.length === 0;
      if (hidden || drawnSize || placeholder) return Promise.resolve(gd);
    }
    return resize.apply(this, arguments);
  };
});
