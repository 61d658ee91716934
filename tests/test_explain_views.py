"""The explanation views as a forged request or a student sees them: the drill-down, the outline of the
selected cell, the bilinear forms, the forward pass and the feature map, against independent numbers."""

import re

import numpy as np
import pytest
from dash.exceptions import PreventUpdate

from dashboard.explorer import clinic_controls, controls, drilldown, example, forms, forward, ids, influence, mixing
from dashboard import figures
from dashboard.figures import Display
from dashboard.state import Setting
from dashboard.state import model as core_model
from tests.dash_requests import CLICK, callback_map, cell, model, names, ports, store_of
from tests.seed_reference import seed_multi_head_attention, seed_worked_example
from tests.util import decode, fire, texts

SEED_MODEL = {"size": 4, "scale": "seed", "tau": 0}  # the seed's size (four tokens a cluster) and scale; tau unused


def table_rows(panel, caption_start: str) -> list[list[str]]:
    table = next(c for c in panel._traverse() if getattr(c, "className", "") and "drill-table" in c.className
                 and texts(c.children[0])[0].startswith(caption_start))
    return [[(texts(cell) or [""])[0] for cell in row.children] for row in table.children[2].children]


def test_drilldown_shows_the_seeds_numbers_for_the_chosen_cell():
    h, seed, head, r, j = 4, 9, 3, 5, 10
    X, W_Q, W_K, W_V, W_O = seed_worked_example(seed)
    _, A = seed_multi_head_attention(X, W_Q, W_K, W_V, W_O, h)
    q = X[r] @ W_Q[:, 4:6]  # head 3 of 4: columns 4 and 5
    k = X[j] @ W_K[:, 4:6]
    panel = fire(drilldown.update_drilldown, shared=model(h, seed, **SEED_MODEL), cell=cell(head, r, j))
    coordinates = table_rows(panel, "The logit")
    shown = lambda rows, col: np.array([float(cells[col]) for cells in rows])  # noqa: E731
    display_precision = 5e-4 + 1e-12  # three decimals
    for col, expected in [(1, q), (2, k), (3, q * k)]:
        np.testing.assert_allclose(shown(coordinates, col), expected, atol=display_precision)
    row = table_rows(panel, f"Row {r}")
    np.testing.assert_allclose(shown(row, 2), A[2, r], atol=display_precision)
    np.testing.assert_allclose(shown(row, 1), q @ (X @ W_K[:, 4:6]).T / np.sqrt(2), atol=display_precision)
    summary = texts(panel)[0]
    assert f"The logit B_3(x_{r}, x_{j}) = q·k = {q @ k:+.3f}" in summary and f"= {A[2, r, j]:.3f}" in summary
    assert f"scaled logit {q @ k / np.sqrt(2):+.3f}" in summary
    assert f"A⁽³⁾[{r}, {j}]" in summary


@pytest.mark.parametrize("h", [2, 4, 8])
def test_drilldown_captions_name_the_head_whose_numbers_they_show(h):
    """The coordinates' caption and the influence path's name head i + 1 (i the core's index), the head whose q
    and k the table shows, for every head: the first and the last too."""
    seed, r, j, d_k = 9, 5, 10, 8 // h
    X, W_Q, W_K, *_ = seed_worked_example(seed)
    for i in range(h):
        panel = fire(drilldown.update_drilldown, shared=model(h, seed, **SEED_MODEL), cell=cell(i + 1, r, j))
        captions = [texts(c.children[0])[0] for c in panel._traverse()
                    if getattr(c, "className", "") and "drill-table" in c.className]
        found = [re.search(r"in head (\d+)'s \d+ dimension|through head (\d+):", text) for text in captions]
        shown = [int(m[1] or m[2]) for m in found if m]
        assert shown == [i + 1, i + 1], captions
        block = slice(i * d_k, (i + 1) * d_k)
        coordinates = table_rows(panel, "The logit")
        np.testing.assert_allclose([float(row[1]) for row in coordinates], X[r] @ W_Q[:, block], atol=5e-4 + 1e-12)
        np.testing.assert_allclose([float(row[2]) for row in coordinates], X[j] @ W_K[:, block], atol=5e-4 + 1e-12)


@pytest.mark.parametrize("head, query, key, fragment", [
    (5, 0, 0, "no head 5 with h = 4"), (0, 0, 0, "no head 0"), (1, 12, 0, "numbered 0 to 11"),
    (1, 0, -1, "numbered 0 to 11"), ("1", 0, 0, "Choose a head"), (1.5, 0, 0, "Choose a head"),
    (None, 0, 0, "Choose a head"), (True, 0, 0, "Choose a head"), ([1], 0, 0, "Choose a head"),
    (10**400, 0, 0, "no head"), (1, {"r": 1}, 0, "Choose a head"),
])
def test_a_bad_selection_gets_the_apps_message(head, query, key, fragment):
    panel = fire(drilldown.update_drilldown, shared=model(4, 0, **SEED_MODEL), cell=cell(head, query, key))
    assert panel.role == "alert" and fragment in panel.children


def test_the_selected_cell_is_outlined_on_its_heads_panel():
    fig = fire(example.update_heatmaps, shared=model(8, 0, **SEED_MODEL), cell=cell(6, 3, 9))
    (shape,) = fig["layout"]["shapes"]
    assert (shape["xref"], shape["yref"]) == ("x6", "y6")  # head 6 is panel 6
    assert (shape["x0"] + shape["x1"]) / 2 == 9 and (shape["y0"] + shape["y1"]) / 2 == 3
    cached = example.heatmap_figure(Setting(8, 0), Display())
    assert "shapes" not in cached["layout"]  # the cached figure is left as it was
    no_head_6 = fire(example.update_heatmaps, shared=model(4, 0, **SEED_MODEL), cell=cell(6, 3, 9))
    assert no_head_6["layout"]["shapes"] == []


@pytest.mark.parametrize("h", [1, 2, 4, 8])
def test_bilinear_forms_view_gives_ranks_and_logits(h):
    X, W_Q, W_K, W_V, W_O = seed_worked_example(4)
    drawn = fire(forms.update_forms, shared=model(h, 4, **SEED_MODEL), cell=cell(1, 0, 1))
    forms_fig, logits_fig, text = drawn["forms"], drawn["logits"], drawn["text"]
    d_k = 8 // h
    for i, trace in enumerate(forms_fig["data"]):
        block = slice(i * d_k, (i + 1) * d_k)
        np.testing.assert_allclose(decode(trace["z"]), W_Q[:, block] @ W_K[:, block].T, rtol=1e-5, atol=1e-6)
        assert f"rank {d_k}" in forms_fig["layout"]["annotations"][i]["text"]
        Q_i, K_i = X @ W_Q[:, block], X @ W_K[:, block]
        np.testing.assert_allclose(decode(logits_fig["data"][i]["z"]), Q_i @ K_i.T, rtol=1e-5, atol=1e-6)  # unscaled
    assert f"at most d/h = {d_k}" in text and f"rank {d_k}" in text


def test_forward_pass_view_shows_V_concat_W_O_and_the_output():
    h = 4
    X, W_Q, W_K, W_V, W_O = seed_worked_example(6)
    out, A = seed_multi_head_attention(X, W_Q, W_K, W_V, W_O, h)
    drawn = fire(forward.update_forward, shared=model(h, 6, **SEED_MODEL))
    fig, text = drawn["figure"], drawn["text"]
    V = X @ W_V
    concat = np.concatenate([A[i] @ V[:, 2 * i:2 * i + 2] for i in range(h)], axis=1)
    for trace, expected in zip(fig["data"], [V, concat, W_O, out]):
        np.testing.assert_allclose(decode(trace["z"]), expected, rtol=1e-5, atol=1e-6)
    assert fig["layout"]["yaxis3"]["ticktext"] == [f"head {i}" for i in range(1, 5)]  # W_O's row blocks
    assert "W_O is where they meet" in text
    sizes = [float(part.split(": ")[1]) for part in text.split("term: ")[1].rstrip(".").split(", ")]
    expected = [np.linalg.norm(A[i] @ V[:, 2 * i:2 * i + 2] @ W_O[2 * i:2 * i + 2]) for i in range(h)]
    assert sizes == pytest.approx(np.round(expected, 2), abs=1e-9)


@pytest.mark.parametrize("h", [1, 2, 8])
def test_feature_map_uses_one_row_of_each_head_per_block(h):
    X, W_Q, W_K, W_V, W_O = seed_worked_example(1)
    _, A = seed_multi_head_attention(X, W_Q, W_K, W_V, W_O, h)
    mix = decode(fire(mixing.update_mixing, CLICK, shared=model(h, 1, **SEED_MODEL), cell=cell(1, 7, 0))[2]
                 ["data"][0]["z"])
    for c in range(8):
        np.testing.assert_allclose(mix[:, c], A[c // (8 // h), 7], rtol=1e-6)
    for bad in [12, -1, "7", None, 7.0]:  # a message, no axes (tests/test_controls.py: with a model change too)
        message = fire(mixing.update_mixing, CLICK, shared=model(h, 1, **SEED_MODEL), cell=cell(1, bad, 0))[2]
        assert message["data"] == [] and "not one of the 12 tokens" in message["layout"]["annotations"][0]["text"]


def test_worked_text_follows_h_and_names_the_largest_weight():
    for h in (1, 8):
        _, A = seed_multi_head_attention(*seed_worked_example(0), h)
        text = example.worked_text(Setting(h, 0))
        assert f"d/h = {8 // h} per head" in text and f"= {A.max():.3f}" in text
        # the seed's weights: a flat row, and other weights within 0.02 of the largest (counted here)
        others = int((A >= A.max() - 0.02).sum()) - 1
        assert others >= 1 and f"No weight is clearly the largest: {others} other" in text
        assert "The largest weight is" not in text
    # a low temperature sharpens the rows: one weight beats every other by more than the margin, and is named
    A = core_model(Setting(2, 0, 4, "tau", -10)).result.A
    top, runner = np.sort(A.ravel())[::-1][:2]
    assert top - runner > 0.02
    text = example.worked_text(Setting(2, 0, 4, "tau", -10))
    assert f"The largest weight is {figures.head_label(int(np.unravel_index(A.argmax(), A.shape)[0]))}[" in text
    assert f"= {top:.3f}, more than 0.02 above the next ({runner:.3f})" in text
    assert "h = 1 head " in example.worked_text(Setting(1, 0))
    assert "h = 8 heads" in example.worked_text(Setting(8, 0))


def test_every_selectable_graph_is_wired_to_a_click():
    from dashboard.explorer.wiring import CALLBACKS

    clicked = {deps[1].component_id: tuple(o.component_id for o in deps[0])  # (outputs, the graph's clickData, …)
               for deps, _kwargs, function in CALLBACKS.server if function.__name__ == "pick_cell"}
    explorer = (ids.SEL_HEAD, ids.SEL_QUERY, ids.SEL_KEY)
    clinic = (clinic_controls.CLINIC_HEAD, clinic_controls.CLINIC_QUERY, clinic_controls.CLINIC_KEY)
    assert clicked == {**dict.fromkeys([example.HEATMAPS, example.CUBE, forms.LOGITS, mixing.MIX_MULTI,
                                        influence.INFLUENCE], explorer),
                       # the bug clinic follows its own cell
                       **dict.fromkeys([clinic_controls.CLINIC_HEATMAPS, clinic_controls.CLINIC_BUGGY], clinic)}
    assert controls.CELL["head"].component_id == drilldown.URL_PARAMS[0]["id"]  # the selected head is the URL's
    # every view that reads a cell reads its tab's: the worked example and the mixing tab share the explorer's
    readers = {k: tuple(ports(k)[i][0] for i in names(k)["cell"].values()) for k in callback_map()
               if store_of(k) and "cell" in names(k)}
    assert len(readers) == 7 and set(readers.values()) == {explorer, clinic}
    assert {k for k, cell_ids in readers.items() if cell_ids == explorer} == \
        {k for k in readers if store_of(k) in ("model-example", "model-mixing")}


def test_summary_table_reads_the_heads():
    from dashboard.explorer import summary

    X, *W = seed_worked_example(0)
    _, A = seed_multi_head_attention(X, *W, 4)
    table = summary.update_summary(model(4, 0, **SEED_MODEL))
    caption = texts(table.children[0])[0]
    entropy = [-(A[i] * np.log2(A[i])).sum(-1).mean() for i in range(4)]
    best, runner = np.argsort(entropy)[:2]  # 3.551 and 3.561 bits: within the margin, too close to tell
    assert entropy[runner] - entropy[best] <= 0.05
    close = [k + 1 for k in range(4) if entropy[k] - entropy[best] <= 0.05]  # every head as close as the runner-up
    assert runner + 1 in close and len(close) == 4
    assert caption.startswith(f"No head is clearly the sharpest: heads {', '.join(map(str, close[:-1]))}, and "
                              f"{close[-1]} are within 0.05 bits of the lowest entropy, {entropy[best]:.3f} bits a row")
    rows = [[texts(c)[0] for c in row.children] for row in table.children[2].children]
    assert [float(r[1]) for r in rows] == pytest.approx(np.round(entropy, 2), abs=1e-9)
    assert [float(r[2]) for r in rows] == pytest.approx(np.round(A.max(axis=(1, 2)), 3), abs=1e-9)
    with pytest.raises(PreventUpdate):
        summary.update_summary(model(3, 0, **SEED_MODEL))


def test_the_trained_summary_on_the_page_names_each_head_s_role_from_its_cluster_weights():
    """Issue 36 item 4: for the trained weights the caption says what each head does (own cluster, next cluster,
    mixed), from each head's mean weight on its own and the next cluster, recounted here row by row."""
    from dashboard import trainer
    from dashboard.explorer import summary
    from dashboard.state import model as core_model

    trainer.training_runs(0)
    ex, result = core_model(Setting(4, 0, weights="trained"))
    caption = texts(summary.update_summary(model(4, 0, weights="trained")).children[0])[0]
    cluster, k = ex.cluster, int(ex.cluster.max()) + 1
    own = [np.mean([result.A[i, r, cluster == cluster[r]].sum() for r in range(12)]) for i in range(4)]
    nxt = [np.mean([result.A[i, r, cluster == (cluster[r] + 1) % k].sum() for r in range(12)]) for i in range(4)]
    roles = {"own": [i + 1 for i in range(4) if own[i] > 0.5 and own[i] - max(nxt[i], 1 - own[i] - nxt[i]) > 0.02],
             "next": [i + 1 for i in range(4) if nxt[i] > 0.5 and nxt[i] - max(own[i], 1 - own[i] - nxt[i]) > 0.02]}
    assert roles["own"] and roles["next"]  # the trained example: heads of both kinds
    said = re.search(r"own cluster \(more than half a row's weight on it\): (.*); next cluster: (.*); mixed", caption)
    assert said, caption
    assert [int(h) for h in re.findall(r"\d", said[1])] == roles["own"]
    assert [int(h) for h in re.findall(r"\d", said[2])] == roles["next"]
