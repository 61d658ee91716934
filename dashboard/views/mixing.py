"""Single vs multi-head: one mixing matrix for every feature, or one per block of d/h features."""

from __future__ import annotations

from functools import lru_cache

from dash import Input, Output, html

from .. import attention as core
from .. import limits
from ..figures import Display
from ..figures import explain
from ..figures import mixing as fig
from ..ids import DISPLAY, HEADS, SEED, SEL_QUERY, TAB, section_id
from ..wiring import callback
from . import selection
from .common import PAIRS, graph, model, text_beside_view

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


@lru_cache(maxsize=limits.DISPLAYS * PAIRS)
def mixing_figures(h: int, seed: int, display: Display) -> tuple[dict, dict]:
    ex, r = model(h, seed)
    A_single = core.single_head_mixing(ex.X, ex.W_Q, ex.W_K)
    zmax = float(max(A_single.max(), r.A.max()))  # one colour scale for both figures
    d_k = r.V.shape[-1]
    return fig.single_head_heatmap(A_single, zmax), fig.multi_head_heatmaps(r.A, d_k, zmax, display)


@lru_cache(maxsize=limits.DISPLAYS * PAIRS * core.N_TOKENS)
def feature_mixing_figure(h: int, seed: int, query: int, display: Display) -> dict:
    r = model(h, seed)[1]
    return explain.feature_mixing_figure(core.feature_mixing(r, query), query, r.V.shape[-1], display)


@callback(Output(MIX_SINGLE, "figure"), Output(MIX_MULTI, "figure"),
          Input(HEADS, "value"), Input(SEED, "value"), Input(TAB, "value"), Input(DISPLAY, "data"), *selection.CELL)
def update_mixing(h, seed, tab, display, head, query, key):
    limits.tab(tab, "mixing")
    h, seed = limits.heads(h), limits.seed(seed)
    single, multi = mixing_figures(h, seed, limits.display(display))
    return single, selection.with_outline(multi, head, query, key, h)


@callback(Output(FEATURE_MIX, "figure"),
          Input(HEADS, "value"), Input(SEED, "value"), Input(SEL_QUERY, "value"), Input(TAB, "value"),
          Input(DISPLAY, "data"))
def update_feature_mixing(h, seed, query, tab, display):
    """Row `query` of every head, spread over the d feature columns it mixes: the seed's claim, drawn."""
    limits.tab(tab, "mixing")
    query = limits.member(query, range(core.N_TOKENS))
    return feature_mixing_figure(limits.heads(h), limits.seed(seed), query, limits.display(display))


selection.clickable(MIX_MULTI)
selection.outlined(MIX_MULTI, "mixing")
