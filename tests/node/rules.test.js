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
    if (written === null || written === undefined) continue;
    assert.deepStrictEqual(rules.readParam(new URLSearchParams({ [p.key]: written }), p), p.default, p.key);
  }
});
