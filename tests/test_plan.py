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
EDIT = dict(add=None, edits=[], upload=None, clear=None, search="", notes="", plan=None, at=None)


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


@pytest.mark.parametrize("do, order, at", [("up", [2, 1, 3], 0), ("down", [1, 3, 2], 2), ("remove", [1, 3], None)])
def test_each_step_s_buttons_move_or_remove_it_and_the_current_step_follows(do, order, at):
    steps = build("?h=1", "?h=2", "?h=4")
    out = clicked(plan.edit, {"type": plan.EDIT, "step": 1, "do": do}, **{**EDIT, "plan": {"steps": steps}, "at": 1})
    assert [s["notes"] for s in out["plan"]["steps"]] == [f"notes {k}" for k in order]
    assert out["at"] == at


def test_a_step_s_buttons_fire_with_no_click_when_the_list_is_drawn_and_change_nothing():
    steps = build("?h=1", "?h=2")
    out = clicked(plan.edit, {"type": plan.EDIT, "step": 1, "do": "remove"}, None,
                  **{**EDIT, "plan": {"steps": steps}})
    assert all(v.__class__.__name__ == "NoUpdate" for v in out.values())


@pytest.mark.parametrize("button", [{"type": plan.EDIT, "step": 9, "do": "up"}, {"type": plan.EDIT, "step": "1",
                                                                                  "do": "up"},
                                    {"type": plan.EDIT, "step": 0, "do": "explode"}])
def test_a_forged_step_button_changes_no_step(button):
    steps = build("?h=1", "?h=2")
    out = clicked(plan.edit, button, **{**EDIT, "plan": {"steps": steps}})
    assert out["plan"] == {"steps": steps}


def test_open_checks_the_file_on_the_server_and_says_why_it_refuses():
    steps = build("?h=1", "?h=2", "?tab=mixing")
    text = plans.file_text(steps)
    contents = "data:application/json;base64," + base64.b64encode(text.encode()).decode()
    out = fire(plan.edit, [f"{plan.OPEN}.contents"], **{**EDIT, "upload": contents, "at": 2})
    assert out["plan"] == {"steps": steps} and out["at"] is None and out["message"] == "A plan of 3 steps."
    bad = text.replace("?tab=mixing", "?tab=mixing&compare=1")
    out = fire(plan.edit, [f"{plan.OPEN}.contents"],
               **{**EDIT, "upload": "data:application/json;base64," + base64.b64encode(bad.encode()).decode()})
    assert out["message"] == "Step 3: this version of the explorer has no setting compare."
    assert out["plan"].__class__.__name__ == "NoUpdate"


def test_save_downloads_the_plan_file_that_opens_again():
    steps = build("?h=1", "?h=8&seed=5")
    saved = fire(plan.save, None, clicks=1, plan={"steps": steps})
    assert saved["filename"].endswith(".json") and plans.parse(saved["content"], plan.url_params()) == steps
    assert fire(plan.save, None, clicks=1, plan={"steps": "forged"}).__class__.__name__ == "NoUpdate"


@pytest.mark.parametrize("button", [*presenter.PLAN_KEYS, plan.BACK, plan.FORWARD])
def test_the_keys_buttons_are_in_the_list_of_shortcuts(button):
    assert button in [b for b, _keys, _what in presenter.SHORTCUTS] or button in (plan.BACK, plan.FORWARD)


def test_pagedown_and_pageup_press_the_plan_s_buttons():
    keys = presenter.client_config()["keys"]
    assert keys["PageDown"] == "key-plan-next" and keys["PageUp"] == "key-plan-previous"


def step(button, steps, at, search="?h=4&lang=es"):
    return clicked(plan.step, button, presses=[1, 1, 1, 1], plan={"steps": steps}, at=at, search=search)


def test_pagedown_moves_to_the_next_step_and_sets_its_view_keeping_the_language():
    steps = build("?tab=example&h=8&seed=3", "?h=1", "?tab=mixing&h=2")
    assert step("key-plan-next", steps, None) == {"at": 0, "search": "?tab=example&h=8&seed=3&lang=es"}
    assert step("key-plan-next", steps, 0) == {"at": 1, "search": "?h=1&lang=es"}
    assert step("key-plan-previous", steps, 1, "?h=1") == {"at": 0, "search": "?tab=example&h=8&seed=3"}
    assert step(plan.FORWARD, steps, 1, "") == {"at": 2, "search": "?tab=mixing&h=2"}
    last = step("key-plan-next", steps, 2)  # the last step stays
    assert all(v.__class__.__name__ == "NoUpdate" for v in last.values())
    assert step("key-plan-previous", steps, None)["at"] == 0


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
    out = clicked(plan.step, "key-plan-next", presses=[1, 1, 1, 1], plan=forged, at=0, search="")
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
    assert not any("dangerously" in repr(c) or type(c).__name__ in ("Iframe", "Markdown")
                   for c in html.Div([console, *out["steps"]])._traverse())
    assert [item.className for item in out["steps"]] == ["plan-step current", "plan-step"]
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
