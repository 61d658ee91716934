"""The lecture plan's panel (dashboard/explorer/plan.py): its callbacks called as Dash calls them, forged values
included, and the keys that step through it (presenter.SHORTCUTS)."""

import base64
import json

import pytest
from dash import html

from dashboard import lecture_plan as plans
from dashboard.explorer import plan, presenter
from tests.util import fire, texts

QUESTION = {"template": "key", "timer": 30, "weights": "trained", "h": 4, "seed": 0, "size": 4, "scale": "seed",
            "tau": 0, "head": 2, "query": 1}
EDIT = dict(presses=[1] * 7, upload=None, search="", notes="", plan=None, at=None, pick=None, kind="key")


def clicked(callback, button, value=1, **values):
    """Call a callback as Dash does after a click on `button` (an id, or a pattern-matching id as a dict)."""
    from dash._callback_context import context_value
    from dash._utils import AttributeDict

    prop = json.dumps(button, separators=(",", ":"), sort_keys=True) if isinstance(button, dict) else button
    token = context_value.set(AttributeDict(triggered_inputs=[{"prop_id": f"{prop}.n_clicks", "value": value}]))
    try:
        return callback(**values)
    finally:
        context_value.reset(token)


def add(steps, search, notes=""):
    out = fire(plan.edit, [f"{plan.ADD}.n_clicks"], **{**EDIT, "search": search, "notes": notes,
                                                      "plan": {"steps": steps}})
    return out


def build(*searches):
    steps = []
    for k, search in enumerate(searches):
        out = add(steps, search, f"notes {k + 1}")
        steps = out["plan"]["steps"]
    return steps


def test_add_this_view_takes_the_address_as_a_step_with_its_notes():
    out = add([], "?tab=example&h=8&seed=3&lang=es", "two heads per cluster <b>")
    assert out["plan"] == {"steps": [{"kind": "view", "view": "?tab=example&h=8&seed=3",
                                      "notes": "two heads per cluster <b>"}]}
    assert out["notes"] == "" and out["message"] == "A plan of 1 step." and out["at"] is None
    out = add(out["plan"]["steps"], "?h=1", "")
    assert len(out["plan"]["steps"]) == 2 and out["message"] == "A plan of 2 steps."


def test_a_view_this_version_cannot_show_is_not_added():
    out = add(build("?h=2"), "?h=3", "n")
    assert out["plan"].__class__.__name__ == "NoUpdate"
    assert out["message"] == "Step 2: this version of the explorer cannot show h = 3."
    assert out["notes"].__class__.__name__ == "NoUpdate"  # the notes stay for another try


@pytest.mark.parametrize("do, order, at", [("plan-up", [2, 1, 3], 0), ("plan-down", [1, 3, 2], 2),
                                         ("plan-remove", [1, 3], None)])
def test_the_picked_step_s_buttons_move_or_remove_it_and_the_current_step_follows(do, order, at):
    steps = build("?h=1", "?h=2", "?h=4")
    out = clicked(plan.edit, do, **{**EDIT, "plan": {"steps": steps}, "at": 1, "pick": 1})
    assert [s["notes"] for s in out["plan"]["steps"]] == [f"notes {k}" for k in order]
    assert out["at"] == at and out["pick"] == at


def test_moving_another_step_keeps_the_current_one():
    steps = build("?h=1", "?h=2", "?h=4")
    out = clicked(plan.edit, "plan-down", **{**EDIT, "plan": {"steps": steps}, "at": 2, "pick": 0})
    assert [s["notes"] for s in out["plan"]["steps"]] == ["notes 2", "notes 1", "notes 3"]
    assert out["at"] == 2 and out["pick"] == 1


@pytest.mark.parametrize("pick", [None, 9, -1, "1", 1.0, True, [0]])
def test_a_forged_pick_changes_no_step(pick):
    steps = build("?h=1", "?h=2")
    for button in plan.MOVES:
        out = clicked(plan.edit, button, **{**EDIT, "plan": {"steps": steps}, "pick": pick})
        assert out["plan"] == {"steps": steps}


def test_the_picked_step_takes_the_notes_box_s_text_as_its_notes():
    steps = build("?h=1", "?h=2")
    out = clicked(plan.edit, plan.RENOTE, **{**EDIT, "plan": {"steps": steps}, "pick": 1, "notes": "<i>new</i>"})
    assert [s["notes"] for s in out["plan"]["steps"]] == ["notes 1", "<i>new</i>"] and out["notes"] == ""
    out = clicked(plan.edit, plan.RENOTE, **{**EDIT, "plan": {"steps": steps}, "pick": 0, "notes": "x" * 201})
    assert out["message"] == "Step 1: notes are text of at most 200 characters."
    assert out["plan"].__class__.__name__ == "NoUpdate"
    for pick in (None, 2, "0", True):
        out = clicked(plan.edit, plan.RENOTE, **{**EDIT, "plan": {"steps": steps}, "pick": pick, "notes": "n"})
        assert out["plan"].__class__.__name__ == "NoUpdate"


def test_clear_empties_the_plan():
    out = clicked(plan.edit, plan.CLEAR, **{**EDIT, "plan": {"steps": build("?h=1")}, "at": 0})
    assert out["plan"] == {"steps": []} and out["at"] is None


def test_open_checks_the_file_on_the_server_and_says_why_it_refuses():
    steps = build("?h=1", "?h=2", "?tab=mixing")
    text = plans.file_text(steps)
    contents = "data:application/json;base64," + base64.b64encode(text.encode()).decode()
    out = fire(plan.edit, [f"{plan.PLAN_OPEN}.contents"], **{**EDIT, "upload": contents, "at": 2})
    assert out["plan"] == {"steps": steps} and out["at"] is None and out["message"] == "A plan of 3 steps."
    bad = text.replace("?tab=mixing", "?tab=mixing&compare=1")
    out = fire(plan.edit, [f"{plan.PLAN_OPEN}.contents"],
               **{**EDIT, "upload": "data:application/json;base64," + base64.b64encode(bad.encode()).decode()})
    assert out["message"] == "Step 3: this version of the explorer has no setting compare."
    assert out["plan"].__class__.__name__ == "NoUpdate"


def test_save_downloads_the_plan_file_that_opens_again():
    steps = build("?h=1", "?h=8&seed=5")
    saved = fire(plan.save, None, clicks=1, plan={"steps": steps})
    assert saved["filename"].endswith(".json") and plans.parse(saved["content"], plan.url_params()) == steps
    assert fire(plan.save, None, clicks=1, plan={"steps": "forged"}).__class__.__name__ == "NoUpdate"


def test_the_plan_s_keys_are_shortcuts_with_their_buttons_in_the_list():
    listed = [b for b, _keys, _what in presenter.SHORTCUTS]
    assert set(presenter.PLAN_STEP_KEYS) <= set(listed)
    ids = [c.id for c in presenter.shortcuts()._traverse() if getattr(c, "id", None)]
    assert set(presenter.PLAN_STEP_KEYS) <= set(ids)


def test_pagedown_and_pageup_press_the_plan_s_buttons():
    keys = presenter.client_config()["keys"]
    assert keys["PageDown"] == "key-plan-next" and keys["PageUp"] == "key-plan-previous"


def step(button, steps, at, search="?h=4&lang=es", pick=None):
    return clicked(plan.step, button, presses=[1] * 5, plan={"steps": steps}, at=at, search=search, pick=pick)


def test_pagedown_moves_to_the_next_step_and_sets_its_view_keeping_the_language():
    steps = build("?tab=example&h=8&seed=3", "?h=1", "?tab=mixing&h=2")
    assert step("key-plan-next", steps, None) == {"at": 0, "search": "?tab=example&h=8&seed=3&lang=es"}
    assert step("key-plan-next", steps, 0) == {"at": 1, "search": "?h=1&lang=es"}
    assert step("key-plan-previous", steps, 1, "?h=1") == {"at": 0, "search": "?tab=example&h=8&seed=3"}
    assert step(plan.STEP_FORWARD, steps, 1, "") == {"at": 2, "search": "?tab=mixing&h=2"}
    last = step("key-plan-next", steps, 2)  # the last step stays
    assert all(v.__class__.__name__ == "NoUpdate" for v in last.values())
    assert step("key-plan-previous", steps, None)["at"] == 0


def test_show_this_step_goes_to_the_picked_step_even_the_current_one():
    steps = build("?h=1", "?h=2", "?tab=mixing")
    assert step(plan.GO, steps, None, "", pick=2) == {"at": 2, "search": "?tab=mixing"}
    assert step(plan.GO, steps, 2, "?h=8", pick=2) == {"at": 2, "search": "?tab=mixing"}  # back to its view
    assert step(plan.GO, steps, 0, "", pick="2")["at"].__class__.__name__ == "NoUpdate"


def test_lecture_mode_stays_on_through_a_lecture():
    steps = build("?h=1", "?tab=mixing&lecture=1")
    assert step("key-plan-next", steps, None, "?lecture=1&h=4")["search"] == "?h=1&lecture=1"
    assert step("key-plan-next", steps, 0, "?h=1")["search"] == "?tab=mixing&lecture=1"  # a view may turn it on
    assert step("key-plan-previous", steps, 1, "?tab=mixing&lecture=0")["search"] == "?h=1"


def test_a_view_at_the_defaults_goes_back_to_them():
    steps = build("", "?h=1")
    assert step("key-plan-previous", steps, 1, "?h=1") == {"at": 0, "search": "?"}
    assert step("key-plan-previous", steps, 1, "?h=1&lang=zh-CN") == {"at": 0, "search": "?lang=zh-CN"}


def test_a_question_step_moves_on_and_leaves_the_address():
    steps = plans.check_steps([{"kind": "view", "view": "?h=2"}, {"kind": "question", **QUESTION}], plan.url_params())
    out = step("key-plan-next", steps, 0)
    assert out["at"] == 1 and out["search"].__class__.__name__ == "NoUpdate"


@pytest.mark.parametrize("forged", [None, "plan", {"steps": "x"}, {"steps": [{"kind": "view", "view": "?h=3"}]},
                                    {"steps": [{"kind": "view", "view": "?h=2"}] * 61}, {"steps": [None]}])
def test_a_forged_plan_steps_nowhere(forged):
    out = clicked(plan.step, "key-plan-next", presses=[1] * 5, plan=forged, at=0, search="", pick=0)
    assert all(v.__class__.__name__ == "NoUpdate" for v in out.values())


@pytest.mark.parametrize("at", ["1", 1.0, True, -1, 7, [1], {"k": 1}])
def test_a_forged_position_starts_from_the_first_step(at):
    steps = build("?h=1", "?h=2")
    assert step("key-plan-next", steps, at)["at"] == 0


def test_the_console_shows_the_current_notes_and_what_comes_next_as_text():
    notes = '<img src=x onerror="alert(1)"> look at head 2'
    steps = build("?h=1", "?tab=mixing&h=2")
    steps[0]["notes"] = notes
    out = plan.show(plan={"steps": steps}, at=0)
    console = html.Div(out["console"])
    assert "Step 1 of 2" in texts(console) and notes in texts(console)
    assert "Next:" in texts(console) and "?tab=mixing&h=2" in texts(console)
    labels = html.Div([o["label"] for o in out["steps"]])
    assert notes in texts(labels) and [o["value"] for o in out["steps"]] == [0, 1]
    assert not any("dangerously" in repr(c) or type(c).__name__ in ("Iframe", "Markdown")
                   for c in html.Div([console, labels])._traverse())
    assert ["now" in texts(o["label"]) for o in out["steps"]] == [True, False]  # the current step is marked
    assert out["save"] is False
    end = plan.show(plan={"steps": steps}, at=1)
    assert "The plan ends here." in texts(html.Div(end["console"]))


def test_the_console_shows_a_question_step_s_prompt_and_the_way_to_class_mode():
    steps = plans.check_steps([{"kind": "question", **QUESTION, "notes": "vote twice"}], plan.url_params())
    console = html.Div(plan.show(plan={"steps": steps}, at=0)["console"])
    words = " ".join(texts(console))
    assert "which key will query 1 attend to most?" in words and "vote twice" in words
    links = [c for c in console._traverse() if isinstance(c, html.A)]
    assert [a.href for a in links] == [plan.CLASS_MODE]


@pytest.mark.parametrize("forged", [None, [], "x", {"steps": [{"kind": "view", "view": "?h=3"}]}])
def test_an_empty_or_forged_plan_shows_how_to_start(forged):
    out = plan.show(plan=forged, at=3)
    assert out["steps"] == [] and out["save"] is True and "No plan yet" in " ".join(texts(html.Div(out["console"])))


def test_the_plan_s_callbacks_pass_the_server_s_request_check_with_the_largest_plan():
    """Over HTTP, through server.is_callback_request and the body limit: the largest plan the page may hold is
    sent with every press of PageDown, and a callback's body stays under server.MAX_BODY."""
    from dashboard.server import MAX_BODY
    from tests.dash_requests import callback_map, explorer_app, request

    client = explorer_app().server.test_client()
    wide = {"kind": "view", "view": "?tab=equivariance&perm=" + ",".join(map(str, range(47, -1, -1))),
            "notes": "注" * plans.MAX_NOTES}
    steps = []
    while True:  # as many such steps as the plan's byte limit lets the page hold
        try:
            steps = plans.check_steps([*steps, wide], plan.url_params())
        except plans.PlanError:
            break
    assert len(plans.file_text(steps).encode()) > 0.97 * plans.MAX_BYTES
    values = dict(presses=[None, None, None, None, 1], plan={"steps": steps}, at=3, search="?lang=es", pick=None)
    body = request(next(k for k in callback_map() if "...url.search@" in k), values, changed=["key-plan-next.n_clicks"])
    assert len(json.dumps(body, ensure_ascii=False).encode()) < MAX_BODY
    answer = client.post("/_dash-update-component", data=json.dumps(body, ensure_ascii=False),
                         content_type="application/json")
    assert answer.status_code == 200, answer.data[:300]
    assert answer.json["response"]["plan-at"]["data"] == 4
    added = request("plan.data", dict(presses=[1, *[None] * 7], upload=None, search="?h=3", notes="",
                                      plan={"steps": steps[:2]}, at=None, pick=None, kind="key"),
                    changed=["plan-add.n_clicks"])
    answer = client.post("/_dash-update-component", json=added)
    assert answer.status_code == 200 and "h = 3" in answer.json["response"]["plan-message"]["children"]


def test_a_class_question_on_the_view_is_added_with_its_prompt_shown_or_refused_with_why():
    search = "?weights=trained&h=4&head=2&query=1"
    out = clicked(plan.edit, plan.ADD_QUESTION, **{**EDIT, "search": search, "notes": "vote twice", "kind": "key"})
    assert out["plan"]["steps"][0]["template"] == "key" and out["message"] == "A plan of 1 step."
    words = " ".join(texts(html.Div(plan.show(plan=out["plan"], at=0)["console"])))
    assert "which key will query 1 attend to most?" in words
    # a coin toss: class mode would refuse it, so the plan does not take it
    out = clicked(plan.edit, plan.ADD_QUESTION, **{**EDIT, "search": "?weights=trained&h=4", "kind": "sharpest"})
    assert out["plan"].__class__.__name__ == "NoUpdate"
    assert out["message"].startswith("Step 1: The sharpest head") and "too close to tell" in out["message"]
    out = clicked(plan.edit, plan.ADD_QUESTION, **{**EDIT, "search": search, "kind": "<script>"})
    assert out["message"] == "Step 1: the question is not one class mode can pose."
