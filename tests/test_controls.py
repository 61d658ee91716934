"""The interaction layer's server side (dashboard/explorer/controls.py): each model tab's callbacks read the tab's
store by name; a forged store gets no update; the parsers check values and never compute or train; a click (only
the cell's inputs fired) answers a Patch of the outlines, a change of the model whole figures."""

import ast
import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from dash import Input, Patch, dcc, html, no_update
from dash.exceptions import PreventUpdate

from dashboard import limits, trainer
from dashboard.attention import multi_head_attention, worked_example
from dashboard.explorer import (clinic, clinic_controls, controls, drilldown, equivariance, example, forms, forward,
                                influence, layout, mixing, selection, summary)
from dashboard.explorer.clinic_controls import Layers
from dashboard.explorer.controls import CELL, MODEL, Cell, HeadsView, ModelView
from dashboard.explorer.ids import MODEL_LATER, SCALE, SEED, SIZE, TAU, WEIGHTS, section_id
from dashboard.explorer.trained import Shown
from dashboard.explorer.ui import near_id
from dashboard.state import Setting
from tests.dash_requests import (CLICK, STORE, callback_map, cell, change_of_heads, click_on_cell, default_values,
                                 explorer_app, heads_store, key_of_function, layers, model, names, ports,
                                 request, store_of, view_callbacks)
from tests.util import decode, fire, patch_assignments

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    trainer.training_runs(0)  # the learning tab's callbacks draw only a trained seed (0, the page's default)
    return explorer_app().server.test_client()


def post(client, body):
    return client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")


def forged_stores(good: dict) -> list:
    """Data that is not the {name: value} dict the browser puts in a store: wrong keys, wrong types, a list, None."""
    wrong_types = ([{**good, "h": "4"}, {**good, "h": 3}, {**good, "h": 4.0}] +
                   ([] if set(good) == {"h", "display"} else
                    [{**good, "seed": 0.5}, {**good, "seed": 100}, {**good, "size": "4"}, {**good, "scale": "x"},
                     {**good, "scale": "tau", "tau": "0"}, {**good, "weights": 1}]))
    return [None, {}, "4", 4, True, [], list(good.values()), dict(list(good.items())[1:]), {**good, "extra": 0},
            {k.upper(): v for k, v in good.items()}, [None] * (len(good) + 2), *wrong_types]


def store_readers() -> list[str]:
    """The callback_map key of every server callback that reads a tab's store."""
    return [key for key in callback_map() if store_of(key)]


def test_each_tab_has_one_store_in_its_section_and_the_views_read_the_shared_controls_only_through_it():
    """So a change of h asks for the shown tab's figures and nothing for a hidden tab's (the store fills only while
    its tab is shown: explorer.tabStore, tests/node). Only the model bar's sentence, the equivariance tab's typed
    order (reset to n's when it does not fit, no figure) and the download read the controls directly: the bar is outside every tab, the download
    reads them as state when pressed."""
    page = layout()
    for tab, store in MODEL.items():
        (section,) = [c for c in page._traverse() if getattr(c, "id", None) == section_id(tab)]
        stores = [c.id for c in section._traverse() if isinstance(c, dcc.Store) and c.id.startswith("model-")]
        assert stores == [store.id] == [f"model-{tab}"]
        assert any(store_of(key) == store.id for key in callback_map()), tab
    shared = {controls.SETTING_FIELDS[name] for name in controls.SETTING_FIELDS} | {"display"}
    direct = {key for key, entry in callback_map().items() if "callback" in entry
              and shared & {p["id"] for p in entry["inputs"]}}
    assert direct == {"scale-text.children", key_of_function(equivariance.follow_size)}  # no figure
    assert len(store_readers()) >= 20 and {SIZE, SCALE, TAU, WEIGHTS, SEED} <= shared


def test_the_bodies_map_is_the_app_s():
    """tests/dash_requests builds bodies from the explorer's callbacks wired on a bare app: the same keys, inputs
    and state as the real app's."""
    real = {k: (v["inputs"], v["state"], v["inputs_state_indices"]) for k, v in explorer_app().callback_map.items()}
    assert real == {k: (v["inputs"], v["state"], v["inputs_state_indices"]) for k, v in callback_map().items()}


def test_the_page_s_own_values_are_drawn(client):
    """The control for the forgeries below: every store reader answers the page's defaults with a 200."""
    for key in store_readers():
        r = post(client, request(key))
        assert r.status_code == 200, (key, r.status_code)
        assert r.get_json()["response"], key


def test_a_forged_store_gets_no_update_over_http(client):
    """For every callback of every tab, each forgery of its store is a 204 (PreventUpdate): nothing drawn."""
    tried = 0
    for key in store_readers():
        good = default_values(key)["shared"]
        for forged in forged_stores(good):
            r = post(client, request(key, {**default_values(key), "shared": forged}))
            assert r.status_code == 204, (key, repr(forged)[:60], r.status_code)
            tried += 1
    assert tried > 300


def test_a_forged_store_gets_no_update_when_called_directly(client):
    for fn in (example.update_heatmaps, mixing.update_mixing, forms.update_forms, clinic.update_clinic):
        (key,) = [c.key for c in view_callbacks() if c.function is fn]
        fire(fn, **default_values(key))  # the page's own: drawn
        for forged in forged_stores(model()):
            with pytest.raises(PreventUpdate):
                fire(fn, **{**default_values(key), "shared": forged})


@pytest.mark.parametrize("forged", [{"bug": "nope"}, {"bug": None}, {"mystery": "1"}, {"mystery": 1000},
                                    {"mystery": -1},
                                    {"mystery": True}, {"causal": "yes"}, {"causal": 1}], ids=repr)
def test_forged_clinic_layers_get_no_update(client, forged):
    keys = [key for key in store_readers() if "layers" in names(key)]
    assert len(keys) == 5
    for key in keys:
        values = default_values(key)
        r = post(client, request(key, {**values, "layers": {**values["layers"], **forged}}))
        assert r.status_code == 204, (key, forged, r.status_code)


@pytest.mark.parametrize("data", [model(h=3), model(seed=-1), model(size=0), model(scale="tau", tau="x"),
                                  {**model(), "display": None, "extra": 1}, heads_store(), None, [4, 0]], ids=repr)
def test_model_view_parse_rejects_what_no_control_sends(data):
    with pytest.raises(limits.Invalid):
        ModelView.parse(data)


def test_model_view_parse_reads_a_store_by_name():
    view = ModelView.parse({**model(8, 3, size=6, scale="tau", tau=-5, weights="trained"), "display": {"narrow": True}})
    assert view.setting == Setting(8, 3, 6, "tau", -5, "trained") and view.display.narrow is True
    assert ModelView.parse(model(2, 1, scale="none", tau="ignored")).setting.tau == limits.DEFAULT_TAU_STEP


@pytest.mark.parametrize("data", [heads_store(3), heads_store("4"), {"h": 4}, model(), None, ["h"]], ids=repr)
def test_heads_view_parse_rejects_what_no_control_sends(data):
    with pytest.raises(limits.Invalid):
        HeadsView.parse(data)


@pytest.mark.parametrize("forged", [layers(bug="nope"), layers(mystery=-1), layers(mystery="2"),
                                    layers(causal=None), layers(bug=["kq"])], ids=repr)
def test_layers_parse_rejects_what_no_control_sends(forged):
    with pytest.raises(limits.Invalid):
        Layers.parse(**forged)
    assert Layers.parse(**layers("kq", 0, True)) == Layers("kq", 0, True)


def test_shown_parse_says_what_is_wrong_or_that_a_seed_trains():
    assert Shown.parse(3, 3) == Shown(3, "")
    for seed in (None, "3", -1, 10**6, 2.0, [3]):
        shown = Shown.parse(seed, seed)
        assert shown.seed is None and "Choose a training seed" in shown.message
    for ready in (None, 2, "3", 3.0, True):
        shown = Shown.parse(3, ready)
        assert shown.seed is None and "training seed 3" in shown.message


def test_no_parser_calls_the_trainer(monkeypatch):
    """Parsing checks values; the callbacks that draw trained runs ask the trainer for them, visibly."""
    def refuse(*args, **kwargs):
        raise AssertionError("a parser trained")

    monkeypatch.setattr(trainer, "training_runs", refuse)
    assert Shown.parse(5, 5) == Shown(5, "") and Shown.parse(5, None).seed is None
    assert ModelView.parse(model(4, 0, weights="trained")).setting.weights == "trained"
    assert HeadsView.parse(heads_store(8)).h == 8
    assert Layers.parse(**layers(mystery=3)).mystery == 3
    with pytest.raises(AssertionError, match="a parser trained"):  # the patch holds: a caller that trains is seen
        trainer.training_runs(5)


def test_the_cells_start_where_the_layout_puts_them():
    page = {c.id: c for c in layout()._traverse() if isinstance(getattr(c, "id", None), str)}
    for inputs, start in ((CELL, controls.DEFAULT_CELL),
                          (clinic_controls.CLINIC_CELL, clinic_controls.CLINIC_DEFAULT_CELL)):
        assert Cell(**{name: page[i.component_id].value for name, i in inputs.items()}) == start
    assert clinic_controls.CLINIC_DEFAULT_CELL != controls.DEFAULT_CELL  # below the diagonal, for a causal mask


def test_the_layout_holds_the_model_bar_s_sentence_for_the_default_setting():
    """So a load paints the page's largest text with the page (Lighthouse's LCP); its numbers are checked against
    the core in test_sentences."""
    from dashboard.explorer import model_bar

    page = {c.id: c for c in layout()._traverse() if isinstance(getattr(c, "id", None), str)}
    assert page[model_bar.SCALE_TEXT].children == model_bar.update_scale_text(setting=default_values(
        "scale-text.children")["setting"])
    assert "1/12 = 0.083" in page[model_bar.SCALE_TEXT].children  # n = 12 tokens, the default


def outline_of(patch) -> list:
    """The shapes a Patch assigns, checking it assigns nothing else."""
    assert isinstance(patch, Patch)
    (location, shapes), = patch_assignments(patch).items()
    assert location == ("layout", "shapes")
    return shapes


def test_a_click_on_the_worked_example_patches_only_the_outlines():
    W, C = model(8, 0), cell(6, 3, 9)
    heatmaps = fire(example.update_heatmaps, CLICK, shared=W, cell=C)
    (shape,) = outline_of(heatmaps)
    assert (shape["xref"], shape["yref"]) == ("x6", "y6")  # head 6 is panel 6
    assert (shape["x0"] + shape["x1"]) / 2 == 9 and (shape["y0"] + shape["y1"]) / 2 == 3
    clicked = fire(forms.update_forms, CLICK, shared=W, cell=C)
    assert clicked["forms"] is no_update and clicked["text"] is no_update and clicked["drawn"] is no_update
    assert outline_of(clicked["logits"]) == [shape]
    clicked = fire(influence.update_influence, CLICK, shared=W, cell=C)
    assert outline_of(clicked["per_head"]) == [shape] and outline_of(clicked["layer"]) != []
    # a graph still waiting to come near (ui.waiting) is left alone: it draws the new cell when it comes near
    for fn in (forms.update_forms, influence.update_influence):
        assert set(fire(fn, CLICK, shared=W, cell=C, drawn=False).values()) == {no_update}
    # the drill-down is the click's answer, read from the core
    panel = fire(drilldown.update_drilldown, CLICK, shared=W, cell=C)
    A = multi_head_attention(*worked_example(0)[:5], 8).A
    assert "A⁽⁶⁾[3, 9]" in str(panel) and f"= {A[5, 3, 9]:.3f}" in str(panel)
    # a head that h no longer has (head 6 at h = 4): no outline, nothing redrawn
    assert outline_of(fire(example.update_heatmaps, CLICK, shared=model(4, 0), cell=C)) == []


def test_the_drill_down_and_the_summary_ask_a_round_trip_after_a_change_of_the_model():
    """They are asked for their tables when the controls a server callback copies from the tab's store arrive
    (MODEL_LATER), so their new components reach the page a round trip after the heatmaps' figure, not with it. A click
    asks for the drill-down at once (it reads the cell itself), and it draws the tab's store as it is: while that holds
    no valid setting (a seed out of range), a click is refused there as on the heatmaps."""
    drill, summary_key = key_of_function(drilldown.update_drilldown), key_of_function(summary.update_summary)
    later = (MODEL_LATER, "data")
    assert ports(drill)[names(drill)["later"]] == ports(summary_key)[names(summary_key)["shared"]] == later
    assert ports(drill)[names(drill)["shared"]] == (MODEL["example"].id, "data")  # a State: it fires nothing
    read = {p["id"] for key in (drill, summary_key) for p in callback_map()[key]["inputs"]}
    assert MODEL["example"].id not in read
    assert {name: ports(drill)[i] for name, i in names(drill)["cell"].items()} == \
        {name: (i.component_id, i.component_property) for name, i in CELL.items()}
    relay = key_of_function(example.relay_model)
    assert [ports(relay)[i] for i in names(relay).values()] == [(MODEL["example"].id, "data")]
    W = model(8, 0)
    assert fire(example.relay_model, shared=W) == W
    for forged in forged_stores(W):
        with pytest.raises(PreventUpdate):
            fire(example.relay_model, shared=forged)
        with pytest.raises(PreventUpdate):  # a click while the store holds no valid setting
            fire(drilldown.update_drilldown, CLICK, shared=forged, cell=cell(1, 0, 1), later=W)


@pytest.mark.parametrize("changed", [STORE["example"], STORE["example"] + CLICK, None], ids=["store", "both", "all"])
def test_a_change_of_the_model_redraws_every_figure(changed):
    W, C = model(8, 0), cell(6, 3, 9)
    heatmaps = fire(example.update_heatmaps, changed, shared=W, cell=C)
    A = multi_head_attention(*worked_example(0)[:5], 8).A
    np.testing.assert_allclose([decode(t["z"]) for t in heatmaps["data"]], A, rtol=1e-6)
    assert heatmaps["layout"]["shapes"] == selection.outlines(Cell(6, 3, 9), 8, 12) != []
    near = [*(changed or []), Input(near_id(example.CUBE), "n_clicks")]  # the cube draws as it comes near
    patched = set(patch_assignments(fire(example.update_cube, changed and near, shared=W, focus=0, near=1)["cube"]))
    assert ("data",) in patched and not [p for p in patched if "camera" in p or p == ("layout",)], patched
    if changed:  # the forms wait to come near the screen (ui.waiting): a change arms their near button with it
        waits = fire(forms.update_forms, changed, shared=W, cell=C)
        assert waits["forms"] is waits["logits"] is waits["text"] is no_update
        assert waits["drawn"] is False and json.loads(waits["waits_for"]) == W
    near = fire(forms.update_forms, [*(changed or []), Input(near_id(forms.FORMS), "n_clicks")],
                shared=W, cell=C)
    assert isinstance(near["forms"], dict) and "rank 1" in near["text"] and near["drawn"] is True
    assert len(near["logits"]["data"]) == 8 and near["logits"]["layout"]["shapes"] == heatmaps["layout"]["shapes"]


def test_a_click_on_the_mixing_tab_patches_the_outline_and_draws_the_query_s_row():
    W, C = model(8, 2), cell(3, 7, 1)
    A = multi_head_attention(*worked_example(2)[:5], 8).A
    single, multi, features = fire(mixing.update_mixing, CLICK, shared=W, cell=C)
    assert single is no_update
    (shape,) = outline_of(multi)
    assert (shape["xref"], shape["x0"] + shape["x1"], shape["y0"] + shape["y1"]) == ("x3", 2, 14)
    mix = decode(features["data"][0]["z"])
    for c in range(8):  # column c is mixed by head c // (d/h): row 7 of its A
        np.testing.assert_allclose(mix[:, c], A[c, 7], rtol=1e-6)
    # a change of the model redraws both panels, outlined, and the map
    single, multi, features_ = fire(mixing.update_mixing, STORE["mixing"], shared=W, cell=C)
    assert len(single["data"]) == 1 and multi["layout"]["shapes"] == [shape]
    np.testing.assert_allclose([decode(t["z"]) for t in multi["data"]], A, rtol=1e-6)
    np.testing.assert_allclose(decode(features_["data"][0]["z"]), mix)


@pytest.mark.parametrize("query", [12, -1, "7", None, 7.0, True, [7], 10**400], ids=lambda v: repr(v)[:12])
def test_a_forged_query_gets_a_message_in_place_of_the_feature_map(query):
    W, C = model(8, 2), cell(3, query, 1)
    for changed in (CLICK, None):
        _, multi, features = fire(mixing.update_mixing, changed, shared=W, cell=C)
        assert features["data"] == [] and "not one of the 12" in features["layout"]["annotations"][0]["text"]
        assert (outline_of(multi) if changed else multi["layout"]["shapes"]) == []


def test_a_click_on_the_clinic_moves_only_the_outlines():
    values = {**default_values("clinic-heatmaps.figure"), "shared": model(4, 0)}
    right, wrong, outputs, headline = fire(clinic.update_clinic, [clinic_controls.CLINIC_CELL],
                                           **{**values, "cell": cell(2, 5, 0)})
    assert outputs is no_update and headline is no_update
    assert outline_of(right) == outline_of(wrong) == selection.outlines(Cell(2, 5, 0), 4, 12) != []
    drawn = fire(clinic.update_clinic, STORE["clinic"], **values)
    assert all(isinstance(f, dict) and f["data"] for f in drawn[:3]) and isinstance(drawn[3], str | html.Div)


def test_over_http_a_click_answers_patches_of_the_outlines_and_a_change_of_h_whole_figures(client):
    """changedPropIds is what selection.only_the_cell_changed reads: through the real endpoint."""
    answers = {}
    for b in click_on_cell(8, 3, 4, 5, 6) + click_on_cell(8, 3, 4, 5, 6, "mixing"):
        r = post(client, b)
        assert r.status_code == 200, b["output"]
        answers.update(r.get_json()["response"])
    figures = {k for k, v in answers.items() if "figure" in v}
    assert figures == {example.HEATMAPS, forms.LOGITS, influence.INFLUENCE, influence.INFLUENCE_LAYER,
                       mixing.MIX_MULTI, mixing.FEATURE_MIX}
    for graph in figures - {mixing.FEATURE_MIX}:  # the map is the clicked query's row, drawn whole
        patch = answers[graph]["figure"]
        assert "__dash_patch_update" in patch
        assert [op["location"] for op in patch["operations"]] == [["layout", "shapes"]], graph
    for graph in (example.HEATMAPS, forms.LOGITS, mixing.MIX_MULTI):
        assert answers[graph]["figure"]["operations"][0]["params"]["value"] == selection.outlines(Cell(4, 5, 6), 8, 12)
    assert drilldown.DRILLDOWN in answers and forms.FORMS not in answers and mixing.MIX_SINGLE not in answers
    A = multi_head_attention(*worked_example(3)[:5], 8).A
    np.testing.assert_allclose(decode(answers[mixing.FEATURE_MIX]["figure"]["data"][0]["z"])[:, 7], A[7, 5], rtol=1e-6)
    drawn = {}
    for b in change_of_heads(8, 3):
        drawn.update(post(client, b).get_json()["response"])
    for graph, answer in drawn.items():
        if "figure" in answer and graph != example.CUBE:
            assert "__dash_patch_update" not in answer["figure"] and "data" in answer["figure"], graph
    # the heatmaps and the texts answer; a graph that waits to come near (ui.waiting) answers with its near button
    # armed, and draws when it is pressed
    assert {example.HEATMAPS, example.WORKED_TEXT, drilldown.DRILLDOWN} <= set(drawn)
    for graph in (example.TOKENS, example.BLOCKS, forms.FORMS, forward.FORWARD, influence.INFLUENCE,
                  influence.HEAD_EFFECTS, example.CUBE):
        armed = drawn[json.dumps(near_id(graph), sort_keys=True, separators=(",", ":"))]
        assert graph not in drawn and armed["disabled"] is False and json.loads(armed["value"])["h"] == 8, graph
    np.testing.assert_allclose([decode(t["z"]) for t in drawn[example.HEATMAPS]["figure"]["data"]], A, rtol=1e-6)
