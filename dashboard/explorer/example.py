"""Worked example: the tokens, Q/K/V and their column blocks, the operator through W_O, the bilinear forms,
the per-head attention matrices with the drill-down of one weight, and the cube, in the seed's order."""

from __future__ import annotations

import numpy as np
from dash import Input, Output, Patch, State, ctx, dcc, html, no_update

from .. import attention as core
from .. import figures, limits, margins
from ..figures import Display
from ..figures import example as fig
from ..i18n import N_, _, lru_cache, ngettext, sentences
from ..state import SETTINGS_CACHED, Setting, model, tokens
from . import compare, drilldown, forms, forward, influence, predict, selection, summary
from .controls import CELL, MODEL, Cell, ModelView
from .ids import HEATMAPS, MODEL_LATER, section_id
from .slides import frame_buttons
from .ui import (DRAWN, NEAR_KEPT, came_near, follow_h, graph, head_buttons, markdown, near_button, near_id, near_outputs,
                 text_beside_view, waiting)
from .wiring import callback

TOKENS = "tokens"
BLOCKS = "blocks"
WORKED_TEXT = "worked-text"
CUBE = "cube"
CUBE_FOCUS = "cube-focus"
# a preset camera's button, by its name in fig.CUBE_CAMERAS (plain ids: server.guard admits no pattern-matching one)
CUBE_CAMERA = {view: f"cube-camera-{view}" for view in fig.CUBE_CAMERAS}
URL_PARAMS = [*drilldown.URL_PARAMS, *compare.URL_PARAMS]


MODEL_STORE = MODEL["example"]


NO_WEBGL = N_("This browser cannot draw the 3-D stack: it has no WebGL. The heatmaps above show the same weights, "
              "head by head, and every other figure works without it.")


def layout() -> html.Section:
    return html.Section([
            MODEL_STORE.store(),
            markdown("intro"),
            text_beside_view(["single_head"], graph(TOKENS, waits=True)),
            text_beside_view(["block_structure"], graph(BLOCKS, waits=True)),
            forward.layout(),
            predict.hides([forms.layout()], 0),
            markdown("worked_example"),
            html.P(id=WORKED_TEXT, className="prose live-text"),
            predict.store(),
            graph(HEATMAPS, className="mb-2"),
            dcc.Store(id=MODEL_LATER),
            predict.hides([summary.layout(), drilldown.layout(), influence.layout()], 1),
            text_beside_view(
                ["cube"],
                [head_buttons(CUBE_FOCUS, _("bring forward"), include_all=True, focuses=CUBE),
                 html.Div([near_button(CUBE), frame_buttons(CUBE), camera_buttons(),
                           dcc.Graph(id=CUBE, figure={"data": [], "layout": fig.cube_layout()},
                                     config=figures.graph_config(), className="webgl-figure"),
                           # shown by CSS in place of plotly's English notice (and its link off the machine)
                           html.P(_(NO_WEBGL), className="no-webgl-notice", role="status")],
                          className="figure-frame")],
            ),
            compare.layout(),
    ], id=section_id("example"))


@lru_cache(maxsize=SETTINGS_CACHED)
def token_figure(weights: str, seed: int, size: int, display: Display) -> dict:
    return fig.token_views(*tokens(weights, seed, size), display)


@lru_cache(maxsize=SETTINGS_CACHED)
def block_figure(s: Setting, display: Display) -> dict:
    r = model(s).result
    return fig.block_views(r.Q, r.K, r.V, display)


@lru_cache(maxsize=SETTINGS_CACHED)
def heatmap_figure(s: Setting, display: Display) -> dict:
    return fig.attention_heatmaps(model(s).result.A, display)


@lru_cache(maxsize=SETTINGS_CACHED)
def cube_data(s: Setting) -> list[dict]:
    return fig.cube_traces(model(s).result.A)


@callback(output=dict(figure=Output(TOKENS, "figure"), **near_outputs(TOKENS)),
          inputs=dict(shared=MODEL_STORE.input, near=Input(near_id(TOKENS), "n_clicks")), prevent_initial_call=True)
def update_tokens(shared, near):
    """The tokens, in their own cache: they depend on neither h nor the scale. Drawn near the screen (ui.waiting)."""
    view = ModelView.parse(shared)
    if not came_near(TOKENS):
        return dict(figure=no_update, **waiting(shared))
    s = view.setting
    return dict(figure=token_figure(s.weights, s.seed, s.size, view.display), **DRAWN)


@callback(output=dict(figure=Output(BLOCKS, "figure"), **near_outputs(BLOCKS)),
          inputs=dict(shared=MODEL_STORE.input, near=Input(near_id(BLOCKS), "n_clicks")), prevent_initial_call=True)
def update_blocks(shared, near):
    """Q, K and V with their h column blocks. Drawn near the screen (ui.waiting)."""
    view = ModelView.parse(shared)
    if not came_near(BLOCKS):
        return dict(figure=no_update, **waiting(shared))
    return dict(figure=block_figure(view.setting, view.display), **DRAWN)


PREDICTING = dict(hidden=Input(predict.PREDICT, "data"))


@callback(Output(HEATMAPS, "figure"), inputs=dict(shared=MODEL_STORE.input, cell=CELL, **PREDICTING),
          prevent_initial_call=True)
def update_heatmaps(shared, cell, hidden=None):
    """The per-head heatmaps with the selected cell outlined, and covered while the class predicts it (predict.py);
    a click or a key that hides or shows patches the outline and the cover and redraws nothing."""
    view, selected = ModelView.parse(shared), Cell(**cell)
    if selection.only_the_cell_changed({**CELL, **PREDICTING}):  # a click, or a key that hides or shows
        return predict.on_grid(selected, hidden, view.setting, cover_changed=selection.fired(PREDICTING))
    return predict.on_grid(selected, hidden, view.setting, heatmap_figure(view.setting, view.display))


# The drill-down and the summary ask for their tables a round trip after a change of the model (MODEL_LATER), not
# with the heatmaps: their 200 or so new components, applied with the heatmaps' answer, held its draw back. Measured
# after a change of h 2 -> 8 scrolled to the heatmaps (2026-12-07, a trace of one change): Plotly began to draw the
# heatmaps 0.93 to 1.52 s after the click when the three answered together, 0.45 to 0.71 s with the two a round trip
# later. Later, not after the heatmaps: a setting not yet cached may still be computing. A click asks for the
# drill-down at once: it does not change the model.
@callback(Output(MODEL_LATER, "data"), inputs=dict(shared=MODEL_STORE.input), prevent_initial_call=True)
def relay_model(shared):
    """The tab's controls as they are, once checked (a forged store passes nothing on)."""
    ModelView.parse(shared)
    return shared


@callback(Output(WORKED_TEXT, "children"), inputs=dict(shared=MODEL_STORE.input), prevent_initial_call=True)
def update_worked_text(shared):
    return worked_text(ModelView.parse(shared).setting)


def camera_buttons() -> html.Div:
    """The cube's preset cameras: the planes as a stack, from the front, the side and the top. They sit in the
    figure's frame, top right, so the presenter view has them too (assets/site/presenter.css)."""
    # Translators: buttons that turn the 3-D cube: its head planes as a stack, seen from the front, side, top
    names = {"stack": _("stack"), "front": _("front"), "side": _("side"), "top": _("top")}
    return html.Div(
        [html.Button(label, id=CUBE_CAMERA[view], type="button",
                     className="btn btn-sm btn-outline-secondary") for view, label in names.items()],
        # Translators: the name of a group of buttons that turn the 3-D cube to a preset view
        role="group", className="btn-group cube-cameras", **{"aria-label": _("turn the cube")})


@callback(output=dict(cube=Output(CUBE, "figure"), options=Output(CUBE_FOCUS, "options"),
                      focus=Output(CUBE_FOCUS, "value"), **near_outputs(CUBE)),
          inputs=dict(shared=MODEL_STORE.input, focus=Input(CUBE_FOCUS, "value"),
                      near=Input(near_id(CUBE), "n_clicks")),
          state=dict(drawn=State(near_id(CUBE), "disabled")), prevent_initial_call=True)
def update_cube(shared, focus, near, drawn):
    """The cube, as a Patch of its `data` and of the text the display sizes (fig.cube_scene_text), so the
    camera survives (dash 4.4.1 resets it on a whole new figure); a head button brings its plane forward the
    same way. Its head buttons follow h in the same answer (a head that no longer exists falls back to 'all').

    It draws near the screen (ui.waiting), as the tab's other figures but the heatmaps: its WebGL draw is the
    page's longest task, 1.7 s of the main thread at load in software WebGL (SwiftShader, a school laptop
    without a GPU driver), while the page settled in 7.7 s."""
    view = ModelView.parse(shared)
    unchanged = dict(cube=no_update, options=no_update, focus=no_update)
    head_button = set(ctx.triggered_prop_ids) == {f"{CUBE_FOCUS}.value"}
    if head_button and not drawn:  # a waiting cube draws the chosen head when it comes near
        return {**unchanged, **NEAR_KEPT}
    if not (head_button or came_near(CUBE)):  # a change of the model
        return {**unchanged, **waiting(shared)}
    s = view.setting
    options, chosen = follow_h(s.h, focus, include_all=True)
    cube = Patch()
    cube["data"] = fig.focus_planes(cube_data(s), limits.head_index(focus if chosen is no_update else chosen, s.h))
    text = fig.cube_scene_text(view.display, s.h)
    cube["layout"]["font"] = text.pop("font")
    for key, value in text.items():
        cube["layout"]["scene"][key] = value
    return dict(cube=cube, options=options, focus=chosen, **DRAWN)


@callback(Output(CUBE, "figure", allow_duplicate=True),
          inputs=dict(presses={view: Input(i, "n_clicks") for view, i in CUBE_CAMERA.items()}),
          prevent_initial_call=True)
def turn_cube(presses):
    """A preset camera, as a Patch of layout.scene.camera: nothing else redraws. Its scene.uirevision names the
    press, so a second press of the same button after a drag turns the cube back (an unchanged uirevision would
    keep the dragged camera)."""
    pressed = {view for view, i in CUBE_CAMERA.items() if i == ctx.triggered_id}
    view = pressed.pop() if pressed else None
    count = presses.get(view) if isinstance(presses, dict) else None
    if view not in fig.CUBE_CAMERAS or not isinstance(count, int) or isinstance(count, bool) or count < 1:
        return no_update
    cube = Patch()
    cube["layout"]["scene"]["camera"] = fig.CUBE_CAMERAS[view]
    cube["layout"]["scene"]["uirevision"] = f"{view} {count}"
    return cube


def worked_text(s: Setting) -> str:
    """The seed's worked-example sentence for the chosen h and size, and the largest weight: named as the largest
    only when it beats every other weight by more than margins.WEIGHT, else with how many are that close."""
    result = model(s).result
    A = result.A
    c = margins.compare(A, margins.WEIGHT)
    i, r, j = (int(x) for x in np.unravel_index(c.best, A.shape))
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
                       training_seed=limits.EXAMPLE_TRAINING_SEED, step=limits.SNAPSHOT_STEPS[-1])
    values = dict(scale=result.scale, weight_name=figures.head_label(i), r=r, j=j, weight=A[i, r, j],
                  ratio=A[i, r, j] * n, n=n, uniform=1 / n, margin=margins.WEIGHT, others=len(c.close) - 1)
    if c.clear:
        largest = _("Each head computes its own attention matrix from its own Q_i K_iᵀ times the scale {scale:.3g}. "
                    "The largest weight is {weight_name}[{r}, {j}] = {weight:.3f}, more than {margin} above the next "
                    "({next:.3f}), and {ratio:.1f} times the 1/{n} = {uniform:.3f} that every key gets from a uniform "
                    "row. Click any cell to see where its weight comes from.").format(next=A.flat[c.runner_up],
                                                                                       **values)
    else:
        # Translators: {others} counts the other attention weights within the margin of the largest one
        largest = ngettext("Each head computes its own attention matrix from its own Q_i K_iᵀ times the scale "
                           "{scale:.3g}. No weight is clearly the largest: {others} other is within {margin} of the "
                           "largest, {weight_name}[{r}, {j}] = {weight:.3f}, which is {ratio:.1f} times the 1/{n} = "
                           "{uniform:.3f} that every key gets from a uniform row. Click any cell to see where its "
                           "weight comes from.",
                           "Each head computes its own attention matrix from its own Q_i K_iᵀ times the scale "
                           "{scale:.3g}. No weight is clearly the largest: {others} others are within {margin} of the "
                           "largest, {weight_name}[{r}, {j}] = {weight:.3f}, which is {ratio:.1f} times the 1/{n} = "
                           "{uniform:.3f} that every key gets from a uniform row. Click any cell to see where its "
                           "weight comes from.", values["others"]).format(**values)
    return sentences(here, largest)


selection.clickable(HEATMAPS)
selection.clickable(CUBE)
