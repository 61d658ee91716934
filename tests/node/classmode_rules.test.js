// Class mode's browser rules (assets/classmode.js) against the same cases pytest runs on the server's
// (tests/rules/classmode.json, tests/test_classmode_rules.py). The rules themselves come from the app
// (store/schema.py's client_rules, as the page gets them), so nothing of them is repeated here.
const test = require("node:test");
const assert = require("node:assert");
const { execFileSync } = require("node:child_process");
const path = require("node:path");

const root = path.resolve(__dirname, "..", "..");
const classRules = require(path.join(root, "assets", "classmode.js"));
const cases = require(path.join(root, "tests", "rules", "classmode.json"));
const python = process.env.PYTHON || path.join(root, ".venv", "bin", "python");
const rules = JSON.parse(execFileSync(python, ["-c",
  "import json; from dashboard.classmode.store import schema; print(json.dumps(schema.client_rules()))"],
  { cwd: root }));

test("the page's rules are the server's: its alphabet, and no 0, O, 1, I or L", () => {
  assert.strictEqual(rules.alphabet, cases.alphabet);
  for (const c of cases.absent) assert.ok(!rules.alphabet.includes(c), c);
});

test("a typed join code opens the session the server would, and only that", () => {
  for (const c of cases.codes) assert.strictEqual(classRules.joinCode(c.typed, rules), c.code, JSON.stringify(c));
});

test("every symbol of the alphabet is taken in every position, and nothing else", () => {
  for (const c of rules.alphabet) {
    for (let k = 0; k < rules.length; k++) {
      const code = "A".repeat(k) + c + "A".repeat(rules.length - k - 1);
      assert.strictEqual(classRules.joinCode(code, rules), code);
    }
  }
  for (let k = 0; k < 128; k++) {
    const c = String.fromCharCode(k);
    if (rules.alphabet.includes(c.toUpperCase()) || rules.space.includes(c)) continue;
    assert.strictEqual(classRules.joinCode("ABC23" + c, rules), null, k);
  }
});

test("peer instruction's buttons allow exactly the steps the server does", () => {
  for (const c of cases.flow) assert.deepStrictEqual(classRules.flowDisabled(c.phase, rules), c.disabled, c.phase);
});
