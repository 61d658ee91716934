"""The gates' server side (dashboard/explorer/gate.py): a forged gate gets no update, and a click, which fires only
the cell's gate, outlines the cell without redrawing. Which tab may send a gate is the browser's rule
(explorer.gate); the server cannot see the tab any more, and does not need to."""

import json

import numpy as np
import pytest
from dash import Input, Output, Patch, no_update
from dash.exceptions import PreventUpdate

from dashboard import create_app, trainer
from dashboard.attention import multi_head_attention, worked_example
from dashboard.state import Setting
from dashboard.explorer import drilldown, example, forms, mixing, model_bar, selection
from dashboard.explorer.gate import GATES, Cell
from dashboard.explorer.model_bar import SCALE_GATE
from dashboard.explorer.worked import DRILL_CELL, WORKED, WORKED_CELL
from tests.dash_requests import (
    GATE_BY_ID,
    arguments,
    callback_body,
    default_data,
    cell,
    change_of_heads,
    click_on_cell,
    example_views,
    gated_callbacks,
    model,
    worked,
)
from tests.util import decode, fire, from_html, patch_assignments

def forged_data(gate) -> list:
    """Data that is not the {name: value} dict the browser puts in `gate`: the old positional list among it."""
    fields = default_data(gate)
    n = len(fields)
    missing = dict(list(fields.items())[1:])
    unpassed = [] if gate.start else [None]  # a gate with start values reads None as those (see below)
    return unpassed + [{}, "4", "x" * n, 4, True, 4.0, [], list(fields.values()), missing, {**fields, "extra": 0},
                       {k.upper(): v for k, v in fields.items()}, [None] * (n + 2)]


def forgeries():
    """(callback, outputs, inputs, state, forged {gate id: data}) for every gate of every gated callback."""
    for fn, outputs, inputs, state in gated_callbacks():
        for d in inputs:
            if d.component_id in GATE_BY_ID:
                for data in forged_data(GATE_BY_ID[d.component_id]):
                    yield fn, outputs, inputs, state, {d.component_id: data}


@pytest.fixture(scope="module")
def trained():
    trainer.training_runs(0)  # the learning tab's callbacks draw only a trained seed (0, the page's default)


def test_every_gate_is_read_by_a_callback():
    read = {d.component_id for _, _, inputs, _ in gated_callbacks() for d in inputs} & set(GATE_BY_ID)
    assert read == {g.id for g in GATES} and len(GATES) == len(GATE_BY_ID)
    assert len(list(forgeries())) > 150


def test_gates_share_one_callback_but_those_that_read_what_the_change_itself_rewrites():
    """Dash runs a callback only after every callback of the same change that writes one of its inputs (gate.wire).
    An input written by a callback that a control or a gate starts (the equivariance tab's head buttons follow h,
    its token order the size, the learning lab's runs its request) is read by every gate of each callback that
    reads it, so no other gate waits for that callback; every other gate shares one callback."""
    from dashboard.explorer import header
    from dashboard.explorer.gate import held_inputs, inputs
    from dashboard.explorer.wiring import CALLBACKS

    groups = [deps for name, deps, _ in CALLBACKS.client if name == "gates"]
    others = [deps for deps, _, _ in CALLBACKS.server] + [deps for name, deps, _ in CALLBACKS.client
                                                           if name not in ("gates", "readUrl")]
    pairs = lambda deps, kind: {(d.component_id, d.component_property) for d in deps if isinstance(d, kind)}  # noqa: E731
    held = held_inputs(others + header.CALLBACKS.dependencies())
    assert {("eq-head", "value"), ("perm", "value"), ("learn-ready", "data")} <= held
    assert not held & {("sel-head", "value"), ("display", "data"), ("clinic-mystery", "value")}
    callback_of = {}
    for k, deps in enumerate(groups):
        gates = [GATE_BY_ID[d.component_id] for d in deps if isinstance(d, Output)]
        for g in gates:
            assert set(inputs(g)) <= pairs(deps, Input) and pairs(deps, Input) & held == set(inputs(g)) & held, g.id
            callback_of[g.id] = k
    assert sorted(callback_of) == sorted(GATE_BY_ID) and len(groups) == 3
    shared = {callback_of[f"gate-{name}"] for name in ("example", "example-cell", "forms", "mixing", "clinic", "cube")}
    assert len(shared) == 1 and callback_of["gate-equivariance"] not in shared
    # a click's answer is asked for before the outlines it would otherwise wait behind
    outputs = [d.component_id for d in groups[shared.pop()] if isinstance(d, Output)]
    assert outputs.index(DRILL_CELL.id) < outputs.index(WORKED_CELL.id)


def test_a_gate_reads_as_its_start_values_until_it_first_passes():
    """A selected cell's gate holds the cell its inputs start with, the model bar's the default setting; a gate
    whose figure the layout does not draw holds nothing."""
    assert WORKED_CELL.read(None).cell == drilldown.DEFAULT_CELL == Cell(1, 0, 1)
    assert WORKED_CELL.read(None) == WORKED_CELL.read({"head": 1, "query": 0, "key": 1})
    assert SCALE_GATE.read(None).setting == model_bar.DEFAULT_SETTING == Setting(4, 0, 4, "seed", 0, "random")
    cells = {g.id for g in GATES if list(g.controls) == ["cell"]}
    assert {g.id for g in GATES if g.start} == cells | {SCALE_GATE.id}
    with pytest.raises(PreventUpdate):
        WORKED.read(None)


def test_a_gate_with_start_values_is_read_only_beside_gates_that_never_pass_before_it():
    """Until a gate first passes it reads as its start values: the layout's cell, not a link's. A callback that read
    it beside a gate that can pass first (on another tab, with no graph near the screen, before the figure looked
    at has drawn) would explain the layout's cell with the link's model (the drill-down did)."""
    def passes_whenever(g, other):
        near = not g.watch or (bool(other.watch) and set(other.watch) <= set(g.watch))
        return set(other.tabs) <= set(g.tabs) and near and (other.after or not g.after)

    for fn, _, inputs, _ in gated_callbacks():
        gates = [GATE_BY_ID[d.component_id] for d in inputs if d.component_id in GATE_BY_ID]
        for g in (g for g in gates if g.start):
            assert all(passes_whenever(g, other) for other in gates), (fn.__name__, g.id)


def test_a_gate_starts_as_the_layout_builds_its_inputs_and_the_model_bar_its_sentence():
    """A start value the layout does not hold would keep the page's first values from passing (or pass a repeat);
    the sentence the layout holds is the one the callback answers for the default setting, checked against the
    core for every case in test_sentences."""
    from dashboard.explorer import layout as make_layout

    page = {c.id: c for c in make_layout()._traverse() if getattr(c, "id", None)}
    for g in GATES:
        for control in g.controls.values():
            for name, (component, prop) in control.fields.items():
                assert g.start is None or getattr(page[component], prop) == g.start[name], (g.id, name)
    assert page[model_bar.SCALE_TEXT].children == model_bar.update_scale_text(SCALE_GATE.start)[0]
    assert "1/12 = 0.083" in page[model_bar.SCALE_TEXT].children  # n = 12 tokens, the default


def test_forged_gate_data_gets_no_update(trained):
    for fn, _, inputs, state, forged in forgeries():
        fire(fn, *arguments(inputs, state))  # the page's own data is drawn: no PreventUpdate
        with pytest.raises(PreventUpdate):
            fire(fn, *arguments(inputs, state, forged))


def test_forged_gate_data_over_http_is_a_204(trained):
    client = create_app().server.test_client()
    post = lambda b: client.post("/_dash-update-component", data=json.dumps(b), content_type="application/json")
    for _, outputs, inputs, state in gated_callbacks():
        assert post(callback_body(outputs, inputs, state)).status_code == 200
    for _, outputs, inputs, state, forged in forgeries():
        r = post(callback_body(outputs, inputs, state, forged))
        assert r.status_code == 204, (outputs[0].component_id, forged, r.status_code)


def test_the_feature_map_reads_its_own_gate():
    """The map draws the query gate's row; for a row outside the tokens it says so, with no axes."""
    W, C = worked(4, 0), cell(2, 5, 7)
    fired = [mixing.MIXING_CELL, mixing.MIXING_QUERY]
    _, _, five = fire(mixing.update_mixing, W, C, {"query": 5}, changed=fired)
    _, _, seven = fire(mixing.update_mixing, W, C, {"query": 7}, changed=fired)
    assert five["layout"] != seven["layout"] or five["data"] != seven["data"]
    for outside in (12, -1, "5", 5.0, [5]):
        message = fire(mixing.update_mixing, W, C, {"query": outside}, changed=fired)[2]
        assert message["data"] == [] and "not one of the 12 tokens" in message["layout"]["annotations"][0]["text"]


def outline_of(patch) -> list:
    """The shapes a Patch assigns, checking it assigns nothing else."""
    assert isinstance(patch, Patch)
    (location, shapes), = patch_assignments(patch).items()
    assert location == ("layout", "shapes")
    return shapes


def test_a_click_on_the_worked_example_patches_only_the_outlines():
    W, C = worked(8, 0), cell(6, 3, 9)
    heatmaps, text = fire(example.update_heatmaps, W, C, changed=[WORKED_CELL])
    assert text is no_update
    # the blocks and the cube do not read the cell: a click sends them nothing
    cell_readers = {fn for fn, _, inputs, _ in gated_callbacks()
                    if {WORKED_CELL.id, DRILL_CELL.id} & {d.component_id for d in inputs}}
    assert cell_readers == {example.update_heatmaps, forms.update_forms, drilldown.update_drilldown}
    (shape,) = outline_of(heatmaps)
    assert (shape["xref"], shape["yref"]) == ("x6", "y6")  # head 6 is panel 6
    assert (shape["x0"] + shape["x1"]) / 2 == 9 and (shape["y0"] + shape["y1"]) / 2 == 3
    forms_fig, logits, forms_text = fire(forms.update_forms, W, C, changed=[WORKED_CELL])
    assert forms_fig is no_update and forms_text is no_update
    assert outline_of(logits) == [shape]
    # the drill-down is the click's answer
    panel = from_html(fire(drilldown.update_drilldown, model(8, 0), C, changed=[DRILL_CELL]))
    A = multi_head_attention(*worked_example(0)[:5], 8).A
    assert "A⁽⁶⁾[3, 9]" in str(panel) and f"= {A[5, 3, 9]:.3f}" in str(panel)
    # a click on a head h no longer has (head 6 at h = 4): no outline, nothing redrawn
    assert outline_of(fire(example.update_heatmaps, worked(4, 0), C, changed=[WORKED_CELL])[0]) == []


@pytest.mark.parametrize("changed", [[WORKED], [WORKED, WORKED_CELL], None])
def test_a_change_of_the_model_redraws_every_figure(changed):
    W, C = worked(8, 0), cell(6, 3, 9)
    blocks, heatmaps, cube, text = example_views(W, C, 0, changed=changed)
    A = multi_head_attention(*worked_example(0)[:5], 8).A
    assert isinstance(blocks, dict) and isinstance(text, str) and "h = 8 heads" in text
    np.testing.assert_allclose([decode(t["z"]) for t in heatmaps["data"]], A, rtol=1e-6)
    assert heatmaps["layout"]["shapes"] == selection.outlines(Cell(6, 3, 9), 8, 12) != []
    assert set(patch_assignments(cube)) == {("data",)}  # the cube's data: its camera stays
    forms_changed = None if changed is None else [forms.FORMS_GATE if g is WORKED else g for g in changed]
    forms_fig, logits, forms_text = fire(forms.update_forms, W, C, changed=forms_changed)
    assert isinstance(forms_fig, dict) and "rank 1" in forms_text
    assert len(logits["data"]) == 8 and logits["layout"]["shapes"] == heatmaps["layout"]["shapes"]


def test_a_click_on_the_mixing_tab_patches_the_outline_and_the_feature_map_only_for_a_new_query():
    W, C = worked(8, 2), cell(3, 7, 1)
    A = multi_head_attention(*worked_example(2)[:5], 8).A
    single, multi, features = fire(mixing.update_mixing, W, C, {"query": 7}, changed=[mixing.MIXING_CELL])
    assert single is no_update and features is no_update  # the same query: the map stays
    (shape,) = outline_of(multi)
    assert (shape["xref"], shape["x0"] + shape["x1"], shape["y0"] + shape["y1"]) == ("x3", 2, 14)
    single, multi, features = fire(mixing.update_mixing, W, C, {"query": 7},
                                   changed=[mixing.MIXING_CELL, mixing.MIXING_QUERY])
    assert single is no_update and outline_of(multi) == [shape]
    mix = decode(features["data"][0]["z"])
    for c in range(8):  # column c is mixed by head c // (d/h): row 7 of its A
        np.testing.assert_allclose(mix[:, c], A[c, 7], rtol=1e-6)
    # a change of the model redraws both panels, outlined, and the map
    single, multi, features_ = fire(mixing.update_mixing, W, C, {"query": 7}, changed=[mixing.MIXING])
    assert len(single["data"]) == 1 and multi["layout"]["shapes"] == [shape]
    np.testing.assert_allclose([decode(t["z"]) for t in multi["data"]], A, rtol=1e-6)
    np.testing.assert_allclose(decode(features_["data"][0]["z"]), mix)


@pytest.mark.parametrize("query", [12, -1, "7", None, 7.0, True, [7], 10**400], ids=lambda v: repr(v)[:12])
def test_a_forged_query_gets_a_message_in_place_of_the_feature_map(query):
    W, C = worked(8, 2), cell(3, query, 1)
    for changed in ([mixing.MIXING_CELL, mixing.MIXING_QUERY], None):
        _, multi, features = fire(mixing.update_mixing, W, C, {"query": query}, changed=changed)
        assert features["data"] == [] and "not one of the 12" in features["layout"]["annotations"][0]["text"]
        shapes = outline_of(multi) if changed else multi["layout"]["shapes"]
        assert shapes == []


def test_over_http_a_click_answers_with_the_outlines_and_a_change_of_h_with_every_figure():
    """Dash's changedPropIds is what Gate.triggered() reads: through the real endpoint, a click's answers hold
    the outline Patches (and the drill-down, and on the mixing tab the new query's map) and nothing else."""
    client = create_app().server.test_client()
    post = lambda b: client.post("/_dash-update-component", data=json.dumps(b), content_type="application/json")
    answers = {}
    for b in click_on_cell(8, 3, 4, 5, 6) + click_on_cell(8, 3, 4, 5, 6, "mixing"):
        answers.update(post(b).get_json()["response"])
    outlined = {example.HEATMAPS, forms.LOGITS, mixing.MIX_MULTI}
    assert set(answers) == outlined | {drilldown.DRILLDOWN, mixing.FEATURE_MIX}
    for graph in outlined:
        patch = answers[graph]["figure"]
        assert "__dash_patch_update" in patch and [op["location"] for op in patch["operations"]] == [["layout", "shapes"]]
        assert patch["operations"][0]["params"]["value"] == selection.outlines(Cell(4, 5, 6), 8, 12)
    A = multi_head_attention(*worked_example(3)[:5], 8).A
    np.testing.assert_allclose(decode(answers[mixing.FEATURE_MIX]["figure"]["data"][0]["z"])[:, 7], A[7, 5], rtol=1e-6)
    drawn = {}
    for b in change_of_heads(8, 3):
        drawn.update(post(b).get_json()["response"])
    assert {example.BLOCKS, example.HEATMAPS, example.CUBE, example.WORKED_TEXT, forms.FORMS, forms.LOGITS,
            forms.FORMS_TEXT, drilldown.DRILLDOWN} <= set(drawn)
    np.testing.assert_allclose([decode(t["z"]) for t in drawn[example.HEATMAPS]["figure"]["data"]], A, rtol=1e-6)


def test_every_watched_graph_is_a_graph_on_its_tab():
    """A gate that waits for a graph to come near the screen names one that is there: a typo would never draw."""
    from dash import dcc

    from dashboard.explorer.ids import section_id
    from dashboard.explorer import layout as make_layout

    page = make_layout()
    for g in GATES:
        sections = [c for c in page._traverse() if getattr(c, "id", None) in {section_id(t) for t in g.tabs}]
        graphs = {c.id for s in sections for c in s._traverse() if isinstance(c, dcc.Graph)}
        assert set(g.watch) <= graphs, (g.id, g.watch)
    assert sum(bool(g.watch) for g in GATES) >= 10
