"""A family of bilinear forms: each head's M_i = W_Q^(i) W_K^(i)T, its rank, and the logits X M_i X^T it gives."""

from __future__ import annotations

from dash import Input, Output, State, html, no_update

from .. import attention as core
from ..figures import Display
from ..figures import explain as fig
from ..i18n import _, format_list, lru_cache
from ..state import SETTINGS_CACHED, Setting, model
from . import selection
from .controls import CELL, MODEL, Cell, ModelView
from .ids import FORMS
from .ui import DRAWN, NEAR_KEPT, came_near, graph, markdown, near_id, near_outputs, waiting
from .wiring import callback

LOGITS = "bilinear-logits"
FORMS_TEXT = "bilinear-text"


def layout() -> html.Div:
    return html.Div(
        [markdown("bilinear"), html.P(id=FORMS_TEXT, className="prose live-text"), graph(FORMS, waits=True),
         graph(LOGITS)],
        className="mb-4",
    )


@lru_cache(maxsize=SETTINGS_CACHED)
def forms_figures(s: Setting, display: Display) -> tuple[dict, dict, str]:
    ex = model(s).example
    M = core.bilinear_forms(ex.W_Q, ex.W_K, s.h)  # (h, d, d)
    ranks = core.numerical_rank(M)  # (h,)
    logits = ex.X @ M @ ex.X.T  # (h, n, n): the seed's logits B_i(x_r, x_j), before the softmax's scale
    return fig.bilinear_forms_figure(M, ranks, display), fig.logits_figure(logits, display), rank_text(s.h, ranks)


def rank_text(h: int, ranks) -> str:
    d = core.D_MODEL
    d_k = d // h
    same = len(set(ranks.tolist())) == 1
    # Translators: the rank of a matrix (linear algebra), e.g. "rank 2" or "ranks 2, 1"
    ranks_said = (_("rank {rank}").format(rank=int(ranks[0])) if same else
                  _("ranks {ranks}").format(ranks=format_list(int(k) for k in ranks)))
    if d_k == 1:
        reading = _("each M_i is an outer product: a head compares tokens along one direction only, "
                    "so its logits x_rᵀ M_i x_j depend on two numbers, one per token.")
    elif d_k == d:
        reading = _("the one head's M can compare tokens along every direction.")
    else:
        reading = _("each head compares tokens along {d_k} directions of the {d}.").format(d_k=d_k, d=d)
    # Translators: {ranks} is "rank 2" or "ranks 2, 1"; {reading} is a clause that says what the ranks mean
    return _("With h = {h}, each d × d matrix M_i = W_Q⁽ⁱ⁾ W_K⁽ⁱ⁾ᵀ is a product of two {d} × {d_k} blocks, so its "
             "rank is at most d/h = {d_k}. Here: {ranks}; {reading}").format(h=h, d=d, d_k=d_k, ranks=ranks_said,
                                                                             reading=reading)


MODEL_STORE = MODEL["example"]


@callback(output=dict(forms=Output(FORMS, "figure"), logits=Output(LOGITS, "figure"),
                      text=Output(FORMS_TEXT, "children"), **near_outputs(FORMS)),
          inputs=dict(shared=MODEL_STORE.input, cell=CELL, near=Input(near_id(FORMS), "n_clicks")),
          state=dict(drawn=State(near_id(FORMS), "disabled")), prevent_initial_call=True)
def update_forms(shared, cell, near, drawn):
    """The forms and the logits (one near button for both), drawn near the screen (ui.waiting)."""
    view, selected = ModelView.parse(shared), Cell(**cell)
    unchanged = dict(forms=no_update, logits=no_update, text=no_update)
    if selection.only_the_cell_changed(CELL):  # a click: the new outline, nothing redrawn (a waiting graph draws it)
        logits = selection.outline_patch(selected, view.setting) if drawn else no_update
        return {**unchanged, "logits": logits, **NEAR_KEPT}
    if not came_near(FORMS):
        return {**unchanged, **waiting(shared)}
    forms, logits, text = forms_figures(view.setting, view.display)
    return dict(forms=forms, logits=selection.with_outline(logits, selected, view.setting), text=text, **DRAWN)


selection.clickable(LOGITS)
