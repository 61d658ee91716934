"""The views that follow the clinic's bug (dashboard/explorer/clinic_path.py, clinic.py's outlines and the
export): where the wrong number comes from, the buggy layer's forward pass, and the file a student downloads.
Each number is computed again here from the worked example, one head at a time."""

import csv
import io
import json
from unittest.mock import patch

import numpy as np
import pytest
from dash import Patch, no_update
from dash.exceptions import PreventUpdate

from dashboard import bugs, checks, create_app, figures
from dashboard.attention import worked_example
from dashboard.explorer import clinic, clinic_path, export
from dashboard.explorer.clinic_controls import CLINIC_CELL
from tests.dash_requests import cell, clinic_body, clinic_forward_body, clinic_path_body, layers, model, setting
from tests.test_clinic import CELL, clinic_data, forge
from tests.util import decode, fire, texts

H, N, D = 4, 12, 8
D_K = D // H


def path_data(bug="kq", head=1, query=3, key=1, h=H, mystery=0, causal=False) -> dict:
    """The path's values by name: the clinic's store, its layers and its cell."""
    return {"shared": model(h, 0), "layers": layers(bug, mystery, causal), "cell": cell(head, query, key)}


def path(values: dict):
    return fire(clinic_path.update_path, **values)


def by_head(M: np.ndarray, i: int) -> np.ndarray:
    """Columns i d_k … (i + 1) d_k - 1 of an (n, d) projection: head i's, as the seed splits them."""
    return M[:, i * D_K:(i + 1) * D_K]


def softmax_rows(logits):
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# bug -> (the first number on the path to A^(1)[3, 1] that differs, its value in the correct layer and with the bug),
# from the example's matrices by hand: head 1 is columns 0 and 1
def where_each_bug_enters():
    X, W_Q, W_K, W_V, W_O = worked_example(0)[:5]
    i, r, j = 0, 3, 1
    Q, K = by_head(X @ W_Q, i), by_head(X @ W_K, i)
    A = softmax_rows(Q @ K.T / np.sqrt(D_K))
    concat = np.hstack([softmax_rows(by_head(X @ W_Q, k) @ by_head(X @ W_K, k).T / np.sqrt(D_K)) @ by_head(X @ W_V, k)
                        for k in range(H)])
    causal = np.where(np.tri(N, dtype=bool), Q @ K.T / np.sqrt(D_K), -np.inf)
    return {
        "softmax-axis": ("the weight A⁽¹⁾[3, 1]", A[r, j], np.exp(Q[r] @ K[j] / np.sqrt(D_K))
                         / np.exp(Q @ K[j] / np.sqrt(D_K)).sum()),
        "no-scale": ("the scale", 1 / np.sqrt(D_K), 1.0),
        "scale-d": ("the scale", 1 / np.sqrt(D_K), 1 / np.sqrt(D)),
        "kq": ("the scaled logit [3, 1]", Q[r] @ K[j] / np.sqrt(D_K), K[r] @ Q[j] / np.sqrt(D_K)),
        "reshape": ("q⁽¹⁾_3, query 3 in head 1", Q[r], (X @ W_Q).reshape(H, N, D_K)[i, r]),
        "no-wo": ("output row 3", (concat @ W_O)[r], concat[r]),
        "mask-after": ("the weight A⁽¹⁾[3, 1]", softmax_rows(causal)[r, j], A[r, j]),
    }


def shown(vector) -> str:
    return f"{vector:.3f}" if np.ndim(vector) == 0 else "(" + ", ".join(f"{v:+.3f}" for v in vector) + ")"


def test_a_cell_the_bug_leaves_alone_in_a_layer_it_changes():
    """Another head's output differs, this head's does not: the sentence blames no step after the heads."""
    said = texts(path(path_data("reshape", h=2, causal=True, query=0, key=0)))[0]
    assert "the first number that differs is output row 0" in said
    assert "another head's output, or the step from the concatenation to the output, differs" in said


@pytest.mark.parametrize("key", list(bugs.BUG_NAMES))
def test_the_path_names_the_first_number_each_bug_changes(key):
    name, correct, buggy = where_each_bug_enters()[key]
    panel = path(path_data(key))
    said = texts(panel)[0]
    assert said.startswith(f"On the way to A⁽¹⁾[3, 1] and to output row 3, the first number that differs is {name}: "
                           f"{shown(correct)} in the correct layer, {shown(buggy)} in the layer with the bug.")
    rows = [row for row in panel._traverse() if type(row).__name__ == "Tr"][1:]
    verdicts = [row.children[-1].children for row in rows]
    first = verdicts.index("differs")
    assert verdicts[:first] == ["same"] * first  # every number before it is the same
    assert rows[first].className == "selected" and rows[first].children[0].children == name
    assert rows[0].children[0].children == "q⁽¹⁾_3, query 3 in head 1" and len(rows) == len(checks.PATH_STEPS)


def test_a_cell_the_bug_leaves_alone_and_a_row_that_no_longer_sums_to_1():
    """At h = 1 there are no heads to split; a masked key's weight is 0 in both layers, but the mask applied after
    the softmax leaves row 0 summing to its one kept weight."""
    unchanged = texts(path(path_data("reshape", h=1)))[0]
    assert unchanged.endswith("every number is the same in both layers: in this setting the bug changes nothing at "
                              "all.")
    d_k_1 = path_data("no-scale", h=8, head=8, query=11, key=11)
    here = texts(path(d_k_1))[0]
    assert here.endswith("in this setting the bug changes nothing at all.")
    # K Qᵀ on the diagonal: q_3 · k_3 = k_3 · q_3, but row 3's other logits differ, so its weight does: the sentence
    # says this logit is the same, never that the logits are
    diagonal = texts(path(path_data("kq", query=3, key=3)))[0]
    assert "the first number that differs is the weight A⁽¹⁾[3, 3]" in diagonal
    assert "this logit is the same, but its weight is not" in diagonal and "the logits are the same" not in diagonal
    X, W_Q, W_K = worked_example(0)[:3]
    row_0 = softmax_rows(by_head(X @ W_Q, 0)[:1] @ by_head(X @ W_K, 0).T / np.sqrt(D_K))[0]
    said = texts(path(path_data("mask-after", query=0, key=1)))[0]
    assert f"the first number that differs is row 0 of A⁽¹⁾, summed over the keys: 1.000 in the correct layer, " \
           f"{row_0[0]:.3f} in the layer with the bug" in said


def test_the_path_in_mystery_mode_names_no_bug_and_a_bad_cell_is_a_message():
    mystery = 17
    strings = " ".join(texts(path(path_data(mystery=mystery))))
    assert "in the mystery layer" in strings and bugs.mystery(mystery).name not in strings
    assert texts(path(path_data(head=5))) == [
        "There is no head 5 with h = 4: choose a head 1 to 4."]
    assert "Tokens are numbered 0 to 11" in texts(path(path_data(key=12)))[0]
    for forged in ({"bug": "nope"}, {"mystery": -3}, {"causal": "no"}, {"h": 5}):
        with pytest.raises(PreventUpdate):
            path(forge(path_data(), forged))


def test_the_heatmaps_outline_the_followed_cell_and_a_click_moves_only_the_outlines():
    right, wrong, *_ = fire(clinic.update_clinic, **clinic_data(), cell=CELL)
    assert right["layout"]["shapes"] == wrong["layout"]["shapes"] == [figures.cell_outline(0, 3, 1)]
    moved = fire(clinic.update_clinic, [CLINIC_CELL], **clinic_data(), cell=cell(2, 5, 0))
    assert all(isinstance(p, Patch) for p in moved[:2]) and moved[2:] == (no_update, no_update)
    assert [p.to_plotly_json()["operations"][0]["params"]["value"] for p in moved[:2]] == \
        [[figures.cell_outline(1, 5, 0)]] * 2


@pytest.mark.parametrize("key", ["reshape", "no-wo"])
def test_the_forward_pass_is_the_buggy_layers(key):
    figure = fire(clinic_path.update_forward, shared=model(H, 0), layers=layers(key))
    V, concat, W_O, output = (decode(t["z"]) for t in figure["data"])
    X, W_Q, W_K, W_V, W_O_given = worked_example(0)[:5]
    layer = bugs.layer(X, W_Q, W_K, W_V, W_O_given, H, bugs.BUGS_BY_KEY[key])
    np.testing.assert_allclose(W_O, W_O_given, rtol=1e-6)
    np.testing.assert_allclose(concat, layer.concat, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(output, concat if key == "no-wo" else concat @ W_O_given, rtol=1e-5, atol=1e-6)
    # V as the heads read it: the reshape bug's head i reads a run of the flat array, not X W_V's columns
    as_read = (X @ W_V).reshape(H, N, D_K) if key == "reshape" else (X @ W_V).reshape(N, H, D_K).swapaxes(0, 1)
    np.testing.assert_allclose(V, as_read.swapaxes(0, 1).reshape(N, D), rtol=1e-5, atol=1e-7)
    assert figure["layout"]["annotations"][0]["text"] == "<b>V, as the heads read it</b>"


def download(kind="json", tab="clinic", **clinic_controls):
    button = export.DOWNLOAD_CSV if kind == "csv" else export.DOWNLOAD_JSON
    with patch.object(export, "ctx") as ctx:
        ctx.triggered_id = button
        return export.download(json_clicks=1, csv_clicks=1, setting=setting(H, 0), cell=[1, 3, 1], tab=tab,
                               layers=layers(**clinic_controls))


def test_the_export_holds_both_layers_on_the_clinic_tab():
    sent = download(bug="mask-after")
    assert sent["filename"] == "attention-random-h4-seed0-n12-seed-mask-after.json"
    clinic_state = json.loads(sent["content"])["clinic"]
    X, *W = worked_example(0)[:5]
    wrong, right = bugs.layer(X, *W, H, bugs.BUGS_BY_KEY["mask-after"]), bugs.layer(X, *W, H, causal=True)
    assert (clinic_state["bug"], clinic_state["mystery"], clinic_state["causal"]) == ("mask-after", 0, True)
    for layer, expected in (("with_bug", wrong), ("correct", right)):
        np.testing.assert_array_equal(clinic_state[layer]["attention"], expected.A)  # to the last bit
        np.testing.assert_array_equal(clinic_state[layer]["output"], expected.output)
    mystery = json.loads(download(bug="kq", mystery=17)["content"])["clinic"]
    assert mystery["bug"] is None and mystery["mystery"] == 17  # the file does not name the mystery's bug
    np.testing.assert_array_equal(mystery["with_bug"]["attention"], bugs.layer(X, *W, H, bugs.mystery(17)).A)
    assert download(bug="kq", mystery=17)["filename"].endswith("-mystery17.json")
    rows = list(csv.DictReader(io.StringIO(download("csv", bug="kq")["content"])))
    A = np.zeros((H, N, N))
    for row in rows:
        if row["matrix"] == "clinic_bug_attention":
            A[int(row["head"]) - 1, int(row["row"]), int(row["column"])] = float(row["value"])
    np.testing.assert_array_equal(A, bugs.layer(X, *W, H, bugs.BUGS_BY_KEY["kq"]).A)
    assert sum(row["matrix"].startswith("clinic_") for row in rows) == 2 * (H * N * N + N * D)
    assert "clinic" not in json.loads(download(tab="example", bug="kq")["content"])  # other tabs: the model only
    for forged in ({"bug": "nope"}, {"mystery": 10**6}, {"causal": "1"}):
        with pytest.raises(PreventUpdate):
            download(**{"bug": "kq", **forged})


def test_over_http_the_requests_are_answered_and_forged_ones_get_a_204():
    client = create_app().server.test_client()
    post = lambda b: client.post("/_dash-update-component", data=json.dumps(b), content_type="application/json")
    for b in (clinic_path_body(h=8, seed=3, bug="kq"),
              clinic_path_body(h=1, seed=0, mystery=5, causal=True, selected=(1, 0, 0)),
              clinic_forward_body(h=2, seed=1, bug="no-wo"),
              clinic_body([CLINIC_CELL], h=4, seed=0, bug="kq", selected=(2, 1, 1))):
        assert post(b).status_code == 200
    for b in (clinic_path_body(bug="nope"), clinic_forward_body(mystery="5"), clinic_path_body(causal=None)):
        assert post(b).status_code == 204
    said = post(clinic_path_body(selected=("1", 0, 1))).get_json()["response"][clinic_path.CLINIC_PATH]["children"]
    assert said["props"]["role"] == "alert"  # a cell the boxes cannot send is a message, never a 500
