"""Single vs multi-head: one mixing matrix for every feature, or one per block of d/h features."""

from __future__ import annotations

from dash import Output, html, no_update

from .. import attention as core
from .. import explain, limits
from ..figures import Display
from ..figures import explain as explain_figures
from ..figures import mixing as fig
from ..figures.equivariance import no_order as message_figure  # a message in place of a figure: no axes
from ..i18n import _, lru_cache
from ..state import SETTINGS_CACHED, Setting, model
from . import selection
from .ids import section_id
from .controls import CELL, MODEL, Cell, ModelView
from .ui import graph, text_beside_view
from .wiring import callback

MIX_SINGLE = "mixing-single"
MIX_MULTI = "mixing-multi"
FEATURE_MIX = "mixing-features"
# The three gates of one callback wait for the same graph, so a first visit passes them together: one request.
MODEL_STORE = MODEL["mixing"]


def layout() -> html.Section:
    return html.Section([MODEL_STORE.store(),
                         text_beside_view(["mixing"], graph(MIX_SINGLE)),
                         text_beside_view(["mixing_multi"], [graph(MIX_MULTI), graph(FEATURE_MIX)])],
                        id=section_id("mixing"))


@lru_cache(maxsize=SETTINGS_CACHED)
def mixing_figures(s: Setting, display: Display) -> tuple[dict, dict]:
    ex, r = model(s)
    A_single = core.single_head_mixing(ex.X, ex.W_Q, ex.W_K, scale=s.scale_at(core.D_MODEL))  # one head: d_k = d
    zmax = float(max(A_single.max(), r.A.max()))  # one colour scale for both figures
    d_k = r.V.shape[-1]
    return fig.single_head_heatmap(A_single, zmax, display), fig.multi_head_heatmaps(r.A, d_k, zmax, display)


@lru_cache(maxsize=SETTINGS_CACHED)
def feature_mixing_figure(s: Setting, query: int, display: Display) -> dict:
    r = model(s).result
    return explain_figures.feature_mixing_figure(explain.feature_mixing(r, query), query, r.V.shape[-1], display)


@callback(Output(MIX_SINGLE, "figure"), Output(MIX_MULTI, "figure"), Output(FEATURE_MIX, "figure"),
          inputs=dict(shared=MODEL_STORE.input, cell=CELL), prevent_initial_call=True)
def update_mixing(shared, cell):
    """One head's mixing, every head's, and the selected query's row of every head spread over the d feature
    columns it mixes (the seed's claim, drawn). A click redraws the outline, and the feature map if the
    query changed."""
    view, selected = ModelView.parse(shared), Cell(**cell)
    row = selected.query
    s, display = view.setting, view.display
    # a query outside the tokens (fewer tokens since it was chosen) has no row to draw: the map says so
    features = (feature_mixing_figure(s, row, display) if limits.is_int(row) and 0 <= row < s.n else
                message_figure(_("The selected query is not one of the {n} tokens:<br>"
                                 "click a cell of the heatmaps above to choose one.").format(n=s.n)))
    if selection.only_the_cell_changed(CELL):  # a click: the outline, and the row if the query changed
        return no_update, selection.outline_patch(selected, s), features
    single, multi = mixing_figures(s, display)
    return single, selection.with_outline(multi, selected, s), features


selection.clickable(MIX_MULTI)
