"""Thin callbacks: check every input, call the core, build figures.

Every value here may come from a forged request, so each one is checked
before use: a bad control value gets no update, a bad typed order gets a
message. The server keeps no per-user state; the only memory is a bounded
cache of pure functions of (h, seed).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
from dash import ClientsideFunction, Input, Output, Patch, State, html, no_update
from dash.exceptions import PreventUpdate

from . import attention as core
from . import figures
from . import layout as L

# Every (h, seed) pair the controls allow: 4 x 100 = 400 entries at most per cache.
CACHE_SIZE = len(core.HEAD_CHOICES) * len(L.SEEDS)
MAX_PERM_TEXT = 200  # characters; a longer typed order is refused before parsing


# ------------------------------------------------------------------ inputs


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_seed(seed) -> int:
    """A seed from the dropdown, or PreventUpdate: the page keeps what it shows."""
    if not (is_int(seed) and seed in L.SEEDS):
        raise PreventUpdate
    return seed


def check_controls(h, seed) -> tuple[int, int]:
    """(h, seed) from the dropdowns, or PreventUpdate."""
    if not (is_int(h) and h in core.HEAD_CHOICES):
        raise PreventUpdate
    return h, check_seed(seed)


def head_index(value, h: int) -> int | None:
    """A head button's value 1..h as a head index 0..h-1; None for 'all' or anything else."""
    return value - 1 if is_int(value) and 1 <= value <= h else None


def parse_permutation(text) -> tuple[np.ndarray | None, str]:
    """A typed order such as '3 0 1 …' or '3,0,1,…' -> (perm, '') or (None, message)."""
    n = core.N_TOKENS
    if not isinstance(text, str) or len(text) > MAX_PERM_TEXT:
        return None, f"Type the {n} numbers 0 to {n - 1} in a new order, separated by spaces or commas."
    words = [w for w in re.split(r"[\s,;]+", text.strip()) if w]
    if not all(w.isdigit() for w in words):
        bad = next(w for w in words if not w.isdigit())
        return None, f"“{bad[:20]}” is not a token number: use whole numbers 0 to {n - 1}."
    try:
        return core.check_permutation([int(w) for w in words], n), ""
    except ValueError as err:
        return None, str(err).capitalize() + "."


# ------------------------------------------------------------- the views


@lru_cache(maxsize=CACHE_SIZE)
def model(h: int, seed: int) -> tuple[core.WorkedExample, core.MultiHeadResult]:
    ex = core.worked_example(seed)
    return ex, core.multi_head_attention(*ex[:5], h)


@lru_cache(maxsize=len(L.SEEDS))
def token_figure(seed: int) -> dict:
    ex = core.worked_example(seed)
    return figures.token_views(ex.X, ex.cluster)


@lru_cache(maxsize=CACHE_SIZE)
def example_figures(h: int, seed: int) -> tuple[dict, dict]:
    r = model(h, seed)[1]
    return figures.block_views(r.Q, r.K, r.V), figures.attention_heatmaps(r.A)


@lru_cache(maxsize=CACHE_SIZE)
def cube_data(h: int, seed: int) -> list[dict]:
    return figures.cube_traces(model(h, seed)[1].A)


@lru_cache(maxsize=CACHE_SIZE)
def mixing_figures(h: int, seed: int) -> tuple[dict, dict]:
    ex, r = model(h, seed)
    A_single = core.single_head_mixing(ex.X, ex.W_Q, ex.W_K)
    zmax = float(max(A_single.max(), r.A.max()))
    return figures.single_head_heatmap(A_single, zmax), figures.multi_head_heatmaps(r.A, zmax)


def update_tokens(seed, tab):
    """The tokens do not depend on h, so a change of h neither sends nor redraws them."""
    if tab != "example":
        raise PreventUpdate
    return token_figure(check_seed(seed))


def update_example(h, seed, tab, focus):
    """Q/K/V blocks, per-head heatmaps and the cube. The cube gets a Patch of its `data`
    only, so the user's camera survives (dash 4.4.1 resets it on a whole new figure)."""
    if tab != "example":
        raise PreventUpdate
    h, seed = check_controls(h, seed)
    blocks, heatmaps = example_figures(h, seed)
    cube = Patch()
    cube["data"] = with_focus(cube_data(h, seed), head_index(focus, h))
    return blocks, heatmaps, cube


def with_focus(traces: list[dict], focus: int | None) -> list[dict]:
    """The cached planes with head index `focus` brought forward; None leaves them as they are."""
    if focus is None:
        return traces
    return [{**t, "opacity": figures.plane_opacity(i, focus)} if t["type"] == "surface" else t
            for i, t in enumerate(traces)]


def update_mixing(h, seed, tab):
    if tab != "mixing":
        raise PreventUpdate
    return mixing_figures(*check_controls(h, seed))


def update_equivariance(h, seed, tab, perm_text, positions, head):
    """X vs PX, A(PX) vs P A(X) P^T for one head, and the gap ||MultiHead(PX) - P MultiHead(X)||."""
    if tab != "equivariance":
        raise PreventUpdate
    h, seed = check_controls(h, seed)
    perm, message = parse_permutation(perm_text)
    if perm is None:
        return no_update, no_update, no_update, True, message
    i = head_index(head, h) or 0
    ex, _ = model(h, seed)
    with_positions = positions is True
    E = core.sinusoidal_positions(core.N_TOKENS, core.D_MODEL) if with_positions else np.zeros_like(ex.X)
    check = core.equivariance_check(*ex[:5], h, perm, positions=E)
    inputs = figures.equivariance_inputs(ex.X + E, ex.X[perm] + E, perm)
    A_X, A_PX = check.original.A[i], check.permuted.A[i]
    attention = figures.equivariance_attention(A_X, A_PX, core.permute_attention(A_X, perm), perm, i)
    return inputs, attention, equivariance_verdict(check, with_positions), False, ""


def equivariance_verdict(check: core.EquivarianceCheck, with_positions: bool) -> html.Div:
    holds = check.output_gap < 1e-9
    lhs = "MultiHead(PX + E) − P·MultiHead(X + E)" if with_positions else "MultiHead(PX) − P·MultiHead(X)"
    return html.Div(
        [
            html.Div([html.Span(f"‖{lhs}‖ = "), html.Strong(f"{check.output_gap:.1e}", id="eq-gap")]),
            html.Div([html.Span("largest ‖A⁽ⁱ⁾(PX) − P A⁽ⁱ⁾(X) Pᵀ‖ = "), html.Strong(f"{check.attention_gap:.1e}")]),
            html.Div(
                "equivariant: the identity holds up to rounding" if holds
                else "not equivariant: positional encodings make the output depend on order",
                className="fw-semibold " + ("text-success" if holds else "text-danger"),
            ),
        ],
        className="eq-verdict " + ("holds" if holds else "breaks"),
    )


# ------------------------------------------------------------ registration


def register(app) -> None:
    app.callback(Output(L.TOKENS, "figure"), Input(L.SEED, "value"), Input(L.TAB, "value"))(update_tokens)
    app.callback(
        Output(L.BLOCKS, "figure"), Output(L.HEATMAPS, "figure"), Output(L.CUBE, "figure"),
        Input(L.HEADS, "value"), Input(L.SEED, "value"), Input(L.TAB, "value"), State(L.CUBE_FOCUS, "value"),
    )(update_example)
    app.callback(
        Output(L.MIX_SINGLE, "figure"), Output(L.MIX_MULTI, "figure"),
        Input(L.HEADS, "value"), Input(L.SEED, "value"), Input(L.TAB, "value"),
    )(update_mixing)
    app.callback(
        Output(L.EQ_INPUTS, "figure"), Output(L.EQ_ATTENTION, "figure"), Output(L.EQ_CHECK, "children"),
        Output(L.PERM, "invalid"), Output(L.PERM_FEEDBACK, "children"),
        Input(L.HEADS, "value"), Input(L.SEED, "value"), Input(L.TAB, "value"), Input(L.PERM, "value"),
        Input(L.POSITIONS, "value"), Input(L.EQ_HEAD, "value"),
    )(update_equivariance)

    # In the browser, with no server round trip: see assets/clientside.js.
    sections = [Output(L.section_id(tab), "hidden") for tab in L.TABS]
    app.clientside_callback(ClientsideFunction("explorer", "showTab"), *sections, Input(L.TAB, "value"))
    app.clientside_callback(
        ClientsideFunction("explorer", "headOptions"),
        Output(L.CUBE_FOCUS, "options"), Output(L.CUBE_FOCUS, "value"),
        Output(L.EQ_HEAD, "options"), Output(L.EQ_HEAD, "value"),
        Input(L.HEADS, "value"), State(L.CUBE_FOCUS, "value"), State(L.EQ_HEAD, "value"), State(L.CONFIG, "data"),
    )
    app.clientside_callback(
        ClientsideFunction("explorer", "focusHead"), Output(L.CUBE, "figure", allow_duplicate=True),
        Input(L.CUBE_FOCUS, "value"), State(L.CUBE, "figure"), prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("explorer", "reorder"), Output(L.PERM, "value", allow_duplicate=True),
        Input(L.SHUFFLE, "n_clicks"), Input(L.REVERSE, "n_clicks"), Input(L.IDENTITY, "n_clicks"),
        State(L.PERM, "value"), State(L.CONFIG, "data"), prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction("explorer", "syncUrl"),
        Output(L.URL, "search"), Output(L.HEADS, "value"), Output(L.SEED, "value"), Output(L.TAB, "value"),
        Output(L.PERM, "value"), Output(L.POSITIONS, "value"),
        Input(L.URL, "search"), Input(L.HEADS, "value"), Input(L.SEED, "value"), Input(L.TAB, "value"),
        Input(L.PERM, "value"), Input(L.POSITIONS, "value"), State(L.CONFIG, "data"),
    )
