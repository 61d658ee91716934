"""Helpers shared by the tests."""

import base64

import numpy as np


def decode(typed: dict) -> np.ndarray:
    """A Plotly.js typed array {"dtype", "bdata"[, "shape"]} back to numpy."""
    a = np.frombuffer(base64.b64decode(typed["bdata"]), dtype=np.dtype(typed["dtype"]))
    if "shape" in typed:
        a = a.reshape([int(s) for s in typed["shape"].split(",")])
    return a


def patch_assignments(patch) -> dict:
    """{location tuple: value} for every Assign operation of a dash.Patch."""
    ops = patch.to_plotly_json()["operations"]
    return {tuple(op["location"]): op["params"]["value"] for op in ops if op["operation"] == "Assign"}
