"""The influence view as a forged request or a student sees it (dashboard/explorer/influence.py): every figure,
table and sentence against numbers computed here with loops and finite differences, never with explain.py."""

import csv
import io
import json
import re
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from dash import Patch
from dash.exceptions import PreventUpdate

from dashboard import create_app, explain, figures, margins, trainer
from dashboard.explorer import drilldown, export, influence
from dashboard.explorer.influence_tables import disagreement_text
from dashboard.state import Setting, model
from tests.dash_requests import CLICK, cell, default_values, key_of, layers, request, setting
from tests.dash_requests import model as store
from tests.seed_reference import seed_multi_head_attention, seed_worked_example
from tests.test_explain_views import table_rows, texts
from tests.test_controls import forged_stores
from tests.test_influence import finite_difference_gradient_times_input, hand_picked, loop_layer
from tests.util import decode, fire, patch_assignments

SEED_MODEL = {"size": 4, "scale": "seed", "tau": 0}
F4 = {"rtol": 1e-5, "atol": 1e-6}  # the figures travel as float32


def draw(h, seed, selected, changed=None, **model_controls):
    """The influence figures, sentence and table for the worked example's store and the selected cell."""
    drawn = fire(influence.update_influence, changed, shared=store(h, seed, **{**SEED_MODEL, **model_controls}),
                 cell=cell(*selected))
    return drawn["per_head"], drawn["layer"], drawn["text"], drawn["table"]


def counted_rank(x):
    return np.array([1 + sum(y > v for y in x) for v in x])


@pytest.mark.parametrize("h", [1, 4, 8])
def test_the_figures_hold_each_measure_and_outline_the_cell(h):
    X, *W = seed_worked_example(6)
    _, A = seed_multi_head_attention(X, *W, h)
    out, values = loop_layer(X, W, h)
    per_head, layer, _, _ = draw(h, 6, (h, 5, 9))
    sizes = np.linalg.norm(values, axis=-1)  # (h, n)
    for i, trace in enumerate(per_head["data"]):
        np.testing.assert_allclose(decode(trace["z"]), A[i] * sizes[i][None, :], **F4)
    N = np.array([[np.linalg.norm(sum(A[i, r, j] * values[i, j] for i in range(h))) for j in range(12)]
                  for r in range(12)])
    left_out = np.array([np.linalg.norm(loop_layer(X, W, h, drop=j)[0] - out, axis=1) for j in range(12)]).T
    grad = np.linalg.norm(finite_difference_gradient_times_input(X, W, h, 1 / np.sqrt(8 // h)), axis=-1)
    for trace, expected in zip(layer["data"], [N, left_out, grad]):
        np.testing.assert_allclose(decode(trace["z"]), expected, **F4)
    assert [(s["xref"], s["x0"] + s["x1"], s["y0"] + s["y1"]) for s in per_head["layout"]["shapes"]] == \
        [(f"x{h}" if h > 1 else "x", 18, 10)]  # head h's panel, key 9, query 5
    assert [(s["xref"], s["x0"] + s["x1"], s["y0"] + s["y1"]) for s in layer["layout"]["shapes"]] == \
        [("x", 18, 10), ("x2", 18, 10), ("x3", 18, 10)]
    cached = influence.influence_figures(Setting(h, 6), figures.Display())
    assert "shapes" not in cached[0]["layout"] and "shapes" not in cached[1]["layout"]  # the cache stays clean


SENTENCE = re.compile(
    r"In head (?P<head>\d+), for query (?P<query>\d+), among the keys that carry at least 5% of the row's influence, "
    r"key (?P<j>\d+) moves most: (?:rank (?P<w>\d+)|ranks (?P<w_best>\d+) to (?P<w_worst>\d+)) of (?P<n>\d+) by "
    r"weight \(A\S+\[\d+, \d+\] = (?P<weight>[\d.]+)\)(?:, too close to tell)? but (?:rank (?P<i>\d+)|ranks "
    r"(?P<i_best>\d+) to (?P<i_worst>\d+)) by influence \(N\S+\[\d+, \d+\] = [\d.]+ × (?P<size>[\d.]+) = "
    r"(?P<N>[\d.]+)\)(?:, too close to tell)?\. Its value through W_O is (?P<way>short|long), ‖v\S+ W_O\S+‖ = "
    r"(?P<size2>[\d.]+), and (?:each of the (?P<count>\d+) keys (?:that pass it|it passes) has a (?:longer|shorter) "
    r"one \((?P<low>[\d.]+) to (?P<high>[\d.]+)\)|the one key (?:that passes it|it passes), key \d+, has a "
    r"(?:longer|shorter) one \((?P<other>[\d.]+)\))\. Spearman's ρ between the two rankings: (?P<rho>[+-][\d.]+); "
    r"(?:the top keys (?P<top>match|differ)|the top key by weight or by influence is too close to the next to tell)")


def said_ranks(g: dict, one: str) -> tuple[int, int]:
    """The ranks a sentence gives: (k, k) for "rank k", (best, worst) for "ranks best to worst"."""
    return (int(g[one]),) * 2 if g[one] else (int(g[f"{one}_best"]), int(g[f"{one}_worst"]))


def rank_range(x, j, margin) -> tuple[int, int]:
    """The ranks x[j] could hold with the values within `margin` of it too close to tell (1 the largest)."""
    return 1 + int((x > x[j] + margin).sum()), int((x >= x[j] - margin).sum())


@pytest.fixture(scope="module")
def trained():
    trainer.training_runs(0)  # the worked example's trained layer is training seed 0's


# the first four: the key that changes rank most does so within the margins (its ranges of ranks overlap); the
# others: past them, short and long values, one key or several passing it
@pytest.mark.parametrize("h, seed, head, query, weights, moves", [
    (4, 2, 3, 7, "random", False), (8, 0, 6, 3, "random", False), (2, 5, 1, 0, "random", False),
    (4, 0, 2, 5, "trained", False), (2, 0, 1, 0, "trained", True), (2, 2, 2, 2, "trained", True),
    (2, 0, 1, 8, "random", True), (2, 8, 2, 3, "random", True)])
def test_the_sentence_names_the_key_that_moves_most_and_why(trained, h, seed, head, query, weights, moves):
    ex = model(Setting(h, seed, weights=weights)).example
    W = [ex.W_Q, ex.W_K, ex.W_V, ex.W_O]
    _, A = seed_multi_head_attention(ex.X, *W, h)
    sizes = np.linalg.norm(loop_layer(ex.X, W, h)[1][head - 1], axis=-1)  # (n,): ||v_j W_O^(i)||
    a = A[head - 1, query]
    N = a * sizes
    ra, rn = counted_rank(a), counted_rank(N)
    move = np.abs(rn - ra) * (N >= 0.05 * N.sum())  # among the keys carrying 5% of the row's influence
    j = int(np.flatnonzero(move == move.max())[0])
    assert move[j] > 0  # the case: a key that matters moves
    _, _, text, _ = draw(h, seed, (head, query, 0), weights=weights)
    (w_best, w_worst), (i_best, i_worst) = rank_range(a, j, margins.WEIGHT), rank_range(N, j, margins.SHARE * N.sum())
    assert (w_best <= i_worst and i_best <= w_worst) != moves
    _, _, _, table = draw(h, seed, (head, query, 0), weights=weights)
    ranking = next(t for t in (table if isinstance(table, list) else [table])
                   if "influence-ranking" in (getattr(t, "className", None) or ""))
    [body] = [part for part in ranking.children if type(part).__name__ == "Tbody"]
    marked = [k for k, row in enumerate(body.children) if "(moves most)" in str(row)]
    assert marked == ([j] if moves else [])  # the table marks a move exactly when the sentence claims one
    if not moves:  # within the margins it may keep its rank (its ranges overlap): no move is claimed
        assert f"key {j} changes rank most, but its ranks by weight and by influence overlap within the margins" in text
        assert "moves most" not in text and "Its value through W_O" not in text, text
        return
    found = SENTENCE.search(text)
    assert found, text
    g = found.groupdict()
    assert (int(g["head"]), int(g["query"]), int(g["j"]), int(g["n"])) == (head, query, j, 12)
    # each rank as a number only past its margin; within it, the ranks the key could hold, too close to tell
    assert said_ranks(g, "w") == rank_range(a, j, margins.WEIGHT)
    assert said_ranks(g, "i") == rank_range(N, j, margins.SHARE * N.sum())
    ranges = [said_ranks(g, "w"), said_ranks(g, "i")]
    assert text.count("too close to tell") == sum(best != worst for best, worst in ranges)
    assert (float(g["weight"]), float(g["size"]), float(g["N"]), float(g["size2"])) == \
        (round(a[j], 3), round(sizes[j], 3), round(N[j], 3), round(sizes[j], 3))
    down = rn[j] > ra[j]
    assert g["way"] == ("short" if down else "long")
    if down:  # the keys that pass it: not above it by weight, above it by influence
        passing = [k for k in range(12) if a[k] <= a[j] and N[k] > N[j]]
    else:  # the keys it passes
        passing = [k for k in range(12) if a[k] > a[j] and N[k] <= N[j]]
    shown = [float(g["other"])] * 2 if g["count"] is None else [float(g["low"]), float(g["high"])]
    assert shown == [round(min(sizes[passing]), 3), round(max(sizes[passing]), 3)]
    assert len(passing) == (1 if g["count"] is None else int(g["count"]))
    assert all(sizes[k] > sizes[j] if down else sizes[k] < sizes[j] for k in passing)  # the why
    assert len(set(a)) == len(set(N)) == 12  # no ties: the textbook formula for rho holds
    assert float(g["rho"]) == round(1 - 6 * ((ra - rn) ** 2).sum() / (12 * 143), 2)
    clear = margins.compare(a, margins.WEIGHT).clear and margins.compare(N, margins.SHARE * N.sum()).clear
    assert g["top"] == (None if not clear else "match" if np.argmax(a) == np.argmax(N) else "differ")


def test_the_hand_picked_sentence():
    X, W, result = hand_picked()
    text = disagreement_text(explain.query_ranking(result, explain.influence(result, W[3]), 0, 0))
    assert text == ("In head 1, for query 0, among the keys that carry at least 5% of the row's influence, key 0 "
                    "moves most: rank 1 of 4 by weight (A⁽¹⁾[0, 0] = 0.774) but ranks 3 to 4 by "
                    "influence (N⁽¹⁾[0, 0] = 0.774 × 0.050 = 0.039), too close to tell. Its value through W_O is "
                    "short, "
                    "‖v⁽¹⁾_0 W_O⁽¹⁾‖ = 0.050, and each of the 2 keys that pass it has a longer one (1.000 to 1.200). "
                    "Spearman's ρ between the two rankings: +0.20; the top key by weight or by influence is too close "
                    "to the next to tell.")  # keys 2 and 1 by influence: 0.097 and 0.093, within 5% of the row (0.013)


def test_the_ranking_table_lists_every_key_under_every_measure():
    h, seed, head, query, key = 4, 8, 2, 6, 3
    X, *W = seed_worked_example(seed)
    _, A = seed_multi_head_attention(X, *W, h)
    out, values = loop_layer(X, W, h)
    _, _, _, (table, _agreement) = draw(h, seed, (head, query, key))
    rows = [[texts(c)[0] if texts(c) else "" for c in row.children] for row in table.children[2].children]
    value = lambda text: float(text.split(" (")[0])  # noqa: E731
    rank_of = lambda text: int(text.split("(")[1].rstrip(")"))  # noqa: E731
    sizes = np.linalg.norm(values[head - 1], axis=-1)
    a, mean = A[head - 1, query], A[:, query].mean(0)
    N_layer = [np.linalg.norm(sum(A[i, query, j] * values[i, j] for i in range(h))) for j in range(12)]
    left_out = [np.linalg.norm(loop_layer(X, W, h, drop=j)[0][query] - out[query]) for j in range(12)]
    for j, row in enumerate(rows):
        assert row[0] == str(j)
        for shown, expected in [(row[1], a), (row[2], a * sizes), (row[4], mean), (row[5], N_layer),
                                (row[6], left_out)]:
            assert value(shown) == pytest.approx(expected[j], abs=5e-4 + 1e-12)
            assert rank_of(shown) == counted_rank(np.asarray(expected))[j]
        assert float(row[3]) == pytest.approx(sizes[j], abs=5e-4 + 1e-12)
    assert "selected" in (table.children[2].children[key].className or "")
    foot = [[texts(c)[0] if texts(c) else "" for c in row.children] for row in table.children[3].children]
    ra, rn = counted_rank(a), counted_rank(a * sizes)
    assert float(foot[0][2]) == round(1 - 6 * ((ra - rn) ** 2).sum() / (12 * 143), 2)
    assert foot[1][2] == ("yes" if np.argmax(a) == np.argmax(a * sizes) else "no")


def test_a_click_patches_the_outlines_and_ranks_the_new_query():
    per_head, layer, text, table = draw(8, 0, (6, 3, 9), changed=CLICK)
    assert isinstance(per_head, Patch) and isinstance(layer, Patch)
    (shapes,) = patch_assignments(per_head).values()
    assert [(s["xref"], s["x0"] + s["x1"], s["y0"] + s["y1"]) for s in shapes] == [("x6", 18, 6)]
    assert list(patch_assignments(layer)) == [("layout", "shapes")] and len(patch_assignments(layer)[
        ("layout", "shapes")]) == 3
    assert text.startswith("In head 6, for query 3") and len(table[0].children[2].children) == 12


@pytest.mark.parametrize("selected, fragment", [((5, 0, 0), "no head 5 with h = 4"), ((1, 12, 0), "numbered 0 to 11"),
                                                (("1", 0, 0), "Choose a head"), ((1, 0, None), "Choose a head"),
                                                ((1, 0.5, 1), "Choose a head"), ((True, 0, 0), "Choose a head")])
def test_a_selection_outside_the_cube_gets_the_apps_message(selected, fragment):
    for changed in (None, CLICK):
        per_head, layer, text, table = draw(4, 0, selected, changed=changed)
        assert fragment in text and table.role == "alert"
        shapes = patch_assignments(per_head)[("layout", "shapes")] if changed else per_head["layout"]["shapes"]
        assert shapes == [] and (patch_assignments(layer)[("layout", "shapes")] if changed else
                                 layer["layout"]["shapes"]) == []


def test_a_forged_store_gets_no_update_and_over_http_a_204():
    client = create_app().server.test_client()
    post = lambda b: client.post("/_dash-update-component", data=json.dumps(b), content_type="application/json")  # noqa
    tried = 0
    for fn in (influence.update_influence, influence.update_heads):
        key = key_of(f"{influence.INFLUENCE if fn is influence.update_influence else influence.HEAD_EFFECTS}.figure")
        assert post(request(key)).status_code == 200  # the page's own values are drawn
        for data in forged_stores(store()):
            with pytest.raises(PreventUpdate):
                fire(fn, **{**default_values(key), "shared": data})
            assert post(request(key, {**default_values(key), "shared": data})).status_code == 204
            tried += 1
    assert tried >= 30

def english_list(items) -> str:
    """A list as English joins one (CLDR's, with the serial comma): "1", "1 and 2", "1, 2, and 4"."""
    items = [str(x) for x in items]
    return items[0] if len(items) == 1 else " and ".join(items) if len(items) == 2 else \
        ", ".join(items[:-1]) + ", and " + items[-1]


def close_to_best(x, margin, lower_is_better=False):
    """The indices within `margin` of the best (the best included), computed here rather than by margins.compare."""
    best = x.min() if lower_is_better else x.max()
    return [k for k in range(len(x)) if abs(x[k] - best) <= margin]


def heads_said(heads) -> str:
    return ("head " if len(heads) == 1 else "heads ") + english_list(heads)


@pytest.mark.parametrize("h, seed", [(2, 3), (4, 3), (8, 5)])
def test_heads_within_the_margin_are_named_together_never_a_sharpest(h, seed):
    """Entropies within margins.BITS of the lowest are one claim: "No head is clearly the sharpest: heads 1, 2,
    and 4 carry …", as the summary beside the heatmaps says, never "Head 1 is the sharpest" beside it."""
    X, *W = seed_worked_example(seed)
    out, A = seed_multi_head_attention(X, *W, h)
    entropy = np.array([np.mean([-sum(p * np.log2(p) for p in row) for row in A[i]]) for i in range(h)])
    close = close_to_best(entropy, margins.BITS, lower_is_better=True)
    assert len(close) > 1  # the case: too close to tell
    text = fire(influence.update_heads, shared=store(h, seed, **SEED_MODEL))["text"]
    assert text.startswith(f"No head is clearly the sharpest: {heads_said([k + 1 for k in close])} carry "
                           f"{english_list(f'{entropy[k]:.2f}' for k in close)} bits a row, within {margins.BITS} bits "
                           "of each other."), text
    assert "Head" not in text.split(".")[0]


@pytest.mark.parametrize("h", [1, 2, 8])
def test_the_heads_view_puts_each_heads_effect_beside_its_entropy(h):
    X, *W = seed_worked_example(4)
    out, A = seed_multi_head_attention(X, *W, h)
    _, values = loop_layer(X, W, h)
    drawn = fire(influence.update_heads, shared=store(h, 4, **SEED_MODEL))
    fig, text, table = drawn["figure"], drawn["text"], drawn["table"]
    d_k = 8 // h
    total = np.array([[sum(A[i, r, j] * np.linalg.norm(values[i, j]) for j in range(12)) for r in range(12)]
                      for i in range(h)])
    off = np.zeros((h, 12))
    for i in range(h):
        W_O = W[3].copy()
        W_O[i * d_k:(i + 1) * d_k] = 0
        off[i] = np.linalg.norm(seed_multi_head_attention(X, *W[:3], W_O, h)[0] - out, axis=1)
    np.testing.assert_allclose(decode(fig["data"][0]["z"]), total, **F4)
    np.testing.assert_allclose(decode(fig["data"][1]["z"]), off, **F4)
    entropy = np.array([np.mean([-sum(p * np.log2(p) for p in row) for row in A[i]]) for i in range(h)])
    means = off.mean(1)
    if h == 1:
        assert f"an output moves by {means[0]:.3f} on average" in text and f"{entropy[0]:.2f} bits" in text
    else:  # the sharpest and the head that matters most, each named only past its margin
        sharp = close_to_best(entropy, margins.BITS, lower_is_better=True)
        most = close_to_best(means, margins.SHARE * means.max())
        s, m = int(np.argmin(entropy)), int(np.argmax(means))
        if len(sharp) == 1:
            assert text.startswith(f"Head {s + 1} is the sharpest ({entropy[s]:.2f} bits a row); switching it off "
                                   f"moves an output by {means[s]:.3f} on average."), text
        else:
            assert text.startswith(f"No head is clearly the sharpest: {heads_said([k + 1 for k in sharp])} carry ")
        if len(most) > 1:
            assert (f"No head clearly matters most: switching off {heads_said([k + 1 for k in most])} moves an output "
                    f"by {english_list(f'{means[k]:.3f}' for k in most)} on average, within 5% of the largest.") in text
        elif len(sharp) == 1 and m == s:
            assert "Here the sharpest head is also the one that matters most" in text
        else:
            assert f"Head {m + 1} matters most ({means[m]:.3f} on average, with {entropy[m]:.2f} bits a row)" in text
        assert " largest change" not in text and not re.search(r"\d(st|nd|rd|th)\b", text)  # no ordinal claims
    rows = [[texts(c)[0] for c in row.children] for row in table.children[2].children]
    assert [float(r[1]) for r in rows] == pytest.approx(np.round(entropy, 2), abs=1e-9)
    assert [float(r[2]) for r in rows] == pytest.approx(np.round(total.mean(1), 3), abs=1e-9)
    assert [float(r[3]) for r in rows] == pytest.approx(np.round(means, 3), abs=1e-9)


def test_the_drilldown_shows_the_path_from_weight_to_influence():
    h, seed, head, r, j = 4, 9, 3, 5, 10
    X, *W = seed_worked_example(seed)
    _, A = seed_multi_head_attention(X, *W, h)
    v = X[j] @ W[2][:, 4:6]  # head 3 of 4: columns 4 and 5
    f = v @ W[3][4:6]  # the rows of W_O that read head 3
    panel = fire(drilldown.update_drilldown, shared=store(h, seed, **SEED_MODEL), cell=cell(head, r, j))
    rows = table_rows(panel, "What key")
    assert [row[0] for row in rows] == ["weight", "value", "into the output", "its length", "influence"]
    cells = {row[0]: row[2] for row in rows}
    assert cells["weight"] == f"{A[2, r, j]:.3f}" and cells["its length"] == f"{np.linalg.norm(f):.3f}"
    assert cells["value"] == "(" + ", ".join(f"{x:+.3f}" for x in v) + ")"
    assert cells["influence"] == f"{A[2, r, j]:.3f} × {np.linalg.norm(f):.3f} = {A[2, r, j] * np.linalg.norm(f):.3f}"
    N_row = A[2, r] * np.linalg.norm(X @ W[2][:, 4:6] @ W[3][4:6], axis=1)
    assert rows[4][3] == rank_said(N_row, j, margins.SHARE * N_row.sum())
    assert rows[0][3] == rank_said(A[2, r], j, margins.WEIGHT)
    assert rows[1][0] == "value"  # the value vector's row (a message context: 值 in Chinese, not 数值)
    assert texts(panel)[0].startswith(f"The logit B_3(x_{r}, x_{j}) = q·k = ")  # the weight's own explanation first


def rank_said(x, j, margin) -> str:
    """A rank only when no other key is within the margin; else the ranks it could hold, too close to tell."""
    best, worst = 1 + int((x > x[j] + margin).sum()), int((x >= x[j] - margin).sum())
    return f"rank {best} of {len(x)}" if best == worst else f"ranks {best} to {worst} of {len(x)}, too close to tell"


@pytest.mark.parametrize("lang, step", [("en", "value"), ("zh-CN", "值"), ("es", "valor")])
def test_the_value_vectors_row_says_value_in_the_vector_sense(lang, step):
    """"value" means a value vector there, not a number: a message context (pgettext), 值 in Chinese, while the
    column of numbers beside it keeps 数值."""
    from dashboard import i18n
    with i18n.use(lang):
        panel = fire(drilldown.update_drilldown, shared=store(4, 9, **SEED_MODEL), cell=cell(3, 5, 10))
        number = i18n._("value")
        caption = i18n._("What key {j} adds to output {r} through head {head}: {formula}").split("{")[0]
    rows = table_rows(panel, caption)
    assert rows[1][0] == step
    assert lang != "zh-CN" or number == "数值"  # the number's column header keeps the other sense


def download(kind, head=None, query=None, key=None, h=4, seed=3):
    with patch.object(export, "ctx") as ctx:
        ctx.triggered_id = export.DOWNLOAD_CSV if kind == "csv" else export.DOWNLOAD_JSON
        return export.download(json_clicks=1, csv_clicks=1, setting=setting(h, seed), cell=[head, query, key],
                               tab="example", layers=layers())["content"]


def test_export_carries_the_influence_and_the_selection():
    X, *W = seed_worked_example(3)
    _, A = seed_multi_head_attention(X, *W, 4)
    out, values = loop_layer(X, W, 4)
    state = json.loads(download("json", 2, 7, 1))
    assert state["selection"] == {"head": 2, "query": 7, "key": 1}
    np.testing.assert_allclose(state["influence_per_head"], A * np.linalg.norm(values, axis=-1)[:, None, :], atol=1e-12)
    left_out = np.array([np.linalg.norm(loop_layer(X, W, 4, drop=j)[0] - out, axis=1) for j in range(12)]).T
    np.testing.assert_allclose(state["leave_one_out"], left_out, atol=1e-12)
    m = influence.measures(Setting(4, 3))
    for name, exact in [("influence", m.layer), ("gradient_x_input", m.grad_input), ("value_size", m.value_size)]:
        np.testing.assert_array_equal(np.array(state[name]), exact)  # to the last bit
    assert np.array(state["head_switched_off"]).shape == np.array(state["head_total_influence"]).shape == (4, 12)
    assert {"X", "W_O", "attention", "output", "h", "seed"} <= set(state)  # the existing keys stay
    assert json.loads(download("json", 5, 0, 0))["selection"] is None  # no head 5 with h = 4
    rows = list(csv.DictReader(io.StringIO(download("csv", 2, 7, 1))))
    kinds = {name: [r for r in rows if r["matrix"] == name] for name in {r["matrix"] for r in rows}}
    assert len(kinds["influence_per_head"]) == 4 * 144 and len(kinds["gradient_x_input"]) == 144
    assert len(kinds["value_size"]) == len(kinds["head_switched_off"]) == 4 * 12
    grad = np.zeros((12, 12))
    for r in kinds["gradient_x_input"]:
        grad[int(r["row"]), int(r["column"])] = float(r["value"])
    np.testing.assert_array_equal(grad, m.grad_input)
    assert [(r["head"], r["row"], r["column"]) for r in kinds["selection"]] == [("2", "7", "1")]


def test_the_csv_numbers_each_heads_rows_from_1_as_the_json_holds_them():
    """Every head-indexed influence array in the CSV, put back by head - 1, is the JSON's to the last bit, and head
    i's influence (i from 0) is A^(i) times its value lengths, computed here: heads 1 to h, none more."""
    X, *W = seed_worked_example(3)
    _, A = seed_multi_head_attention(X, *W, 4)
    values = loop_layer(X, W, 4)[1]
    state = json.loads(download("json", 2, 7, 1))
    rows = list(csv.DictReader(io.StringIO(download("csv", 2, 7, 1))))
    where = {"influence_per_head": lambda r: (int(r["row"]), int(r["column"])),
             "value_size": lambda r: (int(r["column"]),), "head_total_influence": lambda r: (int(r["row"]),),
             "head_switched_off": lambda r: (int(r["row"]),)}
    rebuilt = {name: np.full(np.shape(state[name]), np.nan) for name in where}
    for name, at in where.items():
        heads = set()
        for r in (r for r in rows if r["matrix"] == name):
            heads.add(int(r["head"]))
            rebuilt[name][(int(r["head"]) - 1, *at(r))] = float(r["value"])
        assert heads == {1, 2, 3, 4}, name
        np.testing.assert_array_equal(rebuilt[name], np.array(state[name]), err_msg=name)
    np.testing.assert_allclose(rebuilt["influence_per_head"], A * np.linalg.norm(values, axis=-1)[:, None, :],
                               atol=1e-12)


def test_no_module_of_the_dashboard_is_over_350_lines():
    root = Path(__file__).resolve().parents[1] / "dashboard"
    long = {str(p.relative_to(root)): n for p in root.rglob("*.py") if (n := len(p.read_text().splitlines())) > 350}
    assert long == {}
