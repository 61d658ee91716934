"""Helpers shared by the tests."""

import base64
import inspect

import numpy as np


def decode(typed: dict) -> np.ndarray:
    """A Plotly.js typed array {"dtype", "bdata"[, "shape"]} back to numpy."""
    a = np.frombuffer(base64.b64decode(typed["bdata"]), dtype=np.dtype(typed["dtype"]))
    if "shape" in typed:
        a = a.reshape([int(s) for s in typed["shape"].split(",")])
    return a


def numeric_gradients(loss, W: dict, eps: float = 1e-6) -> dict:
    """Central finite differences of loss(weights) with respect to each matrix of W, {name: array}."""
    grads = {}
    for name, matrix in W.items():
        grads[name] = np.zeros_like(matrix)
        for index in np.ndindex(matrix.shape):
            up, down = ({k: v.copy() for k, v in W.items()} for _ in range(2))
            up[name][index] += eps
            down[name][index] -= eps
            grads[name][index] = (loss(up) - loss(down)) / (2 * eps)
    return grads


def patch_assignments(patch) -> dict:
    """{location tuple: value} for every Assign operation of a dash.Patch."""
    ops = patch.to_plotly_json()["operations"]
    return {tuple(op["location"]): op["params"]["value"] for op in ops if op["operation"] == "Assign"}


def fire(callback, changed=None, **values):
    """Call a view's server callback by its names as Dash does when the inputs `changed` fired: Inputs, groups of
    them (a dict such as controls.CELL) or "id.property" strings; by default every input of the callback (a first
    draw). The function is the one its module names, so it never sees the page's language."""
    from dash._callback_context import context_value
    from dash._utils import AttributeDict

    from tests.dash_requests import callback_map, key_of_function, prop_ids

    if changed is None:
        changed = [f"{p['id']}.{p['property']}" for p in callback_map()[key_of_function(callback)]["inputs"]]
    # a graph that waits to come near (ui.waiting) has come near, and shows what it drew: unless the test says
    params = inspect.signature(callback).parameters
    values = {**{k: v for k, v in (("near", 1), ("drawn", True)) if k in params}, **values}
    fired = [{"prop_id": prop_id, "value": None} for prop_id in prop_ids(*changed)]
    token = context_value.set(AttributeDict(triggered_inputs=fired))
    try:
        return callback(**values)
    finally:
        context_value.reset(token)


def texts(component) -> list[str]:
    """Every string in a Dash component tree, in order."""
    if isinstance(component, str):
        return [component]
    children = getattr(component, "children", None)
    if children is None:
        return []
    return [t for child in (children if isinstance(children, list) else [children]) for t in texts(child)]
