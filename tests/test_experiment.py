"""Scale and size: every view follows both, the defaults stay the seed's, and forged values change nothing."""

import json

import numpy as np
import pytest
from dash.exceptions import PreventUpdate

from dashboard import create_app, limits
from dashboard.explorer import drilldown, equivariance, example, forms, mixing
from dashboard.explorer import model_bar as model
from dashboard.state import Setting
from tests.dash_requests import cell, heatmaps_body, setting
from tests.dash_requests import model as store
from tests.seed_reference import seed_multi_head_attention, seed_worked_example
from tests.util import decode, fire

FORGED = [float("nan"), 1e308, -1, "4", [4], {"k": 4}, None, True, 4.0, 10**400, 17, 1, -11, 11, 0.5, "tau "]
DOMAINS = {"size": limits.SIZES, "scale": limits.SCALES, "tau": limits.TAU_STEPS}


def forged(field):
    """The forged values that are not allowed for `field` (-1 is a fine temperature step, say)."""
    return [v for v in FORGED if isinstance(v, bool) or not (isinstance(v, (int, str)) and v in DOMAINS[field])]


def attention(h, seed, per_cluster, scale):
    """The seed's loop on a resized example, with its 1/sqrt(d/h) replaced through the inputs' size:
    scaling X by c scales every logit by c^2."""
    from dashboard.attention import worked_example

    X, *W = worked_example(seed, per_cluster)[:5]
    c = np.sqrt(scale * np.sqrt(8 // h))  # the seed divides by sqrt(d/h); c^2 / sqrt(d/h) = scale
    return seed_multi_head_attention(c * X, *W, h)[1]


@pytest.mark.parametrize("h, size, scale, tau, factor", [
    (4, 4, "none", 0, None), (8, 16, "seed", 0, 1.0), (2, 2, "tau", 10, 0.1), (1, 7, "tau", -10, 10.0),
    (8, 16, "tau", 3, 10 ** -0.3),  # the logits are divided by τ = 10^(step/10): a higher temperature is flatter
])
def test_heatmaps_follow_scale_and_size(h, size, scale, tau, factor):
    W = store(h, 3, size=size, scale=scale, tau=tau)
    heatmaps = fire(example.update_heatmaps, shared=W, cell=cell(1, 0, 1))
    expected_scale = 1.0 if scale == "none" else factor / np.sqrt(8 // h)
    A = attention(h, 3, size, expected_scale)
    assert A.shape == (h, 3 * size, 3 * size)
    np.testing.assert_allclose([decode(t["z"]) for t in heatmaps["data"]], A, rtol=1e-5, atol=1e-7)
    panel = fire(drilldown.update_drilldown, shared=W, cell=cell(h, 3 * size - 1, 0))
    assert f"= {A[h - 1, 3 * size - 1, 0]:.3f}" in panel.children[0].children
    logits = fire(forms.update_forms, shared=W, cell=cell(1, 0, 1))["logits"]
    assert decode(logits["data"][0]["z"]).shape == (3 * size, 3 * size)
    multi = fire(mixing.update_mixing, shared=W, cell=cell(1, 0, 1))[1]
    np.testing.assert_allclose(decode(multi["data"][-1]["z"]), A[-1], rtol=1e-5, atol=1e-7)


def test_defaults_are_the_seeds_numbers_in_every_view():
    X, W_Q, W_K, W_V, W_O = seed_worked_example(0)
    _, A = seed_multi_head_attention(X, W_Q, W_K, W_V, W_O, 4)
    defaults = store(4, 0, size=limits.DEFAULT_SIZE, scale=limits.DEFAULT_SCALE, tau=limits.DEFAULT_TAU_STEP)
    heatmaps = fire(example.update_heatmaps, shared=defaults, cell=cell(1, 0, 1))
    np.testing.assert_allclose([decode(t["z"]) for t in heatmaps["data"]], A, atol=1e-7)
    multi = fire(mixing.update_mixing, shared=defaults, cell=cell(1, 0, 1))[1]
    np.testing.assert_allclose([decode(t["z"]) for t in multi["data"]], A, atol=1e-7)


def test_the_temperature_counts_only_with_its_scale():
    assert Setting.parse(4, 0, 4, "seed", 7) == Setting.parse(4, 0, 4, "seed", 0)  # one cache entry, not 21
    assert Setting.parse(4, 0, 4, "tau", 7).softmax_scale == pytest.approx(10 ** -0.7 / np.sqrt(2))


@pytest.mark.parametrize("field, value", [(f, v) for f in DOMAINS for v in forged(f) + ["SEED", ""]])
def test_forged_scale_and_size_get_no_update(field, value):
    controls_ = {"size": 4, "scale": "tau", "tau": 0, field: value}
    with pytest.raises(PreventUpdate):
        fire(example.update_heatmaps, shared=store(4, 0, **controls_), cell=cell(1, 0, 1))


def test_forged_scale_and_size_over_http_change_nothing():
    client = create_app().server.test_client()
    for field in DOMAINS:
        for value in forged(field):
            b = heatmaps_body(8, 3, **{"size": 4, "scale": "tau", "tau": 0, field: value})
            r = client.post("/_dash-update-component", data=json.dumps(b), content_type="application/json")
            assert r.status_code == 204, (field, value, r.status_code)


def test_a_new_size_resets_the_typed_order_unless_it_fits():
    assert equivariance.follow_size(8, "0 1 2") == limits.identity_order(24)
    fits = " ".join(map(str, reversed(range(24))))
    assert equivariance.follow_size(8, fits) is equivariance.no_update
    with pytest.raises(PreventUpdate):
        equivariance.follow_size(99, "0")


@pytest.mark.parametrize("button", [equivariance.SHUFFLE, equivariance.REVERSE, equivariance.IDENTITY])
def test_shuffle_reverse_and_reset_give_an_order_of_the_n_tokens(button):
    from unittest.mock import patch

    with patch.object(equivariance, "ctx") as ctx:
        ctx.triggered_id = button
        order = equivariance.reorder(1, 1, 1, text="2 0 1 3 4 5", shared=store(4, 0, size=2))
        assert sorted(map(int, order.split())) == list(range(6))
        if button == equivariance.REVERSE:
            assert order == "5 4 3 1 0 2"  # the typed order, reversed
            assert equivariance.reorder(1, 1, 1, text="junk", shared=store(4, 0, size=2)) == "5 4 3 2 1 0"  # else the identity's
        if button == equivariance.IDENTITY:
            assert order == limits.identity_order(6)
        with pytest.raises(PreventUpdate):
            equivariance.reorder(1, 1, 1, text="0", shared=store(4, 0, size=99))


def test_equivariance_holds_at_every_size_and_scale():
    perm = " ".join(map(str, np.random.default_rng(1).permutation(48)))
    _, _, verdict, invalid, _ = equivariance.update_equivariance(
        shared=store(8, 2, size=16, scale="tau", tau=10), perm=perm, positions=False, head=3)
    assert invalid is False and "holds" in verdict.className


def test_the_scale_sentence_explains_flat_and_sharp():
    flat = model.update_scale_text(setting=setting(4, 0, 4, "seed", 0, "random"))
    sharp = model.update_scale_text(setting=setting(4, 0, 4, "tau", -10, "random"))
    assert "flat" in flat and "sharper" in sharp
    A = attention(4, 0, 4, 1 / np.sqrt(2))
    assert f"largest weight is {A.max(axis=-1).mean():.2f}, against 1/12" in flat
