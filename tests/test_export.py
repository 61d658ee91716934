"""Export: the JSON file reads back to the core's arrays bit for bit, and the CSV holds the same numbers."""

import csv
import io
import json

import numpy as np
import pytest
from dash.exceptions import PreventUpdate

from dashboard import attention as core
from dashboard import limits
from dashboard.explorer import export


def download(kind, h=8, seed=42, size=16, scale="tau", tau=-3):
    from unittest.mock import patch

    button = export.DOWNLOAD_CSV if kind == "csv" else export.DOWNLOAD_JSON
    with patch.object(export, "ctx") as ctx:
        ctx.triggered_id = button
        return export.download(json_clicks=1, csv_clicks=1, tab="example", cell=[None, None, None],
                               setting={"h": h, "seed": seed, "size": size, "scale": scale, "tau": tau,
                                        "weights": "random"},
                               layers={"bug": limits.DEFAULT_BUG, "mystery": 0, "causal": False})


def test_json_round_trips_to_the_cores_arrays_exactly():
    sent = download("json")
    assert sent["filename"] == "attention-random-h8-seed42-n48-tau-3.json"
    state = json.loads(sent["content"])
    ex = core.worked_example(42, 16)
    scale = 1 / (10 ** -0.3 * np.sqrt(1))  # τ = 10^-0.3 divides the logits
    r = core.multi_head_attention(*ex[:5], 8, scale=scale)
    for name, expected in [("X", ex.X), ("W_Q", ex.W_Q), ("W_K", ex.W_K), ("W_V", ex.W_V), ("W_O", ex.W_O),
                           ("attention", r.A), ("output", r.output)]:
        np.testing.assert_array_equal(np.array(state[name]), expected)  # equal to the last bit
    assert (state["h"], state["seed"], state["n"], state["d"]) == (8, 42, 48, 8)
    assert state["scale"] == {"choice": "tau", "tau": 10 ** -0.3, "value": scale}
    assert np.array(state["attention"]).shape == (8, 48, 48)


def test_csv_holds_every_value_in_long_format():
    rows = list(csv.DictReader(io.StringIO(download("csv", h=2, seed=0, size=4, scale="seed", tau=0)["content"])))
    ex = core.worked_example(0)
    r = core.multi_head_attention(*ex[:5], 2)
    A = np.zeros((2, 12, 12))
    for row in rows:
        if row["matrix"] == "attention":
            A[int(row["head"]) - 1, int(row["row"]), int(row["column"])] = float(row["value"])
    np.testing.assert_array_equal(A, r.A)
    W_O = [float(row["value"]) for row in rows if row["matrix"] == "W_O"]
    np.testing.assert_array_equal(np.reshape(W_O, (8, 8)), ex.W_O)
    core_rows = [row for row in rows if row["matrix"] in {"X", "W_Q", "W_K", "W_V", "W_O", "output", "attention"}]
    assert len(core_rows) == 12 * 8 * 2 + 4 * 64 + 2 * 144  # the influence arrays follow (test_influence_views.py)


@pytest.mark.parametrize("forged", [(3, 0, 4, "seed", 0), (8, -1, 4, "seed", 0), (8, 0, 99, "seed", 0),
                                    (8, 0, 4, "hot", 0), (8, 0, 4, "tau", 1e308), ("8", 0, 4, "seed", 0)])
def test_forged_state_downloads_nothing(forged):
    with pytest.raises(PreventUpdate):
        download("json", *forged)
