// assets/rules.js against the cases tests/test_rules.py runs on the Python side (tests/rules/cases.json).
// The URL parameters come from the app itself, so a rule changed in Python is checked here too.
const test = require("node:test");
const assert = require("node:assert");
const { execFileSync } = require("node:child_process");
const path = require("node:path");

const root = path.resolve(__dirname, "..", "..");
const rules = require(path.join(root, "assets", "rules.js"));
const cases = require(path.join(root, "tests", "rules", "cases.json"));
const python = process.env.PYTHON || path.join(root, ".venv", "bin", "python");
const params = JSON.parse(execFileSync(python, ["-c",
  "import json; from dashboard.explorer import URL_PARAMS; print(json.dumps(URL_PARAMS))"], { cwd: root }));

test("an order the URL keeps is one the server accepts", () => {
  for (const c of cases.orders) assert.strictEqual(rules.isOrder(c.text, c.most), c.ok, JSON.stringify(c));
});

test("the cube focus brings forward the planes the server does", () => {
  for (const c of cases.focus) assert.deepStrictEqual(rules.focusedPlanes(c.h, c.button), c.planes, JSON.stringify(c));
});

test("a URL value is read as the server would accept it, or as the default", () => {
  for (const c of cases.params) {
    const p = params.find((q) => q.key === c.key);
    const read = rules.readParam(new URLSearchParams({ [c.key]: c.text }), p);
    assert.deepStrictEqual(read, c.reads === null ? p.default : c.reads, JSON.stringify(c));
  }
});

test("a value written to the URL reads back the same", () => {
  for (const p of params) {
    const written = rules.writeParam(p, p.default);
    if (p.default === "") assert.strictEqual(written, null, p.key);  // no figure presented: no ?present=
    if (written === null || written === undefined) continue;
    assert.deepStrictEqual(rules.readParam(new URLSearchParams({ [p.key]: written }), p), p.default, p.key);
  }
});

// The interaction layer's rules (assets/rules.js): a tab's store, the keys, and stepping through heads and steps.
const presenter = JSON.parse(execFileSync(python, ["-c",
  "import json; from dashboard.explorer import presenter; print(json.dumps(presenter.client_config()))"],
  { cwd: root }));
const keys = presenter.keys;
const STEPS = presenter.trainingSteps;
const LAST = STEPS[STEPS.length - 1], EVERY = STEPS[1] - STEPS[0];
// One press of `button` (after none), or `presses` (n_clicks by button) less those `counted`.
const change = (presses, counted, now) => rules.keyChange(presses, counted, { h: 4, head: 1, tab: "example",
  step: LAST, hidden: true, ...now }, presenter);
const press = (button, now) => change({ [button]: 1 }, {}, now);

test("a number key chooses h", () => {
  for (const h of [1, 2, 4, 8]) assert.deepStrictEqual(press(`key-h${h}`, { h: h === 2 ? 4 : 2 }), { h });
});

test("the arrows step through the heads round the ends; a head h has not starts from head 1", () => {
  const cases = [[1, 4, 1, 2], [4, 4, 1, 1], [1, 4, -1, 4], [3, 8, -1, 2], [1, 1, 1, 1], [7, 4, 1, 2], [null, 2, 1, 2],
    ["all", 4, -1, 4], [1, 8, -1, 8]];
  for (const [head, h, by, after] of cases) {
    const button = by > 0 ? "key-next" : "key-previous";
    assert.deepStrictEqual(press(button, { head, h }), { head: after }, JSON.stringify([head, h, by]));
  }
});

test("on the learning tab the arrows step through the training steps, within the slider", () => {
  const cases = [[100, 1, 100 + EVERY], [LAST, 1, LAST], [0, -1, 0], [EVERY, -1, 0], [null, -1, LAST - EVERY],
    [7, 1, LAST]];  // a step the slider has not: from the last
  for (const [step, by, after] of cases) {
    const button = by > 0 ? "key-next" : "key-previous";
    assert.deepStrictEqual(press(button, { tab: "learning", step }), { step: after }, JSON.stringify([step, by]));
  }
});

test("? and the button below every tab show and hide the list; other buttons change nothing here", () => {
  assert.deepStrictEqual(press("key-help", { hidden: true }), { hidden: false });
  assert.deepStrictEqual(press("key-list", { hidden: false }), { hidden: true });
  for (const button of ["key-present", "key-plan-next", "constructor", "toString"]) {
    assert.deepStrictEqual(press(button), {}, button);
  }
});

test("Esc hides the list of keys, and leaves a hidden list hidden", () => {
  assert.deepStrictEqual(press("key-leave", { hidden: false }), { hidden: true });
  assert.deepStrictEqual(press("key-leave", { hidden: true }), {});
  assert.deepStrictEqual(change({ "key-help": 1, "key-leave": 1 }, {}, { hidden: true }), { hidden: true });
  assert.deepStrictEqual(change({ "key-leave": 2 }, { "key-leave": 2 }, { hidden: false }), {});
});

test("presses that reach Dash together each count; those already counted do not count again", () => {
  assert.deepStrictEqual(change({ "key-next": 5 }, { "key-next": 2 }, { h: 8, head: 2 }), { head: 5 });
  assert.deepStrictEqual(change({ "key-next": 3, "key-previous": 3 }, { "key-next": 1, "key-previous": 1 }, { h: 8 }), {});
  assert.deepStrictEqual(change({ "key-previous": 2 }, {}, { h: 8, head: 1 }), { head: 7 });
  assert.deepStrictEqual(change({ "key-previous": 3 }, {}, { tab: "learning" }), { step: LAST - 3 * EVERY });
  assert.deepStrictEqual(change({ "key-h8": 1, "key-next": 2 }, {}, { h: 4, head: 3 }), { h: 8, head: 5 });
  assert.deepStrictEqual(change({ "key-h8": 1 }, { "key-h8": 1 }, { h: 4 }), {});
  assert.deepStrictEqual(change({ "key-help": 2 }, {}, { hidden: true }), {});  // shown and hidden again
  assert.deepStrictEqual(change({ "key-help": 1, "key-list": 2 }, {}, { hidden: true }), { hidden: false });
  assert.deepStrictEqual(presenter.buttons.sort(), [...Object.keys(presenter.heads), ...Object.keys(presenter.steps),
    ...presenter.lists, ...presenter.closes].sort());
});
test("a tab's store passes the controls by name only while its tab is shown, and only when they changed", () => {
  const names = ["h", "seed"];
  assert.deepStrictEqual(rules.passOn("example", "example", names, [4, 0], null), { h: 4, seed: 0 });
  assert.strictEqual(rules.passOn("example", "mixing", names, [4, 0], null), null);
  assert.strictEqual(rules.passOn("example", "example", names, [4, 0], { h: 4, seed: 0 }), null);
  assert.deepStrictEqual(rules.passOn("example", "example", names, [8, 0], { h: 4, seed: 0 }), { h: 8, seed: 0 });
  assert.deepStrictEqual(rules.passOn("example", "example", names, [4, 1], { h: 4, seed: 0 }), { h: 4, seed: 1 });
});

const element = (tagName, props = {}) => ({ tagName, getAttribute: (name) => (props.attrs || {})[name] ?? null, ...props });

test("a text box, a number box, a select and a slider keep their keys; radios, switches and buttons do not", () => {
  for (const key of ["1", "ArrowRight", "p"]) {
    for (const type of ["text", "number", "search"]) assert.ok(rules.keepsKeys(element("INPUT", { type }), key), type);
    for (const type of ["text", "number"]) assert.ok(rules.keepsKeys(element("INPUT", { type }), key, element("INPUT", { type })));
    assert.ok(rules.keepsKeys(element("TEXTAREA"), key));
    assert.ok(rules.keepsKeys(element("SELECT"), key));
    assert.ok(rules.keepsKeys(element("DIV", { isContentEditable: true }), key));
    assert.ok(rules.keepsKeys(element("SPAN", { attrs: { role: "slider" } }), key));
    for (const type of ["radio", "checkbox", "button"]) {
      const box = element("INPUT", { type });
      assert.ok(!rules.keepsKeys(box, key, box), type);
    }
    assert.ok(!rules.keepsKeys(element("BUTTON"), key));
    assert.ok(!rules.keepsKeys(element("DIV"), key));
    assert.ok(!rules.keepsKeys(element("LABEL"), key));
    assert.ok(!rules.keepsKeys(null, key));
  }
});

test("a radio group the keyboard reached keeps its arrows, and only its arrows; one the pointer chose keeps none", () => {
  for (const type of ["radio", "checkbox"]) {
    const box = element("INPUT", { type });
    for (const key of ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]) {
      assert.ok(rules.keepsKeys(box, key, null), type + key);
      assert.ok(rules.keepsKeys(box, key, element("INPUT", { type })), type + key + " another was pointed at");
      assert.ok(!rules.keepsKeys(box, key, box), type + key + " pointed at");
    }
    for (const key of ["1", "8", "p", "?", "Escape"]) assert.ok(!rules.keepsKeys(box, key, null), type + key);
  }
  const button = element("BUTTON");
  assert.ok(!rules.keepsKeys(button, "ArrowRight", null));
  const radio = element("INPUT", { type: "radio" });
  assert.strictEqual(rules.shortcutButton(keys, { key: "ArrowRight", target: radio }, radio), "key-next");
  assert.strictEqual(rules.shortcutButton(keys, { key: "ArrowRight", target: radio }, null), null);
  assert.strictEqual(rules.shortcutButton(keys, { key: "8", target: radio }, null), "key-h8");
});

test("each shortcut key presses its button from anywhere but a box being typed in, and never with a modifier", () => {
  const radio = element("INPUT", { type: "radio" });
  const box = element("INPUT", { type: "number" });
  const clicked = (event) => rules.shortcutButton(keys, event, event.target);  // after the pointer chose it
  const expected = { "1": "key-h1", "2": "key-h2", "4": "key-h4", "8": "key-h8", ArrowLeft: "key-previous",
    ArrowRight: "key-next", p: "key-present", P: "key-present", Escape: "key-leave", "?": "key-help",
    PageDown: "key-plan-next", PageUp: "key-plan-previous",  // a clicker's keys step through a lecture plan
    c: "key-hide-cell", C: "key-hide-cell", r: "key-hide-row", R: "key-hide-row", m: "key-hide-map",
    M: "key-hide-map",  // predict first (explorer/predict.py); with Ctrl, C copies as ever
    a: "key-plan-add", A: "key-plan-add" };  // the view into the plan, in the presenter view too (plan.edit)
  assert.deepStrictEqual(keys, expected);
  for (const [key, button] of Object.entries(expected)) {
    assert.strictEqual(clicked({ key, target: radio }), button, key);
    assert.strictEqual(rules.shortcutButton(keys, { key, target: element("BODY") }), button, key);
    assert.strictEqual(rules.shortcutButton(keys, { key, target: box }), null, key);
    for (const modifier of ["altKey", "ctrlKey", "metaKey"]) {
      assert.strictEqual(clicked({ key, target: radio, [modifier]: true }), null, key + modifier);
    }
  }
  for (const key of ["3", "b", "Enter", "Tab", " ", "constructor", "toString"]) {
    assert.strictEqual(clicked({ key, target: radio }), null, key);
  }
});

// A slide in the page's theme (rules.slideFigure): the app's own figures and themes (dashboard/figures/slide.py).
const slides = JSON.parse(execFileSync(python, ["-c", `
import json, numpy as np
from dashboard.figures import FEATURE_SCALE, heatmap_grid, example, influence, slide
rng = np.random.default_rng(0)
cube = {"data": example.cube_traces(rng.random((2, 3, 3))), "layout": example.cube_layout()}
cube["data"].append({"type": "scatter3d", "x": [0], "y": [0], "z": [1], "marker": {"color": "#D55E00"}})
print(json.dumps({"themes": slide.slide_themes(), "figures": {
  "attention": heatmap_grid(rng.random((2, 3, 3)), ["a", "b"]),
  "signed": heatmap_grid(rng.random((2, 3, 3)) - 0.5, ["a", "b"], zmin=None, colorscale=FEATURE_SCALE),
  "influence": heatmap_grid(rng.random((1, 3, 3)), ["a"], colorscale=influence.INFLUENCE_SCALE),
  "tokens": example.token_views(rng.random((6, 4)), np.arange(6) % 3),
  "cube": cube}}))`], { cwd: root }));
const scalesOf = (figure) => [...figure.data.map((t) => t.colorscale),
  ...Object.keys(figure.layout).filter((k) => k.startsWith("coloraxis")).map((k) => figure.layout[k].colorscale)]
  .filter((s) => s !== undefined);

test("a dark slide takes every colour map as dark mode draws it, the page's background and text, the original untouched", () => {
  const dark = slides.themes.dark;
  for (const [name, figure] of Object.entries(slides.figures)) {
    const before = JSON.stringify(figure);
    const made = rules.slideFigure(figure, dark);
    assert.strictEqual(JSON.stringify(figure), before, name);  // a copy: the page's figure stays as it is
    const [was, now] = [scalesOf(figure), scalesOf(made)];
    assert.ok(was.length > 0, name);
    was.forEach((s, k) => assert.deepStrictEqual(now[k], dark.scales[JSON.stringify(s)], name + " map " + k));
    assert.strictEqual(made.layout.paper_bgcolor, dark.bg, name);
    assert.strictEqual(made.layout.font.color, dark.text, name);
    assert.strictEqual(made.layout.font.family, figure.layout.font.family, name);  // the page's fonts
    made.data.forEach((t, k) => assert.deepStrictEqual(t.marker, figure.data[k].marker, name));  // markers kept
    assert.deepStrictEqual(made.layout.annotations, figure.layout.annotations, name);  // titles, language kept
  }
  const scene = rules.slideFigure(slides.figures.cube, dark).layout.scene;
  for (const axis of ["xaxis", "yaxis", "zaxis"]) {
    assert.notStrictEqual(dark.sceneText, slides.figures.cube.layout.scene[axis].color, axis);  // turned for dark
    assert.strictEqual(scene[axis].color, dark.sceneText, axis);
    assert.deepStrictEqual(scene[axis].title, slides.figures.cube.layout.scene[axis].title, axis);
  }
});

test("a light slide keeps the figure's colours, on the page's white", () => {
  const light = slides.themes.light;
  for (const [name, figure] of Object.entries(slides.figures)) {
    const made = rules.slideFigure(figure, light);
    assert.deepStrictEqual(scalesOf(made), scalesOf(figure), name);
    assert.deepStrictEqual(made.layout.font, figure.layout.font, name);
    assert.deepStrictEqual(made.layout.scene, figure.layout.scene, name);
    assert.strictEqual(made.layout.paper_bgcolor, light.bg, name);
  }
});
