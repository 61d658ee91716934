"""Equivariance: permute the tokens and watch every head's pattern follow (the seed's last section)."""

from __future__ import annotations

import secrets

import dash_bootstrap_components as dbc
import numpy as np
from dash import Input, Output, State, ctx, html, no_update

from .. import attention as core
from .. import limits
from ..figures import equivariance as fig
from ..i18n import _
from ..state import model
from ..urls import url_param
from .controls import MODEL, ModelView
from .ids import SIZE, section_id
from .ui import follow_h, graph, head_buttons, text_beside_view
from .wiring import callback

PERM = "perm"
PERM_FEEDBACK = "perm-feedback"
SHUFFLE = "perm-shuffle"
REVERSE = "perm-reverse"
IDENTITY = "perm-identity"
POSITIONS = "positions"
EQ_HEAD = "eq-head"
EQ_CHECK = "eq-check"
EQ_INPUTS = "eq-inputs"
EQ_ATTENTION = "eq-attention"
URL_PARAMS = [url_param("perm", PERM, limits.DEFAULT_PERM, order=limits.MAX_TOKENS, tab="equivariance"),
              url_param("pe", POSITIONS, False, flag=True, tab="equivariance")]
MODEL_STORE = MODEL["equivariance"]


def layout() -> html.Section:
    permuter = html.Div(
        [
            dbc.Label(_("token order: row r of PX is token …"), html_for=PERM),
            dbc.InputGroup(
                [
                    dbc.Input(id=PERM, value=limits.DEFAULT_PERM, debounce=True, autocomplete="off"),
                    # Translators: buttons that reorder the tokens
                    dbc.Button(_("shuffle"), id=SHUFFLE, color="primary"),
                    dbc.Button(_("reverse"), id=REVERSE, color="secondary", outline=True),
                    dbc.Button(_("reset"), id=IDENTITY, color="secondary", outline=True),
                ],
                className="has-validation",
            ),
            html.Div(id=PERM_FEEDBACK, className="invalid-feedback d-block", role="alert"),
            dbc.Switch(id=POSITIONS, label=_("add sinusoidal positional encodings E"), value=False, className="mt-2"),
            # Translators: the attention head whose matrices are shown
            head_buttons(EQ_HEAD, _("head shown"), include_all=False),
            html.Div(id=EQ_CHECK, className="eq-check mt-2", **{"aria-live": "polite"}),
        ]
    )
    return html.Section(
        [MODEL_STORE.store(), text_beside_view(["properties"], permuter), graph(EQ_INPUTS), graph(EQ_ATTENTION)],
        id=section_id("equivariance"),
    )


@callback(Output(EQ_INPUTS, "figure"), Output(EQ_ATTENTION, "figure"), Output(EQ_CHECK, "children"),
          Output(PERM, "invalid"), Output(PERM_FEEDBACK, "children"),
          inputs=dict(shared=MODEL_STORE.input, perm=Input(PERM, "value"), positions=Input(POSITIONS, "value"),
                      head=Input(EQ_HEAD, "value")), prevent_initial_call=True)
def update_equivariance(shared, perm, positions, head):
    """X vs PX, A(PX) vs P A(X) P^T for one head, and the gap ||MultiHead(PX) - P MultiHead(X)||."""
    view = ModelView.parse(shared)
    s, display = view.setting, view.display
    perm, message = limits.permutation(perm, s.n)
    if perm is None:  # nothing drawn or claimed for an order that is not one
        blank = fig.no_order(message)
        return blank, blank, "", True, message
    i = limits.head_index(head, s.h)
    i = 0 if i is None else i
    ex = model(s).example
    with_positions = positions is True
    E = core.sinusoidal_positions(s.n, core.D_MODEL) if with_positions else np.zeros_like(ex.X)
    check = core.equivariance_check(*ex[:5], s.h, perm, positions=E, scale=s.softmax_scale)
    inputs = fig.equivariance_inputs(ex.X + E, ex.X[perm] + E, perm, with_positions, display)
    A_X, A_PX = check.original.A[i], check.permuted.A[i]
    attention = fig.equivariance_attention(A_X, A_PX, core.permute_attention(A_X, perm), perm, i, display,
                                           with_positions)
    return inputs, attention, verdict(check, with_positions), False, ""


def verdict(check: core.EquivarianceCheck, with_positions: bool) -> html.Div:
    holds = check.output_gap < 1e-9
    X, PX = ("X + E", "PX + E") if with_positions else ("X", "PX")
    return html.Div(
        [
            html.Div([html.Span(f"‖MultiHead({PX}) − P·MultiHead({X})‖ = "),
                      html.Strong(f"{check.output_gap:.1e}", id="eq-gap")]),
            # Translators: the largest over the heads i of a norm
            html.Div([html.Span(_("largest {norm}").format(norm=f"‖A⁽ⁱ⁾({PX}) − P A⁽ⁱ⁾({X}) Pᵀ‖") + " = "),
                      html.Strong(f"{check.attention_gap:.1e}")]),
            html.Div(
                _("equivariant: the identity holds up to rounding") if holds
                else _("not equivariant: positional encodings make the output depend on order"),
                className="fw-semibold " + ("text-success-emphasis" if holds else "text-danger-emphasis"),
            ),
        ],
        className="eq-verdict " + ("holds" if holds else "breaks"),
    )


@callback(Output(EQ_HEAD, "options"), Output(EQ_HEAD, "value"), inputs=dict(shared=MODEL_STORE.input),
          state=dict(chosen=State(EQ_HEAD, "value")), prevent_initial_call=True)
def follow_heads(shared, chosen):
    """The head buttons follow the tab's h; a chosen head that no longer exists falls back to head 1."""
    return follow_h(ModelView.parse(shared).setting.h, chosen, include_all=False)

@callback(Output(PERM, "value", allow_duplicate=True), Input(SIZE, "value"),
          State(PERM, "value"), prevent_initial_call=True)
def follow_size(size, perm_text):
    """A new number of tokens: the typed order reset unless it already orders the new n tokens (a link that sets
    both keeps its order)."""
    n = limits.tokens(size)
    keep = limits.permutation(perm_text, n)[0] is not None
    return no_update if keep else limits.identity_order(n)


@callback(Output(PERM, "value", allow_duplicate=True),
          inputs=dict(shuffles=Input(SHUFFLE, "n_clicks"), reverses=Input(REVERSE, "n_clicks"),
                      resets=Input(IDENTITY, "n_clicks")),
          state=dict(text=State(PERM, "value"), shared=State(MODEL_STORE.id, "data")), prevent_initial_call=True)
def reorder(shuffles, reverses, resets, text, shared):
    """Shuffle, reverse (the typed order if it is one, else the identity) or reset the order of the n tokens."""
    n = ModelView.parse(shared).setting.n
    if ctx.triggered_id == SHUFFLE:
        order = secrets.SystemRandom().sample(range(n), n)
    elif ctx.triggered_id == REVERSE:
        typed = limits.permutation(text, n)[0]
        order = list(range(n) if typed is None else typed.tolist())[::-1]
    else:
        order = range(n)
    return " ".join(map(str, order))
