// The explorer's clientside callbacks (window.dash_clientside.explorer): what needs no server round trip.
// `config` is the page's CONFIG store (dashboard/explorer/__init__.py): allowed values, defaults and ids,
// defined once in Python; the rules both languages need are in rules.js.
(function () {
  const rules = () => window.explorerRules;  // rules.js loads after this file (Dash loads assets by name)
  const gates = () => window.explorerGates;  // gates.js too
  const no = () => window.dash_clientside.no_update;

  // dcc.Graph calls Plotly.Plots.resize whenever a graph's box changes size, and the box changes size when
  // Plotly has just drawn a figure of another height (a change of h adds or removes a row of heatmaps). That
  // resize finds the box already at the drawn size, yet relayouts the graph and fires a second
  // 'plotly_afterplot', some 150 ms and a busy main thread later. dcc.Graph has no supported hook for this:
  // its `responsive` prop turns off every resize, also those a window, a turned phone or a shown tab need.
  // So a resize that cannot change the drawing is skipped: a graph in a hidden tab (no box), one whose box
  // has the drawn size (to Plotly's own 1 px), or one with no traces yet (its figure is on the way, and
  // layout.autosize draws it at the box's width).
  function skipIdleResizes() {
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
  }

  // The presenter view (dashboard/explorer/presenter.py): one figure's frame alone, full screen, in lecture mode.
  // Lecture mode is switched on while it shows, and back off after if it was off.
  let presented = null;
  let lectureBefore = false;
  function present(frame, config) {
    const ids = config.presenter;
    const button = (f) => f.querySelector("." + ids.present);
    if (presented) {
      presented.classList.remove("presented");
      button(presented).setAttribute("aria-pressed", "false");
      button(presented).textContent = window.pageMessage("present");
      document.documentElement.classList.remove("presenting");
      if (!lectureBefore) window.dash_clientside.set_props(ids.lecture, { value: false });
    }
    const leaving = !frame || frame === presented;
    const left = presented;
    presented = leaving ? null : frame;
    if (left) fitHeight(left.querySelector(".js-plotly-plot"));
    if (leaving) return;
    lectureBefore = document.documentElement.classList.contains("lecture");
    frame.classList.add("presented");
    button(frame).setAttribute("aria-pressed", "true");
    button(frame).textContent = window.pageMessage("leave");
    document.documentElement.classList.add("presenting");
    window.dash_clientside.set_props(ids.lecture, { value: true });
    button(frame).focus();
    const gd = frame.querySelector(".js-plotly-plot");
    if (gd && !gd.dataset.fits) {  // every later draw of this graph (a new h, lecture mode) is fitted too
      gd.dataset.fits = "1";
      gd.on("plotly_afterplot", () => fitHeight(gd));
    }
    fitHeight(gd);
  }

  // A presented figure is as tall as the screen, not as the figure the server drew for its place in the page
  // (the heatmaps' 760 px left a band of 140 px above and below them at 1080). Leaving gives the figure back
  // the height of Dash's latest drawing of it (figureHeight); Dash's later drawings keep their own.
  function fitHeight(gd) {
    if (!gd || !gd._fullLayout) return;
    const fitted = presented && presented.contains(gd);
    if (!fitted) {  // just left: once, and later draws from Dash are the page's own
      const own = Number(gd.dataset.figureHeight);
      delete gd.dataset.figureHeight;
      delete gd.dataset.fittedHeight;
      if (own && gd._fullLayout.height !== own) Plotly.relayout(gd, { height: own });
      return;
    }
    const box = getComputedStyle(presented), graph = getComputedStyle(gd.parentElement);
    const height = Math.floor(presented.clientHeight - parseFloat(box.paddingTop) - parseFloat(box.paddingBottom)
      - parseFloat(graph.paddingTop));
    if (gd._fullLayout.height === height) return;
    // a height other than the one set here is Dash's drawing for the page: the one to give back on leaving
    // (as drawn: a lecture-mode figure may leave its height to Plotly)
    if (gd._fullLayout.height !== Number(gd.dataset.fittedHeight)) gd.dataset.figureHeight = gd._fullLayout.height;
    gd.dataset.fittedHeight = height;
    Plotly.relayout(gd, { height });
  }

  // The figure frame nearest the middle of the screen, in the shown tab.
  function middleFrame() {
    const middle = window.innerHeight / 2;
    const frames = [...document.querySelectorAll(".figure-frame")].filter((f) => f.getClientRects().length);
    const distance = (f) => { const b = f.getBoundingClientRect(); return b.top > middle ? b.top - middle : Math.max(0, middle - b.bottom); };
    return frames.sort((a, b) => distance(a) - distance(b))[0] || null;
  }

  let state = {};  // the controls' values the URL holds, by key, as writeUrl last saw them
  let ownSearch = null;  // the URL writeUrl set last, until readUrl sees it come back

  // A piece of state by its URL key, read by the URL's rule (a bad value, a head typed out of range, reads as the
  // default, as in a link). Not from the URL: it may lag behind until the figure looked at has drawn.
  function current(config, key) {
    const param = config.url.find((p) => p.key === key);
    const text = rules().writeParam(param, state[key]);
    return rules().readParam(new URLSearchParams(text == null ? "" : { [key]: text }), param);
  }

  // The URL for `values` (the controls', in config.url's order), from the URL `search`.
  function urlFor(search, values, config) {
    const params = config.url;
    const value = (key) => values[params.findIndex((p) => p.key === key)];
    const before = new URLSearchParams(search || "");
    const q = new URLSearchParams();
    config.keepParams.forEach((key) => before.has(key) && q.set(key, before.get(key)));  // ?lang=: the page's
    params.forEach((p, i) => {
      if ((p.tab === null || p.tab === value("tab")) && (p.when === null || value(p.when[0]) === p.when[1])) {
        const text = rules().writeParam(p, values[i]);
        const kept = text === undefined ? before.get(p.key) : text;  // a bad value leaves the URL as it was
        if (kept !== null) q.set(p.key, kept);
      }
    });
    return "?" + q.toString();
  }

  // A head chooser's options for h heads and its value: the chosen head, or the first button if h has no such head.
  function headButtons(id, h, chosen, config) {
    const kind = config.ids.headButtonsWithAll.includes(id) ? "withAll" : "heads";
    const options = config.headOptions[kind][config.heads.includes(h) ? h : 1];
    return [options, options.some((o) => o.value === chosen) ? no() : options[0].value];
  }

  // The keys a lecturer drives the page with; the page lists them (presenter.SHORTCUTS).
  function onKey(event, config) {
    const typing = event.target.closest("input, textarea, select, [contenteditable]");
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    const ids = config.presenter;
    const h = current(config, "h");
    if (["1", "2", "4", "8"].includes(event.key)) {
      window.dash_clientside.set_props(ids.heads, { value: Number(event.key) });
    } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      const by = event.key === "ArrowRight" ? 1 : -1;
      if (current(config, "tab") === "learning") {
        const { every, last } = config.steps;
        const step = Math.min(last, Math.max(0, current(config, "step") + by * every));
        window.dash_clientside.set_props(config.ids.step, { value: step });
      } else {
        const head = ((current(config, "head") - 1 + by + h) % h) + 1;  // 1..h, round the ends
        window.dash_clientside.set_props(ids.head, { value: head });
      }
    } else if (event.key === "p" || event.key === "P") {
      present(presented || middleFrame(), config);
    } else if (event.key === "Escape" && presented) {
      present(null, config);
    } else {
      return;
    }
    event.preventDefault();
  }

  // Every listener the page needs, registered once, when the page's config arrives.
  function init(config) {
    gates().listen();
    window.addEventListener("resize", () => presented && fitHeight(presented.querySelector(".js-plotly-plot")));
    const narrow = window.matchMedia("(max-width: " + (config.narrowWidth - 0.02) + "px)");
    narrow.addEventListener("change", (e) => {
      window.explorerDisplay = Object.assign({}, window.explorerDisplay, { narrow: e.matches });
      window.dash_clientside.set_props(config.ids.display, { data: window.explorerDisplay });
    });
    skipIdleResizes();
    document.addEventListener("keydown", (event) => onKey(event, config));
    document.addEventListener("click", (event) => {
      const button = event.target.closest("." + config.presenter.present);
      if (button) present(button.closest(".figure-frame"), config);
    });
  }

  // A head button brings its plane of the cube forward: the page restyles the planes' opacities, with no new
  // figure through Dash (Plotly.react of a patched figure took half as long again), and the camera stays. A
  // listener on the click that chooses a button, in the capture phase: on its label's click when the pointer
  // chooses it (the button's own comes after React has handled the label's), on the button's when the
  // keyboard's arrows do. A callback on the buttons' value ran one Dash dispatch later, and React sets the
  // value on the button's click, so Dash's renderer did its work first. The figure Dash holds keeps the
  // opacities the server drew, and dcc.Graph draws it again only when a new one comes, which the server builds
  // with the chosen head forward (example.update_cube); when the buttons change with h, a chosen head that is
  // gone is 'all' there too.
  function focusPlanes(event) {
    const label = event.target.closest && event.target.closest("label");
    const button = label ? label.control : event.target;
    const chooser = button instanceof HTMLInputElement && !button.disabled && button.closest("[data-focuses]");
    if (!chooser) return;
    const gd = document.querySelector(`#${chooser.dataset.focuses} .js-plotly-plot`);
    if (!gd?.data?.length) return;  // not drawn yet: its figure comes with the chosen head forward
    bringForward(gd, button.value);
    // A figure asked for before this click was built with the head chosen then: once it is drawn, the planes
    // follow the chosen button again (Plotly.react, not a restyle, fires 'plotly_react').
    if (!gd.followsButtons) {
      gd.followsButtons = true;
      gd.on("plotly_react", () => {
        const chosen = chooser.querySelector("input:checked");
        if (chosen) bringForward(gd, chosen.value);
      });
    }
  }

  function bringForward(gd, value) {
    const planes = gd.data.map((trace, i) => (trace.type === "mesh3d" ? i : -1)).filter((i) => i >= 0);
    const { on, off } = gd.layout.meta.opacity;
    const opacity = rules().focusedPlanes(planes.length, Number(value)).map((forward) => (forward ? on : off));
    // chosen already: its label's click restyled, or the student clicked the chosen head again
    if (planes.every((trace, k) => gd.data[trace].opacity === opacity[k])) return;
    Plotly.restyle(gd, { opacity }, planes);
  }
  document.addEventListener("click", focusPlanes, true);

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    explorer: {
      init: init,

      // One section visible at a time; the others stay mounted so their figures and cameras persist.
      // The model bar shows on the tabs it drives (config.modelTabs).
      showTab: function (tab, config) {
        return window.dash_clientside.callback_context.outputs_list.map((o) =>
          o.id === config.ids.modelBar ? !config.modelTabs.includes(tab) : o.id !== config.ids.section + tab);
      },

      // Gates pass their controls' values on, by name, only while their view is shown and near (gates.js). One
      // callback serves a group of gates (gate.py, wire): each reads its own inputs, by "id.property".
      gates: function (tab) {
        const config = arguments[arguments.length - 1];
        const context = window.dash_clientside.callback_context;
        const answers = [].concat(context.outputs_list).map(({ id }) => gates().gate(id, tab,
          config.gates[id].inputs.map((input) => context.inputs[input]), context.states[id + ".data"],
          config.gates) ?? no());
        return Array.isArray(context.outputs_list) ? answers : answers[0];
      },

      // An answer the layout holds for its gate's start values (model_bar.py's sentence): hidden, from the first
      // frame the page shows, if the URL sets other values (a link), until the answer for them shows it. It runs
      // once, at load, beside readUrl and reading the URL as it does: a change later is answered in place.
      untilAnswered: function (config, gateId) {
        const gate = config.gates[gateId];
        const q = new URLSearchParams(window.location.search);
        const named = Object.fromEntries(gate.fields.map((name, k) =>
          [name, rules().readParam(q, config.url.find((p) => p.id + ".value" === gate.inputs[k]))]));
        const hide = JSON.stringify(named) !== JSON.stringify(gate.start);
        if (hide) gates().hideStart(gateId);  // then even a return to the start values asks for their answer
        return hide;
      },

      // How figures are drawn: a phone-width page puts fewer panels in a row (init follows a turned phone),
      // lecture mode draws them larger. The width test is the CSS's (max-width: …), so both switch together.
      display: function (lecture, config) {
        const narrow = window.matchMedia("(max-width: " + (config.narrowWidth - 0.02) + "px)").matches;
        const state = { narrow: narrow, lecture: lecture === true };
        document.documentElement.classList.toggle("lecture", state.lecture);
        window.explorerDisplay = state;
        return state;
      },

      // Head buttons follow h, with the options Python built (config.headOptions), while their tab (`section`)
      // is shown, and as it is shown: buttons on a hidden tab add nothing for Dash to render to a change of h. A
      // chosen head that no longer exists falls back to the first button.
      headOptions: function (h, tab, section, chosen, config) {
        if (section !== config.ids.section + tab) return [no(), no()];  // not from the DOM: at load it is not there yet
        return headButtons(window.dash_clientside.callback_context.outputs_list[0].id, h, chosen, config);
      },

      // The cube's head buttons follow the h its gate passes, so they change with the cube's figure.
      cubeHeadOptions: function (drawn, chosen, config) {
        const id = window.dash_clientside.callback_context.outputs_list[0].id;
        return drawn ? headButtons(id, drawn.h, chosen, config) : [no(), no()];
      },

      // A click on a per-head heatmap (trace i is head i + 1, x the key, y the query) selects that cell.
      // Cube planes report cell corners, which round to the cell.
      pickCell: function (click) {
        const point = click && click.points && click.points[0];
        if (!point) return [no(), no(), no()];
        return [point.curveNumber + 1, Math.round(point.y), Math.round(point.x)];
      },

      // Shuffle, reverse or reset the typed token order; the server checks whatever arrives.
      reorder: function (shuffles, reverses, resets, text, identityOrder, config) {
        const trigger = window.dash_clientside.callback_context.triggered_id;
        const identity = identityOrder.split(" ").map(Number);
        let order = identity;
        if (trigger === config.ids.shuffle) {
          order = identity.slice();
          for (let i = order.length - 1; i > 0; i--) {
            const j = Math.floor(Math.random() * (i + 1));
            [order[i], order[j]] = [order[j], order[i]];
          }
        } else if (trigger === config.ids.reverse) {
          const words = rules().orderWords(text);
          const valid = words.length === identity.length && rules().isOrder(text, identity.length);
          order = (valid ? words.map(Number) : identity).slice().reverse();
        }
        return order.join(" ");
      },

      // The page's own address, for the share box, in the page's language (?lang=) even where the browser chose it.
      shareLink: function (search) {
        const q = new URLSearchParams(search || "");
        if (!q.has("lang")) q.set("lang", document.documentElement.lang);
        return window.location.origin + window.location.pathname + "?" + q.toString();
      },

      copyLink: (clicks, boxId) => window.copyFromBox(boxId),

      // "train" shows the runs of the chosen training seed; the server trains them once, then caches them.
      train: function (clicks, seed) {
        return seed;
      },

      // Play steps the training slider forward, one snapshot every tick of the timer, and stops at the end.
      play: function (clicks, ticks, step, paused, config) {
        const { every, last } = config.steps;
        if (window.dash_clientside.callback_context.triggered_id === config.ids.play) {
          return paused ? [step >= last ? 0 : no(), false, window.pageMessage("pause")]
            : [no(), true, window.pageMessage("play")];
        }
        return step + every >= last ? [last, true, window.pageMessage("play")] : [step + every, no(), no()];
      },

      // The URL holds the state listed in config.url (each entry: key, component id, default, rule, tab, when),
      // so a link opens that view and back and forward work. A missing or bad parameter means the default.
      // readUrl sets the controls as the page loads and on back and forward; not when writeUrl set the URL.
      readUrl: function (search, config) {
        if (search === ownSearch) {
          ownSearch = null;
          return config.url.map(() => no());
        }
        const q = new URLSearchParams(search || "");
        return config.url.map((p) => rules().readParam(q, p));
      },

      // writeUrl has no output, so no gate waits for it, and it writes once the figure looked at has drawn:
      // a new history entry, unless the URL holds these values already (a load, back, forward).
      writeUrl: function (...values) {
        const config = values.pop();
        state = Object.fromEntries(config.url.map((p, i) => [p.key, values[i]]));
        gates().afterLookedAt("url", () => {
          const search = window.location.search;
          const q = new URLSearchParams(search);
          const latest = config.url.map((p) => state[p.key]);
          const holds = config.url.every((p, i) => JSON.stringify(rules().readParam(q, p)) === JSON.stringify(latest[i]));
          const next = urlFor(search, latest, config);
          if (holds || next === search) return;
          ownSearch = next;
          window.dash_clientside.set_props(config.ids.url, { search: next });
        });
      },
    },
  });
})();
