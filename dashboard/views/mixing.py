"""Single vs multi-head: one mixing matrix for every feature, or one per block of d/h features."""

from __future__ import annotations

from functools import lru_cache

from dash import Input, Output, html

from .. import attention as core
from .. import limits
from ..figures import Display
from ..figures import explain
from ..figures import mixing as fig
from ..ids import DISPLAY, SEL_QUERY, TAB, section_id
from ..wiring import callback
from . import selection
from .common import SETTINGS_CACHED, graph, model, text_beside_view
from .model import MODEL

MIX_SINGLE = "mixing-single"
MIX_MULTI = "mixing-multi"
FEATURE_MIX = "mixing-features"
URL_PARAMS: list[dict] = []


def layout() -> html.Section:
    return html.Section(
        [text_beside_view(["mixing"], graph(MIX_SINGLE)),
         text_beside_view(["mixing_multi"], [graph(MIX_MULTI), graph(FEATURE_MIX)])],
        id=section_id("mixing"),
        hidden=True,
    )


@lru_cache(maxsize=SETTINGS_CACHED)
def mixing_figures(s: limits.Setting, display: Display) -> tuple[dict, dict]:
    ex, r = model(s)
    A_single = core.single_head_mixing(ex.X, ex.W_Q, ex.W_K, scale=s.scale_at(core.D_MODEL))  # one head: d_k = d
    zmax = float(max(A_single.max(), r.A.max()))  # one colour scale for both figures
    d_k = r.V.shape[-1]
    return fig.single_head_heatmap(A_single, zmax, display), fig.multi_head_heatmaps(r.A, d_k, zmax, display)


@lru_cache(maxsize=SETTINGS_CACHED)
def feature_mixing_figure(s: limits.Setting, query: int, display: Display) -> dict:
    r = model(s)[1]
    return explain.feature_mixing_figure(core.feature_mixing(r, query), query, r.V.shape[-1], display)


@callback(Output(MIX_SINGLE, "figure"), Output(MIX_MULTI, "figure"),
          *MODEL, Input(TAB, "value"), Input(DISPLAY, "data"), *selection.CELL)
def update_mixing(h, seed, size, scale, tau, tab, display, head, query, key):
    limits.tab(tab, "mixing")
    s = limits.setting(h, seed, size, scale, tau)
    single, multi = mixing_figures(s, limits.display(display))
    return single, selection.with_outline(multi, head, query, key, s)


@callback(Output(FEATURE_MIX, "figure"),
          *MODEL, Input(SEL_QUERY, "value"), Input(TAB, "value"), Input(DISPLAY, "data"))
def update_feature_mixing(h, seed, size, scale, tau, query, tab, display):
    """Row `query` of every head, spread over the d feature columns it mixes: the seed's claim, drawn."""
    limits.tab(tab, "mixing")
    s = limits.setting(h, seed, size, scale, tau)
    return feature_mixing_figure(s, limits.member(query, range(s.n)), limits.display(display))


selection.clickable(MIX_MULTI)
selection.outlined(MIX_MULTI, "mixing")
