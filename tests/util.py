"""Helpers shared by the tests."""

import base64
from html.parser import HTMLParser

import numpy as np
from dash import html

from dashboard.explorer.ui import HTML_ATTRIBUTES, VOID_TAGS


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


def fire(callback, *args, changed=None):
    """Call a view's server callback as Dash does when the gates in `changed` passed new values (by default
    every gate: a first draw). `args` are the callback's arguments: a gate's values as a list, in its order."""
    from dash._callback_context import context_value
    from dash._utils import AttributeDict

    from dashboard.explorer.gate import GATES

    fired = [{"prop_id": f"{g.id}.data", "value": None} for g in (GATES if changed is None else changed)]
    token = context_value.set(AttributeDict(triggered_inputs=fired))
    try:
        return callback(*args)
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


class _ComponentTree(HTMLParser):
    """HTML (ui.to_html's) back into html.* components, so a panel sent as HTML reads like one sent as components."""

    DASH_NAMES = {html_name: name for name, html_name in HTML_ATTRIBUTES.items()}

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack = [[None, None, []]]  # [component class, props, children]: the root's holds the element
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        kind, props = getattr(html, tag.capitalize()), {self.DASH_NAMES.get(k, k): v for k, v in attrs}
        if tag in VOID_TAGS:  # no end tag follows
            self.stack[-1][-1].append(kind(**props))
        else:
            self.stack.append([kind, props, []])

    def handle_endtag(self, tag):
        kind, props, children = self.stack.pop()
        text = len(children) == 1 and isinstance(children[0], str)  # as a panel's code writes it: P("…"), Tbody([…])
        self.stack[-1][-1].append(kind(**props, children=children[0] if text else children))

    def handle_data(self, data):
        self.stack[-1][-1].append(data)

    @property
    def root(self):
        (top,) = self.stack[0][-1]
        return top


def from_html(text: str):
    """The one element (with its tree) that a StaticHtml's `html` holds."""
    tree = _ComponentTree(text)
    assert len(tree.stack) == 1, "unclosed elements"
    return tree.root
