// The explorer's clientside callbacks (window.dash_clientside.explorer): what needs no server round trip.
// `config` is the page's CONFIG store (dashboard/explorer/__init__.py): allowed values, defaults and ids,
// defined once in Python; the rules both languages need, and the pure ones tested under Node, are in rules.js.
(function () {
  const rules = () => window.explorerRules;  // rules.js loads after this file (Dash loads assets by name)
  const no = () => window.dash_clientside.no_update;
  const context = () => window.dash_clientside.callback_context;

  // The presenter view (dashboard/explorer/presenter.py): one figure's frame alone, full screen, in lecture mode.
  let presented = null, lectureBefore = false;
  let pending = "";  // a graph the URL presents (?present=), not drawn yet: init's observer presents it once it is
  const frameOf = (graph) => (graph && document.getElementById(graph)?.closest(".figure-frame:not([hidden] *)")) || null;
  const graphOf = (frame) => frame?.querySelector(".dash-graph")?.id || "";

  function mark(frame, on) {
    const button = frame.querySelector(".present-button");
    frame.classList.toggle("presented", on);
    document.documentElement.classList.toggle("presenting", on);
    button.setAttribute("aria-pressed", String(on));
    button.textContent = window.pageMessage(on ? "leave" : "present");
    if (on) button.focus();
  }

  // A presented figure is as tall as the screen (or as its own height: keeps-height) and as wide as the frame (Plotly
  // measures its box only as it draws, and presenting in lecture mode draws nothing: the cube stayed 1013 px wide in
  // 1873). Leaving gives back the height of the figure Dash holds (gd.layout, Plotly's public copy) and its box's width.
  function fitHeight(gd) {
    if (!gd || !gd.layout || !gd.isConnected) return;  // a frame another tab's view took the place of
    if (!presented || !presented.contains(gd)) {
      const own = gd.dataset.figureHeight;
      ["figureHeight", "fittedHeight"].forEach((name) => delete gd.dataset[name]);
      // back to the figure's own height, or to its box's (the cube has none of its own)
      if (own !== undefined) Plotly.relayout(gd, { height: Number(own) || null, width: null });
      return;
    }
    const box = getComputedStyle(presented), graph = getComputedStyle(gd.parentElement);
    const space = Math.floor(presented.clientHeight - parseFloat(box.paddingTop) - parseFloat(box.paddingBottom)
      - parseFloat(graph.paddingTop));
    const width = Math.floor(gd.parentElement.clientWidth - parseFloat(graph.paddingLeft) - parseFloat(graph.paddingRight));
    // a height other than the one set here is Dash's drawing for the page: the one to give back on leaving
    if (gd.layout.height !== Number(gd.dataset.fittedHeight)) {
      gd.dataset.figureHeight = gd.layout.height ?? Math.round(gd.getBoundingClientRect().height);  // as drawn
    }
    // two settings side by side keep their own height (compare.py): stretched, a half's rows spread apart
    const keeps = gd.parentElement.classList.contains("keeps-height");
    const height = keeps ? Math.min(space, Number(gd.dataset.figureHeight)) : space;
    if (gd.layout.height === height && gd.layout.width === width) return;
    gd.dataset.fittedHeight = height;
    Plotly.relayout(gd, { height, width });
  }

  // The figure frame nearest the middle of the screen, in the shown tab.
  function middleFrame() {
    const middle = window.innerHeight / 2;
    const frames = [...document.querySelectorAll(".figure-frame")].filter((f) => f.getClientRects().length);
    const distance = (f) => { const b = f.getBoundingClientRect(); return b.top > middle ? b.top - middle : Math.max(0, middle - b.bottom); };
    return frames.sort((a, b) => distance(a) - distance(b))[0] || null;
  }

  // Shows `frame` alone (null: none), and says what lecture mode becomes. The figure left gets its size back if its
  // view stays (`tab` shown, ids.section_id): a plan's next view on another tab takes it away, Plotly cannot draw it.
  function present(frame, lecture, tab) {
    const left = presented;
    if (left) {
      mark(left, false);
      presented = null;
      if (document.getElementById("section-" + tab)?.contains(left)) fitHeight(left.querySelector(".js-plotly-plot"));
    }
    if (!frame || frame === left) return left ? lectureBefore : no();
    lectureBefore = lecture === true;
    presented = frame;
    mark(frame, true);
    const gd = frame.querySelector(".js-plotly-plot");
    if (gd && !gd.dataset.fits) {  // every later draw of this graph (a new h, lecture mode) is fitted too
      gd.dataset.fits = "1";
      gd.on("plotly_afterplot", () => fitHeight(gd));
    }
    fitHeight(gd);
    return true;
  }

  // The URL for `values` (the controls', in config.url's order), from the URL `search`.
  function urlFor(search, values, config) {
    const value = (key) => values[config.url.findIndex((p) => p.key === key)];
    const before = new URLSearchParams(search || "");
    const q = new URLSearchParams();
    config.keepParams.forEach((key) => before.has(key) && q.set(key, before.get(key)));  // ?lang=: the page's
    config.url.forEach((p, i) => {
      if ((p.tab === null || p.tab === value("tab")) && (p.when === null || [].concat(p.when[1]).includes(value(p.when[0])))) {
        const text = rules().writeParam(p, values[i]);
        const kept = text === undefined ? before.get(p.key) : text;  // a bad value leaves the URL as it was
        if (kept !== null) q.set(p.key, kept);
      }
    });
    return "?" + q.toString();
  }

  // The page's listeners. A key presses its shortcut's button (rules.shortcutButton says which, if any), so it
  // does what a click does, through Dash. A page that turns narrow or wide presses the button the display follows.
  function init(config) {
    let pointed = null;  // the control the pointer chose last (a label's click chooses its input)
    document.addEventListener("pointerdown", (event) => {
      const label = event.target.closest && event.target.closest("label");
      pointed = label ? label.control : event.target;
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Tab") pointed = null;  // the keyboard moves on: what it reaches keeps its arrows
      const button = document.getElementById(rules().shortcutButton(config.presenter.keys, event, pointed) || "");
      if (!button) return;
      event.preventDefault();  // a focused radio's arrows would change it too
      button.click();
    });
    const narrow = window.matchMedia("(max-width: " + (config.narrowWidth - 0.02) + "px)");
    narrow.addEventListener("change", () => document.getElementById(config.ids.widthChanged)?.click());
    window.addEventListener("resize", () => presented && fitHeight(presented.querySelector(".js-plotly-plot")));
    // A graph's near button (ui.near_button) is pressed while enabled (its graph waits for a figure) and within a
    // screen of the view. The server arms it at a change of the model; observing it anew reports if it is near now.
    const nearby = new IntersectionObserver((seen) => seen.forEach((e) => {
      const button = e.target.querySelector(":scope > button.near");  // the observed figure frame's
      if (e.isIntersecting && !button.disabled) button.click();
    }), { rootMargin: "100% 0px" });
    new MutationObserver((changes) => {
      if (pending && frameOf(pending)?.querySelector(".js-plotly-plot")) {  // the URL's figure, drawn now
        present(frameOf(pending), document.documentElement.classList.contains("lecture"));
        pending = "";
      }
      changes.filter((c) => c.type === "attributes").forEach((c) => nearby.unobserve(c.target.parentElement));
      document.querySelectorAll("button.near").forEach((b) => nearby.observe(b.parentElement));  // new, or armed again
    }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["disabled", "value"] });
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    explorer: {
      init: init,

      // The shown tab's view (explorer/__init__.py), and the model bar on the tabs it drives (config.modelTabs).
      showTab: (tab, config) => [!config.modelTabs.includes(tab), tab],

      // A tab's store (dashboard/explorer/controls.py): the shared controls' values, by name, while it is shown.
      tabStore: function (tab, ...args) {
        const config = args.pop();
        const held = args.pop();
        const store = config.tabStores[context().outputs_list.id];
        return rules().passOn(store.tab, tab, store.fields, args, held) ?? no();
      },

      // How figures are drawn: a phone-width page puts fewer panels in a row, lecture mode draws them larger. The
      // width test is the CSS's (max-width: …), so both switch together.
      display: function (lecture, widthChanged, config) {
        const narrow = window.matchMedia("(max-width: " + (config.narrowWidth - 0.02) + "px)").matches;
        document.documentElement.classList.toggle("lecture", lecture === true);
        return { narrow: narrow, lecture: lecture === true };
      },

      // The keys' buttons (presenter.py): what their presses change (rules.keyChange), in the browser.
      shortcut: function (...args) {
        const [counted, h, head, tab, step, hidden, config] = args.slice(-7);
        const presses = Object.fromEntries(config.presenter.buttons.map((button, k) => [button, args[k] || 0]));
        const change = rules().keyChange(presses, counted || {}, { h, head, tab, step, hidden }, config.presenter);
        return [...["h", "head", "step", "hidden"].map((name) => (name in change ? change[name] : no())), presses];
      },

      // A present button, P or Esc (presenter.py), or the URL (?present=, syncUrl): the figure alone, full screen,
      // in lecture mode, and which it is, for the URL (its graph's id; "": none). The URL's own lecture mode stands.
      present: function (presses, pKey, escKey, wanted, lecture, tab) {
        const trigger = context().triggered_id, now = graphOf(presented);
        const fromUrl = !trigger?.graph && trigger !== "key-leave" && trigger !== "key-present";
        const graph = fromUrl ? wanted || "" : trigger === "key-leave" ? "" : trigger === "key-present"
          ? (now ? "" : graphOf(middleFrame())) : (trigger.graph === now ? "" : trigger.graph);
        pending = fromUrl && graph && !frameOf(graph)?.querySelector(".js-plotly-plot") ? graph : "";
        if (pending || graph === now) return [no(), fromUrl || graph === wanted ? no() : graph];
        const on = present(frameOf(graph), lecture, tab);
        return fromUrl ? [no(), no()] : [on, graph];
      },

      // A figure frame's PNG or SVG button (slides.py): the figure as the page shows it (its size, theme, fonts and
      // language: rules.slideFigure), scaled to 1920 px wide. A copy: Plotly lays out what it is given in place.
      slide: function (clicks, config) {
        const id = context().triggered_id, gd = document.getElementById(id?.graph)?.querySelector(".js-plotly-plot");
        if (!gd?.data?.length || !context().triggered[0]?.value) return no();  // a figure not drawn yet: no slide
        const box = gd.getBoundingClientRect(), figure = structuredClone({ data: gd.data, layout: gd.layout });
        const theme = config.slide[document.documentElement.getAttribute("data-bs-theme")] || config.slide.light;
        Plotly.downloadImage(rules().slideFigure(figure, theme), { format: id.format, filename: id.graph,
          width: Math.round(box.width), height: Math.round(box.height), scale: 1920 / Math.round(box.width) });
        return no();
      },

      // The page's own address, for the share box, in the page's language (?lang=) even where the browser chose it.
      shareLink: function (search) {
        const q = new URLSearchParams(search || "");
        if (!q.has("lang")) q.set("lang", document.documentElement.lang);
        return window.location.origin + window.location.pathname + "?" + q.toString();
      },

      copyLink: (clicks, boxId) => window.copyFromBox(boxId),

      // The URL holds the state listed in config.url (each entry: key, component id, default, rule, tab, when),
      // so a link opens that view and back and forward work. A missing or bad parameter means the default. As the
      // page loads, and on back and forward, the URL sets the controls; a change of a control writes the URL (a
      // new history entry, unless the URL holds these values already).
      syncUrl: function (search, ...values) {
        const config = values.pop();
        const q = new URLSearchParams(search || "");
        const inUrl = config.url.map((p) => rules().readParam(q, p));
        const holds = (i) => JSON.stringify(inUrl[i]) === JSON.stringify(values[i]);
        const fromControl = context().triggered.some((t) => t.prop_id !== config.ids.url + ".search" && t.prop_id !== ".");
        // from the URL: a control that already holds the URL's value is left as it is, with nothing to redo
        if (!fromControl) return [no(), ...inUrl.map((value, i) => (holds(i) ? no() : value))];
        const next = urlFor(search, values, config);
        return [inUrl.every((_, i) => holds(i)) || next === search ? no() : next, ...inUrl.map(() => no())];
      },
    },
  });
})();
