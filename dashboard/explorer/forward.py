"""The multi-head operator, forward: V and its blocks V_i, head_i = A^(i) V_i, the concatenation, W_O,
and MultiHead(X). W_O is the only place where the heads' outputs meet."""

from __future__ import annotations

import numpy as np
from dash import Input, Output, html, no_update

from .. import attention as core
from .. import explain
from ..figures import Display
from ..figures import explain as fig
from ..i18n import _, format_list, lru_cache, ngettext
from ..state import SETTINGS_CACHED, Setting, model
from .controls import MODEL, ModelView
from .ui import DRAWN, came_near, graph, near_id, near_outputs, text_beside_view, waiting
from .wiring import callback

FORWARD = "forward"
FORWARD_TEXT = "forward-text"


def layout() -> html.Div:
    return text_beside_view(["multi_head"], [graph(FORWARD, waits=True),
                                             html.P(id=FORWARD_TEXT, className="small live-text")])


@lru_cache(maxsize=SETTINGS_CACHED)
def forward_view(s: Setting, display: Display) -> tuple[dict, str]:
    ex, r = model(s)
    parts = explain.head_contributions(r, ex.W_O)  # (h, n, d): head_i W_O^(i), adding up to the output
    sizes = np.linalg.norm(parts, axis=(1, 2))  # (h,)
    return fig.forward_figure(r.V, r.concat, ex.W_O, r.output, display), forward_text(s.h, sizes)


def forward_text(h: int, sizes: np.ndarray) -> str:
    d_k = core.D_MODEL // h
    if h == 1:
        return _("With h = 1 there is one head: the concatenation is head₁ = A V, and W_O only mixes its features.")
    # Translators: an attention head's number and the size of its term, "head 1: 0.52" (Chinese: "头 1：0.52")
    parts = format_list(_("head {k}: {size:.2f}").format(k=i + 1, size=s) for i, s in enumerate(sizes))
    # Translators: {parts} lists each head's size, e.g. "head 1: 0.52, head 2: 0.61"; headᵢ is the seed's notation
    return ngettext("Each head writes its own {d_k} column of the concatenation. Row block i of W_O reads only head "
                    "i, so MultiHead(X) = Σᵢ headᵢ W_O⁽ⁱ⁾: a sum of one term per head, and W_O is where they meet. The "
                    "size ‖headᵢ W_O⁽ⁱ⁾‖ of each head's term: {parts}.",
                    "Each head writes its own {d_k} columns of the concatenation. Row block i of W_O reads only head "
                    "i, so MultiHead(X) = Σᵢ headᵢ W_O⁽ⁱ⁾: a sum of one term per head, and W_O is where they meet. The "
                    "size ‖headᵢ W_O⁽ⁱ⁾‖ of each head's term: {parts}.", d_k).format(d_k=d_k, parts=parts)


@callback(output=dict(figure=Output(FORWARD, "figure"), text=Output(FORWARD_TEXT, "children"),
                      **near_outputs(FORWARD)),
          inputs=dict(shared=MODEL["example"].input, near=Input(near_id(FORWARD), "n_clicks")),
          prevent_initial_call=True)
def update_forward(shared, near):
    """The operator and its sentence, drawn near the screen (ui.waiting)."""
    view = ModelView.parse(shared)
    if not came_near(FORWARD):
        return dict(figure=no_update, text=no_update, **waiting(shared))
    figure, text = forward_view(view.setting, view.display)
    return dict(figure=figure, text=text, **DRAWN)
