"""The rules that Python and JavaScript both hold, against the same cases (tests/rules/cases.json); Node's own
runner checks assets/rules.js against them (tests/node/rules.test.js, run by `make test`)."""

import json
from pathlib import Path

import numpy as np
import pytest

from dashboard import limits
from dashboard.explorer import URL_PARAMS
from dashboard.figures import PLANE_OPACITY
from dashboard.figures import example as fig

CASES = json.loads((Path(__file__).parent / "rules" / "cases.json").read_text())

# The server's check of each value the URL can set, as its callbacks apply it.
CHECKS = {"h": limits.heads, "seed": limits.seed, "size": limits.size, "scale": limits.scale, "tau": limits.tau,
          "tab": lambda v: limits.choice(v, tuple(limits.TABS)),
          "step": lambda v: limits.member(v, limits.SNAPSHOT_STEPS),
          "train": limits.training_seed, "head": lambda v: limits.member(v, range(1, 9)),
          "query": lambda v: limits.member(v, range(limits.MAX_TOKENS)), "bug": limits.bug, "mystery": limits.mystery,
          "weights": lambda v: limits.choice(v, tuple(limits.WEIGHT_CHOICES))}


@pytest.mark.parametrize("case", CASES["orders"], ids=lambda c: repr(c["text"]))
def test_an_order_the_url_keeps_is_one_the_server_accepts(case):
    words = [w for w in limits.ORDER_SEPARATORS.split(case["text"].strip()) if w]
    accepted = limits.permutation(case["text"], len(words))[0] is not None and 0 < len(words) <= case["most"]
    assert accepted == case["ok"]


@pytest.mark.parametrize("case", CASES["focus"], ids=lambda c: f"h{c['h']}-button{c['button']}")
def test_the_cube_focus_brings_forward_the_planes_the_browser_does(case):
    A = np.full((case["h"], 3, 3), 1 / 3)
    traces = fig.focus_planes(fig.cube_traces(A), limits.head_index(case["button"], case["h"]))
    assert [t["opacity"] == PLANE_OPACITY for t in traces if t["type"] == fig.PLANE] == case["planes"]


@pytest.mark.parametrize("case", CASES["params"], ids=lambda c: f"{c['key']}={c['text']}")
def test_a_url_value_the_browser_reads_is_one_the_server_accepts(case):
    assert case["key"] in {p["key"] for p in URL_PARAMS}
    check = CHECKS[case["key"]]
    if case["reads"] is not None:
        assert check(case["reads"]) == case["reads"]
    else:
        try:
            value = json.loads(case["text"])
        except json.JSONDecodeError:
            value = case["text"]
        with pytest.raises(limits.Invalid):
            check(value)
