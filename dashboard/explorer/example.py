"""Worked example: the tokens, Q/K/V and their column blocks, the operator through W_O, the bilinear forms,
the per-head attention matrices with the drill-down of one weight, and the cube, in the seed's order."""

from __future__ import annotations

import numpy as np
from dash import Output, Patch, State, html, no_update

from .. import attention as core
from .. import figures, limits
from ..figures import Display
from ..figures import example as fig
from ..i18n import _, lru_cache, ngettext, sentences
from ..state import SETTINGS_CACHED, Setting, model, tokens
from . import drilldown, forms, forward, influence, selection, summary
from .gate import DISPLAYED, SETTING, field, gate
from .ids import CONFIG, HEATMAPS, SEED, SIZE, WEIGHTS, section_id
from .ui import TabSection, graph, head_buttons, markdown, text_beside_view
from .wiring import callback, clientside_callback
from .worked import WORKED, WORKED_CELL

TOKENS = "tokens"
BLOCKS = "blocks"
WORKED_TEXT = "worked-text"
CUBE = "cube"
CUBE_FOCUS = "cube-focus"
URL_PARAMS = drilldown.URL_PARAMS


def layout() -> TabSection:
    return TabSection(
        [
            markdown("intro"),
            text_beside_view(["single_head"], graph(TOKENS)),
            text_beside_view(["block_structure"], graph(BLOCKS)),
            forward.layout(),
            forms.layout(),
            markdown("worked_example"),
            html.P(id=WORKED_TEXT, className="prose live-text"),
            graph(HEATMAPS, className="mb-2"),
            summary.layout(),
            drilldown.layout(),
            influence.layout(),
            text_beside_view(
                ["cube"],
                [head_buttons(CUBE_FOCUS, _("bring forward"), include_all=True, focuses=CUBE),
                 graph(CUBE, {"data": [], "layout": fig.cube_layout()}, className="webgl-figure")],
            ),
        ],
        id=section_id("example"),
    )


@lru_cache(maxsize=SETTINGS_CACHED)
def token_figure(weights: str, seed: int, size: int, display: Display) -> dict:
    return fig.token_views(*tokens(weights, seed, size), display)


@lru_cache(maxsize=SETTINGS_CACHED)
def block_figure(s: Setting, display: Display) -> dict:
    r = model(s)[1]
    return fig.block_views(r.Q, r.K, r.V, display)


@lru_cache(maxsize=SETTINGS_CACHED)
def heatmap_figure(s: Setting, display: Display) -> dict:
    return fig.attention_heatmaps(model(s)[1].A, display)


@lru_cache(maxsize=SETTINGS_CACHED)
def cube_data(s: Setting) -> list[dict]:
    return fig.cube_traces(model(s)[1].A)


# The tokens depend on neither h nor the scale, so a change of those neither sends nor redraws them.
TOKEN_GATE = gate("tokens", ("example",), {"weights": field("weights", WEIGHTS, parse=limits.weights),
                                           "seed": field("seed", SEED, parse=limits.seed),
                                           "size": field("size", SIZE, parse=limits.size), "display": DISPLAYED},
                  watch=(TOKENS,))
BLOCK_GATE = gate("blocks", ("example",), {"setting": SETTING, "display": DISPLAYED}, watch=(BLOCKS,))
CUBE_GATE = gate("cube", ("example",), {"setting": SETTING}, watch=(CUBE,))


@callback(Output(TOKENS, "figure"), TOKEN_GATE.input, prevent_initial_call=True)
def update_tokens(controls):
    view = TOKEN_GATE.read(controls)
    return token_figure(view.weights, view.seed, view.size, view.display)


@callback(Output(BLOCKS, "figure"), BLOCK_GATE.input, prevent_initial_call=True)
def update_blocks(controls):
    """Q, K and V with their h column blocks."""
    view = BLOCK_GATE.read(controls)
    return block_figure(view.setting, view.display)


@callback(Output(HEATMAPS, "figure"), Output(WORKED_TEXT, "children"), WORKED.input, WORKED_CELL.input,
          prevent_initial_call=True)
def update_heatmaps(controls, cell):
    """The per-head heatmaps with the selected cell outlined, and the sentence above them."""
    view, selected = WORKED.read(controls), WORKED_CELL.read(cell).cell
    if selection.only_the_cell_changed(WORKED_CELL, WORKED):
        return selection.outline_patch(selected, view.setting), no_update
    return selection.with_outline(heatmap_figure(view.setting, view.display), selected, view.setting), \
        worked_text(view.setting)


@callback(Output(CUBE, "figure"), CUBE_GATE.input, State(CUBE_FOCUS, "value"), prevent_initial_call=True)
def update_cube(controls, focus):
    """The cube, as a Patch of its `data` only, so the user's camera survives (dash 4.4.1 resets it on a
    whole new figure)."""
    s = CUBE_GATE.read(controls).setting
    cube = Patch()
    cube["data"] = fig.focus_planes(cube_data(s), limits.head_index(focus, s.h))
    return cube


def worked_text(s: Setting) -> str:
    """The seed's worked-example sentence for the chosen h and size, and where the largest weight is."""
    result = model(s)[1]
    A = result.A
    i, r, j = (int(x) for x in np.unravel_index(A.argmax(), A.shape))
    n, d, h = s.n, core.D_MODEL, s.h
    if s.weights == "random":
        # Translators: h heads (attention heads), each of d/h features
        here = ngettext("Here: n = {n} tokens in R^{d} (three clusters of {size}), h = {h} head with d/h = {d_k} per "
                        "head, tokens and weights drawn from seed {seed}.",
                        "Here: n = {n} tokens in R^{d} (three clusters of {size}), h = {h} heads with d/h = {d_k} per "
                        "head, tokens and weights drawn from seed {seed}.", h)
    else:
        here = ngettext("Here: n = {n} tokens in R^{d} (three clusters of {size}), h = {h} head with d/h = {d_k} per "
                        "head, weights: the learning lab's layer trained with h = {h} (training seed {training_seed}, "
                        "step {step}), on an input of its task drawn from seed {seed}.",
                        "Here: n = {n} tokens in R^{d} (three clusters of {size}), h = {h} heads with d/h = {d_k} per "
                        "head, weights: the learning lab's layer trained with h = {h} (training seed {training_seed}, "
                        "step {step}), on an input of its task drawn from seed {seed}.", h)
    here = here.format(n=n, d=d, size=s.size, h=h, d_k=d // h, seed=s.seed,
                       training_seed=limits.EXAMPLE_TRAINING_SEED, step=limits.TRAINING_STEPS[-1])
    largest = _("Each head computes its own attention matrix from its own Q_i K_iᵀ times the scale {scale:.3g}. "
                "The largest weight is {weight_name}[{r}, {j}] = {weight:.3f}, {ratio:.1f} times the 1/{n} = "
                "{uniform:.3f} that every key gets from a uniform row. Click any cell to see where its weight comes "
                "from.").format(scale=result.scale, weight_name=figures.head_label(i), r=r, j=j, weight=A[i, r, j],
                                ratio=A[i, r, j] * n, n=n, uniform=1 / n)
    return sentences(here, largest)


selection.clickable(HEATMAPS)
selection.clickable(CUBE)

# The head buttons follow the h the cube is drawn for (its gate's), so they come with its figure, after the figure
# looked at; a chosen head that no longer exists falls back to 'all'.
clientside_callback("cubeHeadOptions", Output(CUBE_FOCUS, "options"), Output(CUBE_FOCUS, "value"), CUBE_GATE.input,
                    State(CUBE_FOCUS, "value"), State(CONFIG, "data"), prevent_initial_call=True)
