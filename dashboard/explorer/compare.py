"""Two settings side by side (issue 35): a figure of the worked example for the page's setting and for another
that differs in h or the weights (h = 1 against h = 4, the seed's weights against the trained ones), in one frame
that the presenter view (P) shows whole. The address holds the choice (vs, vs_h, vs_weights), so a link or a
lecture plan's step opens the comparison."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, dcc, html

from .. import figures, limits
from ..attention import HEAD_CHOICES
from ..i18n import N_, _
from ..urls import url_param
from .controls import MODEL, ModelView
from .presenter import present_button
from .wiring import callback

COMPARE_FIGURE = "compare-figure"  # which figure: NONE or a key of FIGURES
NONE = "none"
COMPARE_H, COMPARE_WEIGHTS = "compare-h", "compare-weights"  # the other setting's h and weights
LEFT, RIGHT = "compare-left", "compare-right"
LEFT_TITLE, RIGHT_TITLE = "compare-left-title", "compare-right-title"
PAIR = "compare-pair"  # the frame, hidden until a figure is chosen
SIDES = "compare-sides"  # its two graphs, made when a figure is chosen (a graph with no figure never counts as drawn)
FIGURES = {"heatmaps": N_("the heads' attention"), "blocks": N_("Q, K and V, head by head"),
           "tokens": N_("the tokens")}
# Translators: the short names of the two kinds of weights, beside "h = 4" in a comparison's titles
WEIGHT_NAMES = {"random": N_("the seed's weights"), "trained": N_("trained weights")}
URL_PARAMS = [
    url_param("vs", COMPARE_FIGURE, NONE, choices=[NONE, *FIGURES], tab="example"),
    url_param("vs_h", COMPARE_H, 1, choices=HEAD_CHOICES, tab="example"),
    url_param("vs_weights", COMPARE_WEIGHTS, limits.DEFAULT_WEIGHTS, choices=list(limits.WEIGHTS), tab="example"),
]
MODEL_STORE = MODEL["example"]


def radios(component_id: str, options: dict, value, label: str) -> html.Fieldset:
    return html.Fieldset([html.Legend(label, className="small mb-0"),
                          dbc.RadioItems(id=component_id,
                                         options=[{"label": v, "value": k} for k, v in options.items()],
                                         value=value, inline=True, className="btn-group", inputClassName="btn-check",
                                         labelClassName="btn btn-sm btn-outline-primary",
                                         labelCheckedClassName="active")])


def side(title_id: str, title: str, graph_id: str, figure: dict) -> html.Div:
    return html.Div([html.P(title, id=title_id, className="compare-title"),
                     dcc.Graph(id=graph_id, figure=figure, config=figures.graph_config(graph_id))],
                    className="compare-side")


def layout() -> html.Div:
    return html.Div([
        html.H3(_("Two settings side by side"), className="h5"),
        html.P(_("The same figure for the page's setting, on the left, and for another h or other weights, on the "
                 "right, on one colour scale: the difference is what h or training changes. P shows both, full "
                 "screen."),
               className="small prose"),
        html.Div([
            html.Div([dbc.Label(_("the figure"), html_for=COMPARE_FIGURE, className="small mb-0 d-block"),
                      dbc.Select(id=COMPARE_FIGURE, value=NONE, size="sm", className="w-auto",
                                 options=[{"label": _("none"), "value": NONE},
                                          *({"label": _(name), "value": key} for key, name in FIGURES.items())])]),
            radios(COMPARE_H, {h: str(h) for h in HEAD_CHOICES}, 1, _("h on the right")),
            radios(COMPARE_WEIGHTS, {k: _(v) for k, v in WEIGHT_NAMES.items()}, limits.DEFAULT_WEIGHTS,
                   _("weights on the right")),
        ], className="d-flex flex-wrap gap-3 align-items-end mb-2"),
        # one frame for both, so that the presenter view shows them together (its button is made once: a new one
        # would fire the presenter's callback, as any new component of a pattern-matching input does)
        html.Div([present_button(LEFT), html.Div(id=SIDES, className="compare-sides")], id=PAIR,
                 className="figure-frame compare-pair", hidden=True),
    ], className="compare mt-4")


def title(s) -> str:
    # Translators: the title over each figure of a comparison: its setting, "h = 4, trained weights"
    return _("h = {h}, {weights}").format(h=s.h, weights=_(WEIGHT_NAMES[s.weights]))


def drawn(figure: str, s, display) -> dict:
    """The worked example's figure `figure` for setting s, from its own cached function."""
    from . import example  # the worked example holds this panel (its layout imports this module)

    if figure == "heatmaps":
        return example.heatmap_figure(s, display)
    if figure == "blocks":
        return example.block_figure(s, display)
    return example.token_figure(s.weights, s.seed, s.size, display)


def one_scale(left: dict, right: dict) -> tuple[dict, dict]:
    """Both figures on one colour scale, so that a colour means the same number on both sides (new dicts: the
    figures are cached). Figures without one (the tokens' scatter) stay as they are."""
    axes = [f["layout"].get("coloraxis") for f in (left, right)]
    if not all(axes):
        return left, right
    lo, hi = min(a["cmin"] for a in axes), max(a["cmax"] for a in axes)
    left, right = ({**f, "layout": {**f["layout"], "coloraxis": {**a, "cmin": lo, "cmax": hi}}}
                   for f, a in zip((left, right), axes))
    return left, right


@callback(output=dict(sides=Output(SIDES, "children"), hidden=Output(PAIR, "hidden")),
          inputs=dict(shared=MODEL_STORE.input, figure=Input(COMPARE_FIGURE, "value"), h=Input(COMPARE_H, "value"),
                      weights=Input(COMPARE_WEIGHTS, "value")),
          prevent_initial_call=True)
def compare(shared, figure, h, weights):
    """The chosen figure for the page's setting and for the other one, in the frame with their titles; an empty
    frame while no figure is chosen. Both halves take the page's display: in the presenter view, lecture mode's."""
    view = ModelView.parse(shared)
    figure = limits.choice(figure, (NONE, *FIGURES), N_("the figure"))
    other = view.setting._replace(h=limits.heads(h), weights=limits.weights(weights))
    if figure == NONE:
        return dict(sides=[], hidden=True)
    left, right = one_scale(drawn(figure, view.setting, view.display), drawn(figure, other, view.display))
    return dict(sides=[side(LEFT_TITLE, title(view.setting), LEFT, left),
                       side(RIGHT_TITLE, title(other), RIGHT, right)], hidden=False)
