"""Single vs multi-head: one mixing matrix for every feature, or one per block of d/h features."""

from __future__ import annotations

from functools import lru_cache

from dash import Input, Output, html

from .. import attention as core
from .. import limits
from ..figures import Display
from ..figures import mixing as fig
from ..ids import DISPLAY, HEADS, SEED, TAB, section_id
from ..wiring import callback
from .common import PAIRS, graph, model, text_beside_view

MIX_SINGLE = "mixing-single"
MIX_MULTI = "mixing-multi"
URL_PARAMS: list[dict] = []


def layout() -> html.Section:
    return html.Section(
        [text_beside_view(["mixing"], graph(MIX_SINGLE)), text_beside_view(["mixing_multi"], graph(MIX_MULTI))],
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


@callback(Output(MIX_SINGLE, "figure"), Output(MIX_MULTI, "figure"),
          Input(HEADS, "value"), Input(SEED, "value"), Input(TAB, "value"), Input(DISPLAY, "data"))
def update_mixing(h, seed, tab, display):
    limits.tab(tab, "mixing")
    return mixing_figures(limits.heads(h), limits.seed(seed), limits.display(display))
