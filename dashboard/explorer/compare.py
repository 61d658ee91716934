"""Two settings side by side (issue 35): a figure of the worked example for the page's setting and for another that
differs in h or the weights (h = 1 against h = 4, the seed's weights against the trained ones), made into one figure
(figures/compare.py) in one frame, so the presenter view (P) shows both. The address holds the choice (vs, vs_h,
vs_weights), so a link or a lecture plan's view opens the comparison.

It is drawn a round trip after a change of the model (ids.MODEL_LATER, as the drill-down's tables): the heatmaps
the student looks at come first."""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, ctx, html, no_update

from .. import limits
from ..attention import HEAD_CHOICES
from ..figures import compare as fig
from ..figures.example import cube_figure
from ..i18n import N_, _
from ..urls import url_param
from .controls import ModelView
from .ids import MODEL_LATER
from .ui import graph
from .wiring import callback

COMPARE_FIGURE = "compare-figure"  # which figure: NONE or a key of FIGURES
NONE = ""  # no figure compared: the address leaves ?vs= out (rules.writeParam)
COMPARE_H, COMPARE_WEIGHTS = "compare-h", "compare-weights"  # the other setting's h and weights
COMPARE = "compare"  # the graph: both settings in one figure
PAIR = "compare-pair"  # its frame's box, hidden while no figure is chosen
# the worked example's figures, in the page's order
FIGURES = {"tokens": N_("the tokens"), "blocks": N_("Q, K and V, head by head"), "forward": N_("the forward pass"),
           "forms": N_("the bilinear forms"), "logits": N_("the logits"), "heatmaps": N_("the heads' attention"),
           "influence": N_("each head's influence"), "layer": N_("the layer's influence"),
           "effects": N_("each head's effect"), "cube": N_("the attention cube")}
# Translators: the short names of the two kinds of weights, beside "h = 4" in a comparison's titles
WEIGHT_NAMES = {"random": N_("the seed's weights"), "trained": N_("trained weights")}
URL_PARAMS = [
    url_param("vs", COMPARE_FIGURE, NONE, choices=[NONE, *FIGURES], tab="example"),
    # the other setting, in the address only while a figure is compared
    url_param("vs_h", COMPARE_H, 1, choices=HEAD_CHOICES, tab="example", when=("vs", list(FIGURES))),
    url_param("vs_weights", COMPARE_WEIGHTS, limits.DEFAULT_WEIGHTS, choices=list(limits.WEIGHT_CHOICES), tab="example",
              when=("vs", list(FIGURES))),
]


def radios(component_id: str, options: dict, value, label: str) -> html.Fieldset:
    return html.Fieldset([html.Legend(label, className="small mb-0"),
                          dbc.RadioItems(id=component_id, value=value,
                                         options=[{"label": v, "value": k} for k, v in options.items()],
                                         inline=True, className="btn-group flex-wrap", inputClassName="btn-check",
                                         labelClassName="btn btn-sm btn-outline-primary",
                                         labelCheckedClassName="active")])


def layout() -> html.Div:
    return html.Div([
        html.H3(_("Two settings side by side"), className="h5"),
        html.P(_("The same figure for the page's setting and for another h or other weights, side by side (on a "
                 "phone, one above the other), on one colour scale. The trained weights come with their own task's "
                 "tokens: beside the seed's weights, both the weights and the input change. P shows both, full "
                 "screen."), className="small prose"),
        html.Div([
            radios(COMPARE_FIGURE, {NONE: _("none"), **{key: _(name) for key, name in FIGURES.items()}}, NONE,
                   _("the figure")),
            radios(COMPARE_H, {h: str(h) for h in HEAD_CHOICES}, 1, _("the other h")),
            radios(COMPARE_WEIGHTS, {k: _(v) for k, v in WEIGHT_NAMES.items()}, limits.DEFAULT_WEIGHTS,
                   _("the other weights")),
        ], className="d-flex flex-wrap gap-3 align-items-end mb-2"),
        # presented, it keeps its own height (assets/explorer.js fitHeight): stretched, a half's rows spread apart
        html.Div(graph(COMPARE, className="keeps-height"), id=PAIR, hidden=True),
    ], className="compare mt-4")


def title(s) -> str:
    # Translators: the title over each half of a comparison: its setting, "h = 4, trained weights"
    return _("h = {h}, {weights}").format(h=s.h, weights=_(WEIGHT_NAMES[s.weights]))


def drawn(figure: str, s, display) -> dict:
    """The worked example's figure `figure` (a key of FIGURES) for setting s, from its own cached function."""
    from . import example, forms, forward, influence  # the worked example holds this panel: it imports this module

    makers = {"tokens": lambda: example.token_figure(s.weights, s.seed, s.size, display),
              "heatmaps": lambda: example.heatmap_figure(s, display),
              "blocks": lambda: example.block_figure(s, display),
              "forward": lambda: forward.forward_view(s, display)[0],
              "forms": lambda: forms.forms_figures(s, display)[0],
              "logits": lambda: forms.forms_figures(s, display)[1],
              "influence": lambda: influence.influence_figures(s, display)[0],
              "layer": lambda: influence.influence_figures(s, display)[1],
              "effects": lambda: influence.heads_view(s, display)[0],
              "cube": lambda: cube_figure(example.cube_data(s), display)}
    return makers[figure]()


@callback(output=dict(figure=Output(COMPARE, "figure"), hidden=Output(PAIR, "hidden")),
          inputs=dict(shared=Input(MODEL_LATER, "data"), figure=Input(COMPARE_FIGURE, "value"),
                      h=Input(COMPARE_H, "value"), weights=Input(COMPARE_WEIGHTS, "value")),
          prevent_initial_call=True)
def compare(shared, figure, h, weights):
    """The chosen figure for the page's setting and for the other one, in the page's display (in the presenter
    view, lecture mode's); nothing drawn while no figure is chosen."""
    view = ModelView.parse(shared)
    figure = limits.choice(figure, (NONE, *FIGURES), N_("the figure"))
    other = view.setting._replace(h=limits.heads(h), weights=limits.weights(weights))
    if figure == NONE:  # hidden when "none" is chosen; a change of the model then draws nothing and hides nothing
        model_only = set(ctx.triggered_prop_ids) == {MODEL_LATER + ".data"}
        return dict(figure=no_update, hidden=no_update if model_only else True)
    half = view.display if view.display.narrow else view.display._replace(half=True)  # a phone stacks them
    pair = fig.side_by_side(drawn(figure, view.setting, half), drawn(figure, other, half),
                            (title(view.setting), title(other)), view.display)
    return dict(figure=pair, hidden=False)
