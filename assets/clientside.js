// Clientside callbacks: what needs no server round trip runs here.
// `config` is the layout's CONFIG store: defaults, allowed values and ids, defined once in dashboard/layout.py.
window.dash_clientside = Object.assign({}, window.dash_clientside, {
  explorer: {
    // One section visible at a time; the others stay mounted so their figures and cameras persist.
    showTab: function (tab, config) {
      return dash_clientside.callback_context.outputs_list.map((o) => o.id !== config.ids.section + tab);
    },

    // Phone or not: figures put fewer panels in a row on a narrow page; turning the phone updates it.
    pageWidth: function (pathname, config) {
      const isNarrow = () => window.innerWidth < config.narrowWidth;
      if (!window.explorerWatchesWidth) {
        window.explorerWatchesWidth = true;
        let narrow = isNarrow();
        window.addEventListener("resize", () => {
          if (isNarrow() !== narrow) {
            narrow = isNarrow();
            dash_clientside.set_props(config.ids.narrow, { data: narrow });
          }
        });
      }
      return isNarrow();
    },

    // Head buttons follow h: 'all' + 'head 1..h' for the cube, 'head 1..h' for the equivariance view.
    // A chosen head that no longer exists falls back to 'all' (cube) or head 1.
    headOptions: function (h, cubeFocus, eqHead, config) {
      const n = config.heads.includes(h) ? h : config.h;
      const heads = Array.from({ length: n }, (_, k) => ({ label: "head " + (k + 1), value: k + 1 }));
      const no = dash_clientside.no_update;
      return [
        [{ label: "all", value: 0 }].concat(heads),
        cubeFocus >= 0 && cubeFocus <= n ? no : 0,
        heads,
        eqHead >= 1 && eqHead <= n ? no : 1,
      ];
    },

    // Bring one plane of the cube forward by patching trace opacities only: the camera stays.
    focusHead: function (focus, figure) {
      const patch = new dash_clientside.Patch();
      const opacity = figure.layout.meta.opacity;
      figure.data.forEach((trace, i) => {
        if (trace.type === "surface") {
          patch.assign(["data", i, "opacity"], focus === 0 || focus === i + 1 ? opacity.on : opacity.off);
        }
      });
      return patch.build();
    },

    // Shuffle, reverse or reset the typed token order; the server checks whatever arrives.
    reorder: function (shuffles, reverses, resets, text, config) {
      const trigger = dash_clientside.callback_context.triggered_id;
      const identity = config.perm.split(" ").map(Number);
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

    // "train" shows the runs of the chosen training seed; the server trains them once, then caches them.
    train: function (clicks, seed) {
      return seed;
    },

    // Play steps the training slider forward every tick of the timer, and stops at the end.
    play: function (clicks, ticks, step, paused, config) {
      const no = dash_clientside.no_update;
      const last = config.snapshots - 1;
      if (dash_clientside.callback_context.triggered_id === config.ids.play) {
        return paused ? [step >= last ? 0 : no, false, "pause"] : [no, true, "play"];
      }
      return step + 1 >= last ? [last, true, "play"] : [step + 1, no, no];
    },

    // The URL holds the state (?tab=…&h=…&seed=…&perm=…&pe=1), so a link opens that view,
    // and back and forward work. A missing or bad parameter means the default.
    syncUrl: function (search, h, seed, tab, perm, positions, config) {
      const no = dash_clientside.no_update;
      const triggered = dash_clientside.callback_context.triggered.map((t) => t.prop_id);
      const fromUrl = triggered.length === 0 || triggered.some((p) => p === config.ids.url + ".search" || p === ".");
      if (fromUrl) {
        const q = new URLSearchParams(search || "");
        const int = (key, ok, fallback) => {
          const v = Number(q.get(key));
          return q.has(key) && q.get(key) !== "" && Number.isInteger(v) && ok(v) ? v : fallback;
        };
        return [
          no,
          int("h", (v) => config.heads.includes(v), config.h),
          int("seed", (v) => v >= 0 && v < config.seeds, config.seed),
          config.tabs.includes(q.get("tab")) ? q.get("tab") : config.tab,
          (q.get("perm") || config.perm).replaceAll(",", " ").slice(0, 200),
          q.get("pe") === "1",
        ];
      }
      const q = new URLSearchParams({ tab: tab, h: h, seed: seed });
      if (tab === "equivariance") {
        q.set("perm", String(perm || "").trim().split(/[\s,;]+/).join(","));
        if (positions) q.set("pe", "1");
      }
      const next = "?" + q.toString();
      return [next === search ? no : next, no, no, no, no, no];
    },
  },
});
