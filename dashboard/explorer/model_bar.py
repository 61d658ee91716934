"""The model bar: the softmax's scale and the number of tokens, beside h and the seed, drive every view
but the learning lab. Its sentence says how sharp the softmax is at this scale, and why."""

from __future__ import annotations

import dash_bootstrap_components as dbc
import numpy as np
from dash import Output, dcc, html

from .. import limits
from ..i18n import _, sentences, translated
from ..state import Setting, model
from ..urls import url_param
from . import export
from .controls import SETTING
from .ids import SCALE, SIZE, TAU, WEIGHTS
from .wiring import callback

MODEL_BAR = "model-bar"
MODEL_TABS = ("example", "mixing", "equivariance", "clinic")  # the tabs the model bar drives (not the learning lab)
DEFAULT_SETTING = Setting(limits.DEFAULT_HEADS, limits.DEFAULT_SEED)
SCALE_TEXT = "scale-text"
URL_PARAMS = [
    url_param("weights", WEIGHTS, limits.DEFAULT_WEIGHTS, choices=limits.WEIGHT_CHOICES),
    url_param("size", SIZE, limits.DEFAULT_SIZE, choices=limits.SIZES),
    url_param("scale", SCALE, limits.DEFAULT_SCALE, choices=limits.SCALES),
    url_param("tau", TAU, limits.DEFAULT_TAU_STEP, choices=limits.TAU_STEPS, when=("scale", "tau")),
]


def tau_label(step: int) -> str:
    return f"{10 ** (step / 10):.2g}"


def options(labels: dict) -> list[dict]:
    """Radio items from {value: label marked N_}."""
    return [{"label": label, "value": value} for value, label in translated(labels).items()]


def layout() -> html.Div:
    sizes = limits.SIZES
    return html.Div(
        [
            # Translators: the layer's weight matrices W_Q, W_K, W_V, W_O (not attention weights)
            html.Fieldset([html.Legend(_("weights"), className="small mb-0"),
                           dbc.RadioItems(id=WEIGHTS, options=options(limits.WEIGHT_CHOICES),
                                          value=limits.DEFAULT_WEIGHTS, inline=True, className="small")],
                          className="model-control"),
            html.Div([html.Label(_("tokens per cluster"), htmlFor=SIZE, id=f"{SIZE}-label", className="small mb-0"),
                      dcc.Slider(id=SIZE, min=sizes[0], max=sizes[-1], step=1, value=limits.DEFAULT_SIZE,
                                 marks={k: str(k) for k in (2, 4, 8, 12, 16)}, allow_direct_input=False,
                                 className="model-slider")],
                     className="model-control"),
            html.Fieldset([html.Legend(_("softmax scale"), className="small mb-0"),
                           dbc.RadioItems(id=SCALE, options=options(limits.SCALES),
                                          value=limits.DEFAULT_SCALE, inline=True, className="small")],
                          className="model-control"),
            html.Div([html.Label(_("temperature τ (lower: sharper)"), htmlFor=TAU, id=f"{TAU}-label",
                                 className="small mb-0"),
                      dcc.Slider(id=TAU, min=limits.TAU_STEPS[0], max=limits.TAU_STEPS[-1], step=1,
                                 value=limits.DEFAULT_TAU_STEP, marks={k: tau_label(k) for k in (-10, -5, 0, 5, 10)},
                                 allow_direct_input=False, className="model-slider")],
                     className="model-control"),
            html.P(scale_sentence(DEFAULT_SETTING), id=SCALE_TEXT, className="small mb-0 scale-text",
                   **{"aria-live": "polite"}),
            export.layout(),
        ],
        id=MODEL_BAR,
        className="model-bar mb-3",
    )


@callback(Output(SCALE_TEXT, "children"), inputs=dict(setting=SETTING), prevent_initial_call=True)
def update_scale_text(setting):
    """The sentence for the setting. The layout holds the default setting's, the page's largest text, so a load
    paints it with the page (Lighthouse's LCP), and a link to another setting replaces it with its own."""
    return scale_sentence(Setting.parse(**setting))


def scale_sentence(s: Setting) -> str:
    """Why the heatmaps look the way they do at this scale, from the live scaled logits."""
    r = model(s).result
    spread = float(r.logits.std(axis=-1).mean())  # a typical row's standard deviation
    top = float(r.A.max(axis=-1).mean())  # a typical row's largest weight
    if spread >= 0.5:
        advice = _("Larger logits make the softmax sharper: each query picks fewer keys. Raise τ to flatten it.")
    elif s.weights == "random":
        advice = _("Random weights give small logits: the softmax stays nearly flat. Lower τ (the temperature scale) "
                   "to sharpen it.")
    else:
        advice = _("These weights give small logits: the softmax stays nearly flat. Lower τ (the temperature scale) "
                   "to sharpen it.")
    # Translators: {factor} is a number such as 1.61, 274 or 2.70e5
    text = _("Scale {scale:.3g} × q·k: a row's scaled logits, the softmax's input, spread by about {spread:.2f} "
             "(standard deviation). On average a row's largest weight is {top:.2f}, against 1/{n} = {uniform:.3f} "
             "for even attention, and {factor} times the row's smallest (e to the gap between their scaled "
             "logits).").format(scale=r.scale, spread=spread, top=top, n=s.n, uniform=1 / s.n,
                                factor=factor(weight_ratio(r.logits)))
    return sentences(text, advice)


def weight_ratio(logits: np.ndarray) -> float:
    """log10 of a row's largest weight over its smallest, e^(largest − smallest scaled logit), averaged over
    every head's rows: in logs, as with no scaling it can pass the largest float."""
    gaps = np.ptp(logits, axis=-1).ravel()
    return float((np.logaddexp.reduce(gaps) - np.log(gaps.size)) / np.log(10))


def factor(log10: float) -> str:
    """A factor from its log10: 1.61, 274, 2.70e5."""
    if log10 < 3:
        return f"{10 ** log10:.3g}"
    exponent = int(log10)
    return f"{10 ** (log10 - exponent):.2f}e{exponent}"
