"""Where does this weight come from? The path from two tokens to one attention weight A^(i)_rj.

A click on a cell of any per-head heatmap (or the three inputs, from the keyboard) selects head i,
query r and key j; this panel then shows x_r and x_j, q_r^(i) and k_j^(i), their products, the sum
(the logit), the scale, and the whole softmax row r with key j highlighted. Every number is the core's.
"""

from __future__ import annotations

import numpy as np
from dash import Input, Output, State, html

from .. import attention as core
from .. import explain, limits
from ..i18n import _
from ..state import model
from ..tables import explanation
from ..urls import url_param
from .controls import CELL, DEFAULT_CELL, MODEL, Cell, ModelView
from .ids import MODEL_LATER, SEL_HEAD, SEL_KEY, SEL_QUERY
from .influence_tables import cell_table
from .ui import alert, cell_inputs, live_html
from .wiring import callback

DRILLDOWN = "drilldown"
URL_PARAMS = [
    url_param("head", SEL_HEAD, DEFAULT_CELL[0], choices=range(1, max(core.HEAD_CHOICES) + 1)),
    url_param("query", SEL_QUERY, DEFAULT_CELL[1], count=limits.MAX_TOKENS),
    url_param("key", SEL_KEY, DEFAULT_CELL[2], count=limits.MAX_TOKENS),
]


def layout() -> html.Div:
    return html.Div(
        [
            html.H3(_("Where does this weight come from?"), className="h5"),
            html.P(_("Click any cell of a per-head heatmap, or choose it here."), className="small mb-1"),
            cell_inputs((SEL_HEAD, SEL_QUERY, SEL_KEY), DEFAULT_CELL),
            live_html(DRILLDOWN),
        ],
        className="drilldown",
    )


# Asked for a round trip after a change of the model (MODEL_LATER, explorer/example.py) or at a click; it draws the
# tab's store as it is now, so while that holds no valid setting (a seed out of range) it refuses, as the heatmaps do
@callback(Output(DRILLDOWN, "children"), inputs=dict(later=Input(MODEL_LATER, "data"), cell=CELL),
          state=dict(shared=State(MODEL["example"].id, "data")), prevent_initial_call=True)
def update_drilldown(shared, cell, later=None):
    s = ModelView.parse(shared).setting
    selected, message = limits.cell(*Cell(**cell), s.h, s.n)
    if selected is None:
        return alert(message)
    ex, result = model(s)
    i, r, j = selected
    panel = explanation(explain.cell_path(ex.X, result, i, r, j), i, r, j)
    influences = result.A[i, r] * np.linalg.norm(explain.value_outputs(result, ex.W_O)[i], axis=-1)  # N^(i)_r.
    panel.children.append(cell_table(explain.cell_influence(result, ex.W_O, i, r, j), i, r, j, result.A[i, r],
                                     influences))  # the influence path
    return panel
