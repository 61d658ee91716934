import json

import numpy as np
import pytest
from dash import Input, no_update
from dash.exceptions import PreventUpdate

from dashboard import limits, state
from dashboard.attention import HEAD_CHOICES, multi_head_attention, single_head_mixing, worked_example
from dashboard.explorer import equivariance, example, mixing, selection
from dashboard.figures.example import PLANE
from dashboard.state import Setting
from tests.dash_requests import cell as selected_cell
from tests.dash_requests import STORE, model
from tests.util import decode, fire, patch_assignments

IDENTITY = " ".join(map(str, range(12)))
CELL = selected_cell(1, 0, 1)  # the selected cell: head 1, query 0, key 1
BAD_CONTROLS = ["4", 4.0, 3, 16, -1, True, None, [4], {"h": 4}, 10**30]
BAD_SEEDS = ["0", 0.5, -1, 100, True, None, [0], {"s": 1}, 10**30]

SEED_MODEL = {"size": 4, "scale": "seed", "tau": 0}  # the seed's size (four tokens a cluster) and scale; tau unused


def example_view(h, seed, display=False, focus=0, cell=CELL):
    """The worked example's blocks, heatmaps, cube and sentence as a first draw of the tab (every input fired), at
    the seed's size and scale."""
    shared = {**model(h, seed, **SEED_MODEL), "display": display}
    return (fire(example.update_blocks, shared=shared)["figure"], fire(example.update_heatmaps, shared=shared, cell=cell),
            fire(example.update_cube, shared=shared, focus=focus, near=1)["cube"], fire(example.update_worked_text, shared=shared))


def mixing_view(h, seed, cell=CELL):
    return fire(mixing.update_mixing, shared=model(h, seed, **SEED_MODEL), cell=cell)


def equivariance_view(h, seed, perm, positions, head, display=False):
    return fire(equivariance.update_equivariance, shared={**model(h, seed, **SEED_MODEL), "display": display},
                perm=perm, positions=positions, head=head)


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_example_views_equal_the_core(h):
    blocks, heatmaps, cube, _ = example_view(h, 7)
    A = multi_head_attention(*worked_example(7)[:5], h).A
    for i in range(h):
        np.testing.assert_allclose(decode(heatmaps["data"][i]["z"]), A[i], rtol=1e-6)
    data = patch_assignments(cube)[("data",)]
    planes = [t for t in data if t["type"] == PLANE]
    assert len(planes) == h
    np.testing.assert_allclose(np.stack([decode(p["intensity"])[::4] for p in planes]), A.reshape(h, -1), rtol=1e-6)
    patched = set(patch_assignments(cube))  # the data, and the lecture-size text: the camera is left alone
    assert ("data",) in patched and not [p for p in patched if "camera" in p or p == ("layout",)], patched
    np.testing.assert_allclose(decode(blocks["data"][2]["z"]), multi_head_attention(*worked_example(7)[:5], h).V
                               .transpose(1, 0, 2).reshape(12, 8), rtol=1e-6)


def test_tokens_follow_the_seed_only():
    tokens = fire(example.update_tokens, shared=model(4, 7, **SEED_MODEL))["figure"]
    np.testing.assert_allclose(decode(tokens["data"][-1]["z"]), worked_example(7).X, rtol=1e-6)
    # neither h nor the scale: their own cache answers every h and scale with the same figure
    assert all(fire(example.update_tokens, shared=model(h, 7, size=4, scale=scale))["figure"] is tokens
               for h in HEAD_CHOICES for scale in limits.SCALES)
    for bad in BAD_SEEDS:
        with pytest.raises(PreventUpdate):
            fire(example.update_tokens, shared=model(4, bad, **SEED_MODEL))


def test_cube_focus_from_the_buttons_is_applied_and_checked():
    data = patch_assignments(example_view(4, 0, focus=2)[2])[("data",)]
    assert [t["opacity"] for t in data[:4]] == [0.08, 0.85, 0.08, 0.08]
    for bad in [9, -1, "2", 2.5, None, True, [1]]:
        data = patch_assignments(example_view(4, 0, focus=bad)[2])[("data",)]
        assert all(t["opacity"] == 0.85 for t in data[:4])


@pytest.mark.parametrize("h", BAD_CONTROLS)
def test_bad_heads_get_no_update(h):
    for view in [lambda: example_view(h, 0), lambda: mixing_view(h, 0),
                 lambda: equivariance_view(h, 0, IDENTITY, False, 1)]:
        with pytest.raises(PreventUpdate):
            view()


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_bad_seeds_get_no_update(seed):
    with pytest.raises(PreventUpdate):
        example_view(4, seed)


def test_mixing_shows_the_single_A_and_each_head():
    single, multi, _ = mixing_view(8, 2)
    ex = worked_example(2)
    np.testing.assert_allclose(decode(single["data"][0]["z"]), single_head_mixing(ex.X, ex.W_Q, ex.W_K), rtol=1e-6)
    assert len(multi["data"]) == 8
    assert single["layout"]["coloraxis"]["cmax"] == multi["layout"]["coloraxis"]["cmax"]


def test_equivariance_holds_then_breaks_with_positions():
    perm = "11 10 9 8 7 6 5 4 3 2 1 0"
    inputs, att, verdict, invalid, message = equivariance_view(4, 5, perm, False, 2)
    assert invalid is False and message == ""
    A_PX, PAP = decode(att["data"][0]["z"]), decode(att["data"][1]["z"])
    np.testing.assert_allclose(A_PX, PAP, atol=1e-6)
    np.testing.assert_allclose(decode(inputs["data"][1]["z"]), worked_example(5).X[::-1], rtol=1e-6)
    gap = float(verdict.children[0].children[1].children)
    assert gap < 1e-12 and "holds" in verdict.className

    _, att, verdict, _, _ = equivariance_view(4, 5, perm, True, 2)
    assert float(verdict.children[0].children[1].children) > 1e-3 and "breaks" in verdict.className
    assert np.abs(decode(att["data"][0]["z"]) - decode(att["data"][1]["z"])).max() > 1e-3


@pytest.mark.parametrize("text, fragment", [
    ("0 1 2", "needs 12 numbers, got 3"), ("0 0 1 2 3 4 5 6 7 8 9 10", "repeated: 0"),
    ("1 2 3 4 5 6 7 8 9 10 11 12", "out of range: 12"), ("a b c", "not a token number"),
    ("0 1 2 3 4 5 6 7 8 9 10 -11", "not a token number"), (None, "Type the 12 numbers"), (5, "Type the 12"),
    ("1 " * 500, "Type the 12"), ("0.5 1 2 3 4 5 6 7 8 9 10 11", "not a token number"), ("", "got 0"),
    ("² 0 1 3 4 5 6 7 8 9 10 11", "“²” is not a token number"), ("① 0 1 3 4 5 6 7 8 9 10 11", "“①”"),
    ("¹ 0 2 3 4 5 6 7 8 9 10 11", "“¹”"), ("０ 1 2 3 4 5 6 7 8 9 10 11", "“０”"),  # fullwidth zero
    ("٠ 1 2 3 4 5 6 7 8 9 10 11", "“٠”"), ("० 1 2 3 4 5 6 7 8 9 10 11", "“०”"),  # Arabic-Indic, Devanagari
])
def test_bad_typed_orders_get_a_message(text, fragment):
    out = equivariance_view(2, 0, text, False, 1)
    # the previous order's plots and verdict are cleared, not left standing beside the message
    assert out[0]["data"] == [] == out[1]["data"] and out[2] == "" and out[3] is True
    assert fragment in out[4]


def test_typed_order_accepts_commas_and_spaces():
    perm, message = limits.permutation(" 3,0, 1 2 4;5 6 7 8 9 10 11 ")
    assert message == "" and perm.tolist() == [3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11]


@pytest.mark.parametrize("cached", [example.cube_data, state.model])
def test_caches_keep_the_latest_settings_and_no_more(cached):
    """The settings the controls allow are too many to keep: a cache holds the most recent SETTINGS_CACHED."""
    cached.cache_clear()
    settings = [Setting(h, s) for h in HEAD_CHOICES for s in limits.SEEDS]
    for s in settings:
        cached(s)
    recent = settings[-state.SETTINGS_CACHED:]
    for s in recent:
        cached(s)
    info = cached.cache_info()
    assert info.currsize == state.SETTINGS_CACHED and info.hits == len(recent)


@pytest.mark.parametrize("display, columns", [
    ({"narrow": False}, 4), ({"narrow": True}, 2), ({"narrow": True, "lecture": True}, 2), ({"narrow": "yes"}, 4),
    ({"narrow": 1}, 4), (True, 4), ("narrow", 4), (None, 4), ([True], 4),
])
def test_a_phone_page_gets_two_panels_a_row(display, columns):
    _, heatmaps, _, _ = example_view(8, 0, display)
    assert len({tuple(v["domain"]) for k, v in heatmaps["layout"].items() if k.startswith("xaxis")}) == columns


def test_the_cube_waits_until_it_comes_near_then_draws_with_its_head_buttons():
    """A change of the model computes and draws nothing, and arms the near button (ui.waiting); when it is pressed,
    one answer holds the cube, its head buttons for the new h, and the button disabled. A head button patches a
    drawn cube and leaves a waiting one alone (it draws the head when it comes near)."""
    shared = model(8, 0, **SEED_MODEL)
    far = fire(example.update_cube, STORE["example"], shared=shared, focus=limits.ALL_HEADS, near=None, drawn=True)
    assert all(far[k] is no_update for k in ("cube", "options", "focus")) and far["drawn"] is False
    assert json.loads(far["waits_for"]) == shared
    head = [Input(example.CUBE_FOCUS, "value")]
    assert set(fire(example.update_cube, head, shared=shared, focus=2, drawn=False).values()) == {no_update}
    assert fire(example.update_cube, head, shared=shared, focus=2, drawn=True)["cube"] is not no_update
    near = fire(example.update_cube, shared=shared, focus=7, near=1)
    assert [o["value"] for o in near["options"]] == [limits.ALL_HEADS, *range(1, 9)] and near["drawn"] is True
    assert near["focus"] is no_update  # head 7 exists at h = 8: kept
    fewer = fire(example.update_cube, shared=model(2, 0, **SEED_MODEL), focus=7, near=1)
    assert fewer["focus"] == limits.ALL_HEADS and [o["value"] for o in fewer["options"]] == [limits.ALL_HEADS, 1, 2]
    opacities = [t.get("opacity") for t in fewer["cube"].to_plotly_json()["operations"][0]["params"]["value"]]
    assert len(set(opacities)) == 1  # 'all': no plane brought forward


@pytest.mark.parametrize("click", [None, {}, {"points": []}, {"points": [{"curveNumber": "1", "x": 0, "y": 0}]},
                                   {"points": [{"curveNumber": 0, "x": "a", "y": 0}]},
                                   {"points": [{"curveNumber": 0.5, "x": 0, "y": 0}]},
                                   {"points": [{"curveNumber": 0, "x": float("inf"), "y": 0}]},
                                   {"points": [{"curveNumber": 0, "x": float("nan"), "y": 0}]}, [1], "x"])
def test_a_forged_click_selects_nothing(click):
    with pytest.raises(PreventUpdate):
        selection.clicked_cell(click)


def test_a_click_selects_the_cell_a_cube_corner_rounds_to():
    assert selection.clicked_cell({"points": [{"curveNumber": 2, "x": 4, "y": 7}]}) == (3, 7, 4)
    assert selection.clicked_cell({"points": [{"curveNumber": 0, "x": 4.4, "y": 6.6}]}) == (1, 7, 4)
