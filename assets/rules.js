// Rules the browser needs that Python defines too; each is tested in both languages against the same cases
// (tests/rules/*.json: pytest in tests/test_rules.py, Node's own runner in tests/node/rules.test.js).
// No DOM here: Node loads this file as it is.
(function (root) {
  // A typed token order splits like dashboard/limits.py's ORDER_SEPARATORS.
  const SEPARATORS = /[\s,;]+/;

  const orderWords = (text) => String(text || "").trim().split(SEPARATORS);

  // Whether `text` orders the numbers 0..k-1, each once, for some k up to `most`. The server checks the
  // order against the current number of tokens (limits.permutation); this keeps junk out of the URL.
  function isOrder(text, most) {
    const words = orderWords(text);
    const seen = new Set(words.filter((w) => /^[0-9]+$/.test(w)).map(Number));
    return words.length <= most && seen.size === words.length && [...seen].every((k) => k < words.length);
  }

  // A URL parameter by its rule (dashboard/urls.py, url_param), or the default.
  function readParam(q, p) {
    const text = q.get(p.key);
    if (text === null || text === "") return p.default;
    const rule = p.rule;
    if (rule.flag) return text === "1";
    if (rule.items) return text.split(",").slice(0, rule.items).map(Number).filter(Number.isInteger);
    if (rule.order) return isOrder(text, rule.order) ? text.replaceAll(",", " ") : p.default;
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
      return isOrder(value, p.rule.order) ? orderWords(value).join(",") : undefined;
    }
    if (p.rule.count) return Number.isInteger(value) && value >= 0 && value < p.rule.count ? String(value) : undefined;
    return value === "" ? null : String(value);  // an empty choice (no figure presented) is left out
  }

  // Which of the cube's h planes a head button (1..h) brings forward; any other value ("all") brings all,
  // as dashboard/figures/example.py's focus_planes with limits.head_index does on the server.
  function focusedPlanes(h, button) {
    const chosen = Number.isInteger(button) && button >= 1 && button <= h ? button : null;
    return Array.from({ length: h }, (_, i) => chosen === null || chosen === i + 1);
  }

  // A tab's store (dashboard/explorer/controls.py) passes the shared controls' values, by name, only while its
  // tab is shown and only when they differ from what it holds; else null, for no update.
  function passOn(storeTab, shownTab, names, values, held) {
    if (storeTab !== shownTab) return null;
    const named = Object.fromEntries(names.map((name, k) => [name, values[k]]));
    return JSON.stringify(named) === JSON.stringify(held) ? null : named;
  }

  // Whether a key press belongs to where it was aimed: anything typed in a box, a slider's keys, and the arrows
  // of a radio group or check box the keyboard reached, which move its choice. A radio button the pointer chose
  // last (`pointed`: a tab, h, lecture mode) leaves every key to the shortcuts. (Not :focus-visible: a key press
  // makes any focused element show its focus ring.)
  const TYPED = new Set(["text", "number", "search", "email", "password", "url", "tel"]);
  const ARROWS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]);
  function keepsKeys(target, key, pointed) {
    if (!target) return false;
    const tag = String(target.tagName || "").toLowerCase();
    if (tag === "textarea" || tag === "select" || target.isContentEditable) return true;
    const type = String(target.type || "text").toLowerCase();
    if (tag === "input" && TYPED.has(type)) return true;
    if (typeof target.getAttribute === "function" && target.getAttribute("role") === "slider") return true;
    const choice = tag === "input" && (type === "radio" || type === "checkbox");
    return choice && ARROWS.has(key) && target !== pointed;
  }

  // The button a key presses (presenter.SHORTCUTS, by key), or null: none with a modifier, none where the
  // target keeps the key.
  function shortcutButton(keys, event, pointed) {
    if (event.altKey || event.ctrlKey || event.metaKey || keepsKeys(event.target, event.key, pointed)) return null;
    return Object.prototype.hasOwnProperty.call(keys, event.key) ? keys[event.key] : null;
  }

  // What the keys' buttons change (presenter.py; `presenter` its client_config), from their n_clicks (`presses`)
  // less those already `counted`, so that each press counts even when several reach Dash as one change: h; the
  // selected head, 1..h round the ends (a head h has not starts from head 1), or on the learning tab the
  // training step, within the slider's (one not in it starts from the last); whether the list of keys is hidden.
  function keyChange(presses, counted, now, presenter) {
    const fresh = (button) => (presses[button] || 0) - (counted[button] || 0);
    const change = {}, hKey = Object.keys(presenter.heads).find((button) => fresh(button) > 0);
    const h = hKey ? (change.h = presenter.heads[hKey]) : (Number.isInteger(now.h) && now.h > 0 ? now.h : 1);
    const by = Object.entries(presenter.steps).reduce((sum, [button, step]) => sum + step * fresh(button), 0);
    if (by && now.tab === "learning") {
      const steps = presenter.trainingSteps, last = steps.length - 1;
      const k = steps.includes(now.step) ? steps.indexOf(now.step) : last;
      change.step = steps[Math.min(last, Math.max(0, k + by))];
    } else if (by) {
      const index = Number.isInteger(now.head) && now.head >= 1 && now.head <= h ? now.head - 1 : 0;
      change.head = ((((index + by) % h) + h) % h) + 1;
    }
    if (presenter.lists.reduce((sum, button) => sum + fresh(button), 0) % 2) change.hidden = now.hidden !== true;
    if (presenter.closes.some((button) => fresh(button) > 0) && (change.hidden ?? now.hidden) === false) change.hidden = true;
    return change;
  }

  // A figure ({data, layout}) as a slide in one of the page's themes (dashboard/figures/slide.py, slide_themes):
  // the colour maps the page's dark filters change swapped for what they draw, the background the page's, and
  // the text the page's where the page recolours it. Pure: the figure itself is left as it is.
  function slideFigure(figure, theme) {
    const swap = (on) => (on?.colorscale ? { ...on, colorscale: theme.scales[JSON.stringify(on.colorscale)] ?? on.colorscale } : on);
    const layout = { ...figure.layout, paper_bgcolor: theme.bg };
    if (theme.text) layout.font = { ...layout.font, color: theme.text };
    Object.keys(layout).filter((k) => /^coloraxis\d*$/.test(k)).forEach((k) => (layout[k] = swap(layout[k])));
    Object.keys(layout).filter((k) => /^scene\d*$/.test(k) && theme.sceneText).forEach((k) => {
      layout[k] = { ...layout[k] };
      ["xaxis", "yaxis", "zaxis"].forEach((a) => (layout[k][a] = { ...layout[k][a], color: theme.sceneText }));
    });
    return { data: figure.data.map(swap), layout };
  }

  const rules = { orderWords, isOrder, readParam, writeParam, focusedPlanes, passOn, keepsKeys, shortcutButton,
    keyChange, slideFigure };
  if (typeof module === "object" && module.exports) module.exports = rules;
  else root.explorerRules = rules;
})(this);
