"""Attention is not only a weight: what key j adds to output r through head i is A^(i)_rj v_j^(i) W_O^(i)
(Kobayashi et al. 2020), so a large weight on a short value moves the output little. This section of the worked
example shows that influence per head and three measures of the whole layer beside the weights, ranks the
selected query's keys by each, and puts each head's effect beside its entropy. The math is explain.py's."""

from __future__ import annotations

from functools import lru_cache

import dash_bootstrap_components as dbc
from dash import Input, Output, Patch, State, html, no_update

from .. import explain, i18n, limits
from ..figures import Display
from ..figures import influence as fig
from ..i18n import _
from ..state import SETTINGS_CACHED, Setting, model
from . import selection
from .controls import CELL, MODEL, Cell, ModelView
from .ids import INFLUENCE
from .influence_tables import agreement_table, disagreement_text, head_effect_intro, head_table, head_text, ranking_table
from .ui import DRAWN, NEAR_KEPT, alert, came_near, graph, near_id, near_outputs, waiting
from .wiring import callback

INFLUENCE_LAYER = "influence-layer"  # N, leave one out, gradient x input
RANKING = "influence-ranking"
RANKING_TEXT = "influence-text"
HEAD_EFFECTS = "influence-heads"
HEAD_TEXT = "influence-heads-text"
HEAD_TABLE = "influence-heads-table"

MODEL_STORE = MODEL["example"]


def _beside(text: list, view: list) -> dbc.Row:
    return dbc.Row([dbc.Col(text, lg=5, className="explain prose"), dbc.Col(view, lg=7, className="view")],
                   className="g-4 mb-4 align-items-start")


def layout() -> html.Div:
    return html.Div(
        [
            # Translators: an attention weight, and the effect of the key's value on the output.
            html.H3(_("A large weight, a small effect?"), className="h5"),
            _beside(
                # Translators: the sentence goes on after a formula: "and its size N = … is the weight times …".
                [html.P(_("Output r is a sum over heads and keys: output_r = Σᵢ Σⱼ A⁽ⁱ⁾_rj v_j⁽ⁱ⁾ W_O⁽ⁱ⁾, where "
                          "v_j⁽ⁱ⁾ is key j's value in head i (d/h numbers) and W_O⁽ⁱ⁾ the row block of W_O that "
                          "reads head i. So what key j adds to output r through head i is a vector, and its size")),
                 html.P("N⁽ⁱ⁾_rj = ‖A⁽ⁱ⁾_rj v_j⁽ⁱ⁾ W_O⁽ⁱ⁾‖ = A⁽ⁱ⁾_rj × ‖v_j⁽ⁱ⁾ W_O⁽ⁱ⁾‖", className="formula-text"),
                 # Translators: the end of the sentence before the formula: "its size N = … is the weight times …".
                 html.P(_("is the weight times the length of the key's value as the head writes it into the output "
                          "(Kobayashi et al. 2020, “Attention is Not Only a Weight”). A large weight on a short "
                          "value moves the output little; a small weight on a long one can move it more. Click a "
                          "cell to follow its path in the drill-down above."))],
                [graph(INFLUENCE, waits=True)]),
            _beside(
                [html.P(_("Three measures of key j's effect on output r through the whole layer, all lengths in "
                          "the output space:")),
                 html.Ul([html.Li(_("N_rj = ‖Σᵢ A⁽ⁱ⁾_rj v_j⁽ⁱ⁾ W_O⁽ⁱ⁾‖: the heads' pieces for key j added up "
                                    "first, so they can cancel;")),
                          html.Li(_("leave key j out: drop it from every head's softmax (the other weights grow to "
                                    "fill its share) and measure how far output r moves;")),
                          html.Li(_("gradient × input ‖(∂ output_r / ∂ x_j) x_j‖: x_j is a value, a key (it moves "
                                    "its own weights) and, for r = j, the query, exactly through the softmax."))])],
                [graph(INFLUENCE_LAYER)]),
            # Translators: where the attention weights and the measures of influence rank the keys differently.
            html.H4(_("Where they disagree"), className="h6"),
            html.P(id=RANKING_TEXT, className="prose live-text", **{"aria-live": "polite"}),
            html.Div(id=RANKING, className="influence-ranking-box mb-4", tabIndex="0", role="region",  # scrolls: keys
                     **{"aria-label": _("the selected query's keys under every measure")}),
            # Translators: a sharp attention head puts most of its weight on a few keys (a low entropy).
            html.H4(_("Heads: sharp is not the same as important"), className="h6"),
            _beside(
                [html.P(head_effect_intro()),
                 html.P(id=HEAD_TEXT, className="live-text", **{"aria-live": "polite"}),
                 html.Div(id=HEAD_TABLE)],
                [graph(HEAD_EFFECTS, waits=True)]),
        ],
        className="influence mb-4",
    )


@lru_cache(maxsize=SETTINGS_CACHED)
def measures(s: Setting) -> explain.Influence:
    ex, r = model(s)
    return explain.influence(r, ex.W_O)


@i18n.lru_cache(maxsize=SETTINGS_CACHED)
def influence_figures(s: Setting, display: Display) -> tuple[dict, dict]:
    m = measures(s)
    return fig.per_head_influence(m.per_head, display), \
        fig.layer_influence(m.layer, m.leave_one_out, m.grad_input, display)


@i18n.lru_cache(maxsize=SETTINGS_CACHED)
def heads_view(s: Setting, display: Display) -> tuple[dict, str, html.Table]:
    ex, r = model(s)
    effect = explain.head_effects(r, measures(s), ex.W_O)
    entropy = explain.head_summaries(r.A, ex.cluster).entropy
    return fig.head_effects(effect.total, effect.switched_off, display), head_text(entropy, effect), \
        head_table(entropy, effect, s.n)


def ranking(s: Setting, i: int, r: int) -> explain.QueryRanking:
    return explain.query_ranking(model(s).result, measures(s), i, r)


def _with_shapes(figure: dict, shapes: list[dict]) -> dict:
    return {**figure, "layout": {**figure["layout"], "shapes": shapes}}


@callback(output=dict(per_head=Output(INFLUENCE, "figure"), layer=Output(INFLUENCE_LAYER, "figure"),
                      text=Output(RANKING_TEXT, "children"), table=Output(RANKING, "children"),
                      **near_outputs(INFLUENCE)),
          inputs=dict(shared=MODEL_STORE.input, cell=CELL, near=Input(near_id(INFLUENCE), "n_clicks")),
          state=dict(drawn=State(near_id(INFLUENCE), "disabled")), prevent_initial_call=True)
def update_influence(shared, cell, near, drawn):
    """N^(i) and the layer's measures with the selected cell outlined, and the selected query's keys ranked, drawn
    near the screen (ui.waiting). A click patches the outlines and ranks again (a waiting view draws it)."""
    view, chosen = ModelView.parse(shared), Cell(**cell)
    s = view.setting
    clicked = selection.only_the_cell_changed(CELL)
    if (clicked and not drawn) or not (clicked or came_near(INFLUENCE)):
        return dict(per_head=no_update, layer=no_update, text=no_update, table=no_update,
                    **(NEAR_KEPT if clicked else waiting(shared)))
    selected, message = limits.cell(*chosen, s.h, s.n)
    if selected is None:
        text, table, layer_shapes = message, alert(message), []
    else:
        i, r, j = selected
        q = ranking(s, i, r)
        text, table, layer_shapes = disagreement_text(q), [ranking_table(q, j), agreement_table(q)], fig.layer_outlines(r, j)
    if clicked:  # outlines and a new ranking, no figure redrawn
        layer = Patch()
        layer["layout"]["shapes"] = layer_shapes
        return dict(per_head=selection.outline_patch(chosen, s), layer=layer, text=text, table=table,
                    **NEAR_KEPT)
    per_head, layer = influence_figures(s, view.display)
    return dict(per_head=selection.with_outline(per_head, chosen, s), layer=_with_shapes(layer, layer_shapes),
                text=text, table=table, **DRAWN)


@callback(output=dict(figure=Output(HEAD_EFFECTS, "figure"), text=Output(HEAD_TEXT, "children"),
                      table=Output(HEAD_TABLE, "children"), **near_outputs(HEAD_EFFECTS)),
          inputs=dict(shared=MODEL_STORE.input, near=Input(near_id(HEAD_EFFECTS), "n_clicks")),
          prevent_initial_call=True)
def update_heads(shared, near):
    """Each head's effect beside its entropy, drawn near the screen (ui.waiting)."""
    view = ModelView.parse(shared)
    if not came_near(HEAD_EFFECTS):
        return dict(figure=no_update, text=no_update, table=no_update, **waiting(shared))
    figure, text, table = heads_view(view.setting, view.display)
    return dict(figure=figure, text=text, table=table, **DRAWN)


PER_HEAD = ("influence_per_head",)  # (h, n, n) [head, query r, key j]
LAYER = ("influence", "leave_one_out", "gradient_x_input")  # (n, n) [query r, key j]
# the measures by key j, (h, n): [head, j], and by output row r, (h, n): [head, r]
MEASURES_BY_KEY, MEASURES_BY_OUTPUT = ("value_size",), ("head_total_influence", "head_switched_off")


def export_state(s: Setting, cell) -> dict:
    """The influence arrays for "download JSON" and "download CSV" (explorer/export.py), as nested lists, and
    the selected cell {"head": 1..h, "query", "key"} (None when it is not one of this setting's)."""
    m = measures(s)
    ex, r = model(s)
    effect = explain.head_effects(r, m, ex.W_O)
    selected, _message = limits.cell(*cell, s.h, s.n)
    return {"influence_per_head": m.per_head.tolist(), "influence": m.layer.tolist(),
            "leave_one_out": m.leave_one_out.tolist(), "gradient_x_input": m.grad_input.tolist(),
            "value_size": m.value_size.tolist(), "head_total_influence": effect.total.tolist(),
            "head_switched_off": effect.switched_off.tolist(),
            "selection": None if selected is None else {"head": selected[0] + 1, "query": selected[1],
                                                        "key": selected[2]}}


def csv_rows(state: dict):
    """The export's CSV rows for the influence arrays: matrix, head, row, column, value (explorer/export.py)."""
    for name in PER_HEAD:
        yield from ([name, i + 1, r, c, repr(v)] for i, head in enumerate(state[name]) for r, line in enumerate(head)
                    for c, v in enumerate(line))
    for name in LAYER:
        yield from ([name, "", r, c, repr(v)] for r, line in enumerate(state[name]) for c, v in enumerate(line))
    for name in MEASURES_BY_KEY + MEASURES_BY_OUTPUT:
        yield from ([name, i + 1, *(("", k) if name in MEASURES_BY_KEY else (k, "")), repr(v)]
                    for i, line in enumerate(state[name]) for k, v in enumerate(line))
    if state["selection"] is not None:
        yield ["selection", state["selection"]["head"], state["selection"]["query"], state["selection"]["key"], ""]


selection.clickable(INFLUENCE)
