"""Every value a control may take, in one place.

The server checks each input here, once, where it enters a callback; the browser gets the same
rules through the page's config (`client_config`), so assets/clientside.js never repeats them.
A bad control value raises PreventUpdate (the page keeps what it shows); a bad typed order gets a message.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
from dash.exceptions import PreventUpdate

from . import trainer, training
from .attention import D_MODEL, HEAD_CHOICES, N_CLUSTERS, N_TOKENS, SEED_PER_CLUSTER, check_permutation
from .figures import Display

SEEDS = range(100)
SIZES = range(2, 17)  # tokens per cluster: n = 6 … 48
DEFAULT_SIZE = SEED_PER_CLUSTER
MAX_TOKENS = N_CLUSTERS * SIZES[-1]
SCALES = {"seed": "1/√(d/h), the seed's", "none": "1, no scaling", "tau": "τ/√(d/h), a temperature"}
DEFAULT_SCALE = "seed"
TAU_STEPS = range(-10, 11)  # slider positions k: τ = 10^(k/10), from 0.1 to 10 on a log scale
DEFAULT_TAU_STEP = 0
TRAINING_SEEDS = range(10)
TRAINING_STEPS = range(0, training.STEPS + 1, training.SNAPSHOT_EVERY)  # the steps with a snapshot: the slider's
DEFAULT_HEADS = 4
DEFAULT_SEED = 0
def identity_order(n: int) -> str:
    """The typed order that leaves n tokens where they are: '0 1 … n-1'."""
    return " ".join(map(str, range(n)))


DEFAULT_PERM = identity_order(N_TOKENS)
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


def tokens(size) -> int:
    """n, the number of tokens, for a checked number of tokens per cluster."""
    return N_CLUSTERS * member(size, SIZES)


def trained_seed(value) -> int:
    """A training seed whose runs are ready; anything else (a forged one too) gets no update."""
    seed_ = training_seed(value)
    if trainer.training_runs(seed_, wait=False) is None:
        raise PreventUpdate
    return seed_


def snapshot(step) -> int:
    """The snapshot index of a training step the slider allows."""
    return member(step, TRAINING_STEPS) // training.SNAPSHOT_EVERY


class Setting(NamedTuple):
    """The model a page shows, checked: the worked example's seed and size, h, and the softmax's scale."""

    h: int
    seed: int
    size: int = DEFAULT_SIZE  # tokens per cluster
    scale: str = DEFAULT_SCALE  # a key of SCALES
    tau: int = DEFAULT_TAU_STEP  # a TAU_STEPS position; 0 unless scale is "tau"

    @property
    def n(self) -> int:
        return N_CLUSTERS * self.size

    @property
    def softmax_scale(self) -> float:
        """The number in front of Q_i K_i^T."""
        return self.scale_at(D_MODEL // self.h)

    def scale_at(self, d_k: int) -> float:
        """The scale for heads of width d_k: the seed's 1/sqrt(d_k), 1, or tau/sqrt(d_k)."""
        if self.scale == "none":
            return 1.0
        return (10 ** (self.tau / 10) if self.scale == "tau" else 1.0) / np.sqrt(d_k)


def setting(h, random_seed, size, scale, tau) -> Setting:
    """The five model controls, checked, or PreventUpdate. τ counts only with the temperature scale."""
    scale = member_str(scale, SCALES)
    return Setting(heads(h), seed(random_seed), member(size, SIZES), scale,
                   member(tau, TAU_STEPS) if scale == "tau" else DEFAULT_TAU_STEP)


def member_str(value, allowed) -> str:
    """`value` if it is one of the strings in `allowed`, else PreventUpdate."""
    if not (isinstance(value, str) and value in allowed):
        raise PreventUpdate
    return value


def display(value) -> Display:
    """The page's display store: {"narrow": bool, "lecture": bool}; anything else is a desktop page."""
    if not isinstance(value, dict):
        return Display()
    return Display(narrow=value.get("narrow") is True, lecture=value.get("lecture") is True)


def head_index(value, h: int) -> int | None:
    """A head button's value 1..h as a head index 0..h-1; None for 'all' or anything else."""
    return value - 1 if is_int(value) and 1 <= value <= h else None


def cell(head, query, key, h: int, n: int) -> tuple[tuple[int, int, int] | None, str]:
    """The selected cell as indices (i, r, j) with i = head - 1, or (None, message) when it is not one of
    the (h, n, n) cube's: the head buttons count from 1, tokens from 0."""
    if not all(is_int(v) for v in (head, query, key)):
        return None, f"Choose a head 1 to {h}, a query and a key 0 to {n - 1}, or click a cell of a heatmap."
    if not 1 <= head <= h:
        return None, f"There is no head {head} with h = {h}: choose a head 1 to {h}."
    if not (0 <= query < n and 0 <= key < n):
        return None, f"Tokens are numbered 0 to {n - 1}."
    return (head - 1, query, key), ""


def permutation(text, n: int = N_TOKENS) -> tuple[np.ndarray | None, str]:
    """A typed order of n tokens such as '3 0 1 …' or '3,0,1,…' -> (perm, '') or (None, message)."""
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
              order: int | None = None, items: int | None = None, flag: bool = False, tab: str | None = None,
              when: tuple[str, object] | None = None) -> dict:
    """One piece of state the URL holds (?key=value) and the rule the browser reads it by:
    one of `choices`, an integer 0..count-1, an order of at most `order` tokens (commas in the URL; a bad
    one is never written and reads as the default), a list of at most `items` integers (commas in the URL),
    or a flag ('1'). With `tab`, the URL holds it only while that tab is shown; with `when` = (key, value),
    only while the parameter `key` has that value. The server checks the value again in its callback."""
    rule = {"choices": list(choices)} if choices is not None else {"count": count} if count is not None else \
        {"order": order} if order is not None else {"items": items} if items is not None else {"flag": True}
    assert flag == ("flag" in rule), "a url_param takes one rule"
    return {"key": key, "id": component_id, "default": default, "rule": rule, "tab": tab, "when": when}


def client_config(ids: dict, url_params: list[dict]) -> dict:
    """Defaults, allowed values and ids for the browser (assets/clientside.js)."""
    return {"heads": list(HEAD_CHOICES), "steps": {"every": TRAINING_STEPS.step, "last": TRAINING_STEPS[-1]},
            "narrowWidth": NARROW_WIDTH, "allHeads": ALL_HEADS, "ids": ids, "url": url_params}
