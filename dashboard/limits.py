"""Every value a control may take, in one place.

The server checks each input here, once, where it enters a callback; the browser gets the same
rules through the page's config (`client_config`), so assets/clientside.js never repeats them.
A bad control value raises PreventUpdate (the page keeps what it shows); a bad typed order gets a message.
"""

from __future__ import annotations

import re

import numpy as np
from dash.exceptions import PreventUpdate

from . import training
from .attention import HEAD_CHOICES, N_TOKENS, check_permutation
from .figures import Display

SEEDS = range(100)
TRAINING_SEEDS = range(10)
TRAINING_STEPS = range(0, training.STEPS + 1, training.SNAPSHOT_EVERY)  # the steps with a snapshot: the slider's
DEFAULT_HEADS = 4
DEFAULT_SEED = 0
DEFAULT_PERM = " ".join(map(str, range(N_TOKENS)))
MAX_PERM_TEXT = 200  # characters; a longer typed order is refused before parsing
TABS = {  # value -> label, in the seed's order
    "example": "Worked example",
    "mixing": "Single vs multi-head",
    "equivariance": "Equivariance",
    "learning": "Learning",
}
DEFAULT_TAB = "example"
DISPLAYS = 2 * 2  # phone-width or not, lecture mode or not: the values of display()
NARROW_WIDTH = 576  # px: Bootstrap's "sm" breakpoint; a page narrower than this is a phone's
ALL_HEADS = 0  # a head button's value for "all heads"; k >= 1 is head k


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def member(value, allowed):
    """`value` if it is an int in `allowed`, else PreventUpdate."""
    if not (is_int(value) and value in allowed):
        raise PreventUpdate
    return value


def heads(h) -> int:
    return member(h, HEAD_CHOICES)


def seed(value) -> int:
    return member(value, SEEDS)


def training_seed(value) -> int:
    return member(value, TRAINING_SEEDS)


def snapshot(step) -> int:
    """The snapshot index of a training step the slider allows."""
    return member(step, TRAINING_STEPS) // training.SNAPSHOT_EVERY


def tab(value, expected: str) -> None:
    """Views draw only while their tab is shown: PreventUpdate otherwise."""
    if value != expected:
        raise PreventUpdate


def display(value) -> Display:
    """The page's display store: {"narrow": bool, "lecture": bool}; anything else is a desktop page."""
    if not isinstance(value, dict):
        return Display()
    return Display(narrow=value.get("narrow") is True, lecture=value.get("lecture") is True)


def head_index(value, h: int) -> int | None:
    """A head button's value 1..h as a head index 0..h-1; None for 'all' or anything else."""
    return value - 1 if is_int(value) and 1 <= value <= h else None


def permutation(text) -> tuple[np.ndarray | None, str]:
    """A typed order such as '3 0 1 …' or '3,0,1,…' -> (perm, '') or (None, message)."""
    n = N_TOKENS
    if not isinstance(text, str) or len(text) > MAX_PERM_TEXT:
        return None, f"Type the {n} numbers 0 to {n - 1} in a new order, separated by spaces or commas."
    words = [w for w in re.split(r"[\s,;]+", text.strip()) if w]
    bad = next((w for w in words if not (w.isascii() and w.isdigit())), None)
    if bad is not None:
        return None, f"“{bad[:20]}” is not a token number: use whole numbers 0 to {n - 1}."
    try:
        return check_permutation([int(w) for w in words], n), ""
    except ValueError as err:
        return None, str(err).capitalize() + "."


def url_param(key: str, component_id: str, default, *, choices=None, count: int | None = None,
              order: int | None = None, flag: bool = False, tab: str | None = None) -> dict:
    """One piece of state the URL holds (?key=value) and the rule the browser reads it by:
    one of `choices`, an integer 0..count-1, an order of 0..order-1 (commas in the URL; a bad one is
    never written and reads as the default), or a flag ('1'). With `tab`, the URL holds it only while
    that tab is shown. The server checks the value again when it reaches a callback."""
    rule = {"choices": list(choices)} if choices is not None else {"count": count} if count is not None else \
        {"order": order} if order is not None else {"flag": True}
    assert flag == ("flag" in rule), "a url_param takes one rule"
    return {"key": key, "id": component_id, "default": default, "rule": rule, "tab": tab}


def client_config(ids: dict, url_params: list[dict]) -> dict:
    """Defaults, allowed values and ids for the browser (assets/clientside.js)."""
    return {"heads": list(HEAD_CHOICES), "perm": DEFAULT_PERM, "steps": {"every": TRAINING_STEPS.step, "last": TRAINING_STEPS[-1]},
            "narrowWidth": NARROW_WIDTH, "allHeads": ALL_HEADS, "ids": ids, "url": url_params}
