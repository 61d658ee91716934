"""The lecture plan's file (dashboard/lecture_plan.py): what opens, what is refused and why, forged files included.
The views are read by the explorer's URL rules, against the same cases as assets/rules.js (tests/rules/cases.json)."""

import base64
import json
from pathlib import Path

import pytest

from dashboard import i18n, lecture_plan as plans
from dashboard.explorer import URL_PARAMS

CASES = json.loads((Path(__file__).parent / "rules" / "cases.json").read_text())
QUESTION = {"template": "key", "timer": 30, "weights": "trained", "h": 4, "seed": 0, "size": 4, "scale": "seed",
            "tau": 0, "head": 2, "query": 1}
VIEWS = ["?tab=example&h=8&seed=3&weights=trained", "?tab=mixing&h=1", "?tab=learning&train=2&step=200&off=1,2",
         "?tab=equivariance&perm=2,1,0,3,4,5,6,7,8,9,10,11&pe=1", "?tab=clinic&mystery=17&causal=1", ""]


def plan_text(steps, **extra) -> str:
    return json.dumps({"format": plans.FORMAT, "version": 2, "steps": steps, **extra})


def refusal(text) -> str:
    with pytest.raises(plans.PlanError) as e:
        plans.parse(text, URL_PARAMS)
    return str(e.value)


def upload(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return "data:application/json;base64," + base64.b64encode(data).decode()


def test_a_saved_plan_opens_as_it_was_saved():
    steps = [{"kind": "view", "view": v, "notes": f"note {k}"} for k, v in enumerate(VIEWS)]
    steps.insert(2, {"kind": "question", **QUESTION, "notes": "ask before the reveal"})
    checked = plans.check_steps(steps, URL_PARAMS)
    text = plans.file_text(checked)
    assert plans.parse(text, URL_PARAMS) == checked == plans.parse_upload(upload(text), URL_PARAMS)
    assert [s["kind"] for s in checked] == ["view", "view", "question", "view", "view", "view", "view"]
    assert checked[5]["view"] == "?tab=clinic&mystery=17&causal=1"
    assert checked[4]["view"].startswith("?tab=equivariance&perm=2%2C1%2C0%2C3")  # as URLSearchParams writes it
    # the canonical address reads back to the same values
    for s in checked:
        if s["kind"] == "view":
            values = plans.read_view(s["view"], URL_PARAMS, 0)
            assert plans.view_query(values, URL_PARAMS) == s["view"]


def test_the_page_s_language_is_dropped_from_a_view_and_kept_when_stepping():
    steps = plans.view_step("?lang=es&h=2", "", URL_PARAMS, [])
    assert steps == [{"kind": "view", "view": "?h=2", "notes": ""}]
    assert plans.read_language("?h=2&lang=zh-CN") == "zh-CN" and plans.read_language("?lang=fr") is None


@pytest.mark.parametrize("case", CASES["params"], ids=lambda c: f"{c['key']}={c['text']}")
def test_a_view_reads_each_value_as_the_browser_does_and_refuses_what_it_would_drop(case):
    query = "?" + case["key"] + "=" + case["text"]
    if case["text"] == "":  # the browser's default, as an empty value is
        assert plans.read_view(query, URL_PARAMS, 0) == {}
    elif case["reads"] is not None:
        assert plans.read_view(query, URL_PARAMS, 0) == {case["key"]: case["reads"]}
    else:
        with pytest.raises(plans.PlanError) as e:
            plans.read_view(query, URL_PARAMS, 6)
        assert str(e.value).startswith("Step 7: ") and f"{case['key']} = " in str(e.value)


@pytest.mark.parametrize("case", CASES["orders"], ids=lambda c: repr(c["text"]))
def test_a_token_order_is_read_by_rules_js_rule(case):
    assert plans.is_order(case["text"], case["most"]) == case["ok"]


def test_every_default_written_reads_back():
    for p in URL_PARAMS:
        written = plans.write_value(p["rule"], p["default"])
        if p["default"] == "":
            assert written is None, p["key"]  # no figure presented: no ?present=, as rules.js writeParam
        if written is not None:
            assert plans.read_value(p["rule"], written) == p["default"], p["key"]


@pytest.mark.parametrize("view, names", [
    ("?h=3", ["Step 2:", "h = 3"]),
    ("?compare=1&h=4", ["Step 2:", "no setting compare"]),  # a later version's setting
    ("?h=1&h=2", ["Step 2:", "h twice"]),
    ("?tab=class", ["Step 2:", "tab = class"]),
    ("?off=1,9&tab=learning", ["Step 2:", "off = 1,9"]),
    ("?off=1,1", ["Step 2:", "off = 1,1"]),
    ("?perm=0,0,1&tab=equivariance", ["Step 2:", "perm = 0,0,1"]),
    ("?lecture=yes", ["Step 2:", "lecture = yes"]),
    ("?seed=0x10", ["Step 2:", "seed = 0x10"]),
    ("?seed=" + "9" * 50, ["Step 2:", "seed = 99999999999999999999…"]),  # a long value is quoted short
    ("?h=%E2%80%AE", ["Step 2:", "h = \u202e"]),
    ("?tab=ex ample", ["Step 2:", "tab = ex ample"]),
    ("?tab=ex\tample", ["Step 2:", "not an address"]),
    ("?&&", ["Step 2:", "not an address"]),
    ("h=4&" * 200, ["Step 2:", "not an address"]),  # longer than a view may be
])
def test_a_view_this_version_cannot_show_is_refused_naming_the_step_and_the_parameter(view, names):
    steps = [{"kind": "view", "view": "?h=2"}, {"kind": "view", "view": view, "notes": ""}]
    message = refusal(plan_text(steps))
    assert all(name in message for name in names), message


def test_class_modes_lecture_file_opens_as_question_steps():
    from dashboard.classmode.plan import PLAN_FORMAT

    old = json.dumps({"format": PLAN_FORMAT, "version": 1, "questions": [QUESTION, {"template": "role", "timer": 0,
                                                                                   "train_seed": 3, "h": 4}]})
    steps = plans.parse(old, URL_PARAMS)
    assert steps == [{"kind": "question", **QUESTION, "notes": ""},
                     {"kind": "question", "template": "role", "timer": 0, "train_seed": 3, "h": 4, "notes": ""}]
    assert plans.parse(json.dumps({"format": PLAN_FORMAT, "questions": [QUESTION]}), URL_PARAMS)  # no version
    bad = json.dumps({"format": PLAN_FORMAT, "version": 1, "questions": [QUESTION, {**QUESTION, "template": "x"}]})
    assert refusal(bad).startswith("Step 2: ")


def test_class_mode_opens_a_saved_plan_and_poses_its_questions_in_order():
    from dashboard.classmode.plan import plan_entries

    steps = plans.check_steps([{"kind": "view", "view": "?h=2"}, {"kind": "question", **QUESTION, "notes": "n"},
                               {"kind": "question", **QUESTION, "head": 1}], URL_PARAMS)
    assert plan_entries(upload(plans.file_text(steps))) == [QUESTION, {**QUESTION, "head": 1}]


def test_the_plan_s_rules_are_class_mode_s():
    from dashboard import questions
    from dashboard.classmode import form, plan
    from dashboard.server import MAX_BODY

    assert plans.FORMAT == plan.PLAN_FORMAT and plans.QUESTION_KEYS == plan.PLAN_KEYS
    assert plans.TEMPLATES == tuple(questions.TEMPLATE_TITLES) and plans.MAX_TEXT == plan.MAX_TEXT
    # the largest plan, uploaded (base64 in a callback's body), stays under the server's body limit
    assert plans.MAX_BYTES <= form.MAX_PLAN_BYTES and 4 * plans.MAX_BYTES // 3 + form.PLAN_OVERHEAD < MAX_BODY


def test_notes_are_kept_as_text_whatever_they_hold():
    notes = '<img src=x onerror="alert(1)"><script>alert(2)</script> & 注意力 ñ\nline two'
    steps = plans.parse(plan_text([{"kind": "view", "view": "?h=2", "notes": notes}]), URL_PARAMS)
    assert steps[0]["notes"] == notes


@pytest.mark.parametrize("notes", ["x" * (plans.MAX_NOTES + 1), 12, ["a"], {"a": 1}, "bell\a", "nul\0",
                                   "escape\x1b[31m", "lone \ud800 surrogate", "tab\there"])
def test_notes_that_are_not_short_text_are_refused(notes):
    steps = [{"kind": "view", "view": "?h=2", "notes": "fine"}] * 2 + [{"kind": "view", "view": "", "notes": notes}]
    assert refusal(plan_text(steps)).startswith("Step 3: notes are text of at most 200 characters")


@pytest.mark.parametrize("text", [
    "", "null", "[]", "42", '"a plan"', "{", "\ufeff{}", b"\xff\xfe\x00",
    json.dumps({"format": "something else", "version": 2, "steps": []}),
    json.dumps({"format": plans.FORMAT, "version": 2}),
    json.dumps({"format": plans.FORMAT, "version": 2, "steps": []}),
    json.dumps({"format": plans.FORMAT, "version": 2, "steps": {"0": {"kind": "view", "view": ""}}}),
    json.dumps({"format": plans.FORMAT, "version": True, "steps": [{"kind": "view", "view": ""}]}),
    json.dumps({"format": plans.FORMAT, "version": "2", "steps": [{"kind": "view", "view": ""}]}),
    json.dumps({"format": plans.FORMAT, "version": 2, "steps": [{"kind": "view", "view": ""}], "script": 1}),
    json.dumps({"format": plans.FORMAT, "version": 1, "questions": "all of them"}),
    "[" * 20000 + "]" * 20000,  # deeper than the parser goes
    '{"format": "attention-explorer lecture plan", "steps": ' + "[" * 9000 + "]" * 9000 + "}",
])
def test_what_is_not_a_plan_is_refused_plainly(text):
    message = refusal(text)
    assert message == i18n._(plans.NOT_A_PLAN), message


@pytest.mark.parametrize("step", [
    None, 1, "?h=2", [], ["view", "?h=2"], {"kind": "slide"}, {"view": "?h=2"}, {"kind": "view", "view": 4},
    {"kind": "view", "view": None}, {"kind": "view", "view": ["?h=2"]}, {"kind": "view", "view": "?h=2", "x": 1},
    {"kind": "view", "view": "?h=2", "notes": "n", "onclick": "alert(1)"},
    {"kind": "question", **QUESTION, "template": "essay"}, {"kind": "question", **QUESTION, "answer": 3},
    {"kind": "question", **QUESTION, "h": 2**40}, {"kind": "question", **QUESTION, "h": True},
    {"kind": "question", **QUESTION, "weights": "<b>" * 10}, {"kind": "question", **QUESTION, "h": [4]},
    {"kind": "question", **QUESTION, "h": {"$gt": 0}}, {"kind": "question", **QUESTION, "h": 4.5},
])
def test_a_step_of_the_wrong_shape_is_refused_naming_it(step):
    steps = [{"kind": "view", "view": "?h=2"}, step]
    assert refusal(plan_text(steps)).startswith("Step 2: ")


def test_a_plan_is_at_most_so_many_steps_and_bytes():
    step = {"kind": "view", "view": "?h=2", "notes": "n"}
    assert len(plans.parse(plan_text([step] * plans.MAX_PLAN_STEPS), URL_PARAMS)) == plans.MAX_PLAN_STEPS
    assert "at most 60 steps" in refusal(plan_text([step] * (plans.MAX_PLAN_STEPS + 1)))
    with pytest.raises(plans.PlanError, match="at most 60 steps"):
        plans.view_step("?h=4", "", URL_PARAMS, [step] * plans.MAX_PLAN_STEPS)
    # notes at their longest in four-byte characters: the plan is within its steps but not its bytes
    wide = {"kind": "view", "view": "?h=2", "notes": "😀" * plans.MAX_NOTES}
    assert "at most 46 kB" in refusal(plan_text([wide] * plans.MAX_PLAN_STEPS))
    with pytest.raises(plans.PlanError, match="at most 46 kB"):  # as the page's store holds it, or a step added
        plans.check_steps([wide] * plans.MAX_PLAN_STEPS, URL_PARAMS)
    assert "at most 46 kB" in refusal(" " * (plans.MAX_BYTES + 1))
    with pytest.raises(plans.PlanError, match="at most 46 kB"):
        plans.parse_upload("data:application/json;base64," + "A" * (2 * plans.MAX_BYTES + 4), URL_PARAMS)


def test_a_newer_plan_and_a_hand_edited_one_say_so():
    assert "newer version" in refusal(json.dumps({"format": plans.FORMAT, "version": 3, "steps": []}))
    steps = [{"kind": "question", **QUESTION}]
    assert "question steps" in refusal(plan_text(steps, questions=[{**QUESTION, "head": 1}]))


@pytest.mark.parametrize("contents", [None, 5, ["data:,"], "data:application/json;base64,%%%",
                                      "data:application/json;base64,éé", "no comma at all"])
def test_an_upload_that_is_no_file_is_refused(contents):
    with pytest.raises(plans.PlanError):
        plans.parse_upload(contents, URL_PARAMS)


def test_refusals_are_in_the_page_s_language():
    with i18n.use("es"):
        message = refusal(plan_text([{"kind": "view", "view": "?h=3"}]))
    assert "h = 3" in message and "Step" not in message


@pytest.mark.parametrize("template, search, entry", [
    ("key", "?weights=trained&h=4&head=2&query=1&key=5&lang=es",
     {"weights": "trained", "h": 4, "seed": 0, "size": 4, "scale": "seed", "tau": 0, "head": 2, "query": 1}),
    ("amount", "?h=2&seed=7&scale=tau&tau=-3&head=2&query=4&key=5",
     {"weights": "random", "h": 2, "seed": 7, "size": 4, "scale": "tau", "tau": -3, "head": 2, "query": 4, "key": 5}),
    ("sharpest", "?h=8&head=3", {"weights": "random", "h": 8, "seed": 0, "size": 4, "scale": "seed", "tau": 0}),
    ("bug", "?tab=clinic&bug=kq", {"weights": "random", "h": 4, "seed": 0, "size": 4, "scale": "seed", "tau": 0,
                                   "bug": "kq"}),
    ("role", "?tab=learning&train=3&h=2&seed=5", {"train_seed": 3, "h": 2}),
])
def test_a_class_question_on_the_view_takes_its_setting_and_cell_as_class_mode_s_form_would(template, search, entry):
    steps = plans.question_step(template, search, "ask first", URL_PARAMS, [{"kind": "view", "view": "", "notes": ""}])
    assert steps[-1] == {"kind": "question", "template": template, "timer": 0, **entry, "notes": "ask first"}


@pytest.mark.parametrize("template", [None, "essay", 3, ["key"]])
def test_a_question_of_no_kind_class_mode_has_is_refused(template):
    with pytest.raises(plans.PlanError, match="^Step 1: the question is not one class mode can pose"):
        plans.question_step(template, "?h=2", "", URL_PARAMS, [])


def test_the_learning_lab_s_questions_are_class_mode_s():
    from dashboard import questions

    assert plans.LAB == questions.LAB
