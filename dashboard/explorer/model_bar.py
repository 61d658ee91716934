"""The model bar: the softmax's scale and the number of tokens, beside h and the seed, drive every view
but the learning lab. Its sentence says how sharp the softmax is at this scale, and why."""

from __future__ import annotations

import dash_bootstrap_components as dbc
import numpy as np
from dash import Output, dcc, html

from .. import limits
from ..state import model
from ..urls import url_param
from . import export
from .gate import SETTING, gate
from .ids import SCALE, SIZE, TAU, WEIGHTS
from .wiring import callback

MODEL_BAR = "model-bar"
TABS = ("example", "mixing", "equivariance", "clinic")  # the tabs the model bar drives (not the learning lab)
SCALE_GATE = gate("model-bar", TABS, {"setting": SETTING})
SCALE_TEXT = "scale-text"
URL_PARAMS = [
    url_param("weights", WEIGHTS, limits.DEFAULT_WEIGHTS, choices=limits.WEIGHTS),
    url_param("size", SIZE, limits.DEFAULT_SIZE, choices=limits.SIZES),
    url_param("scale", SCALE, limits.DEFAULT_SCALE, choices=limits.SCALES),
    url_param("tau", TAU, limits.DEFAULT_TAU_STEP, choices=limits.TAU_STEPS, when=("scale", "tau")),
]


def tau_label(step: int) -> str:
    return f"{10 ** (step / 10):.2g}"


def layout() -> html.Div:
    sizes = limits.SIZES
    return html.Div(
        [
            html.Fieldset([html.Legend("weights", className="small mb-0"),
                           dbc.RadioItems(id=WEIGHTS, options=[{"label": v, "value": k} for k, v in limits.WEIGHTS.items()],
                                          value=limits.DEFAULT_WEIGHTS, inline=True, className="small")],
                          className="model-control"),
            html.Div([html.Label("tokens per cluster", htmlFor=SIZE, id=f"{SIZE}-label", className="small mb-0"),
                      dcc.Slider(id=SIZE, min=sizes[0], max=sizes[-1], step=1, value=limits.DEFAULT_SIZE,
                                 marks={k: str(k) for k in (2, 4, 8, 12, 16)}, allow_direct_input=False,
                                 className="model-slider")],
                     className="model-control"),
            html.Fieldset([html.Legend("softmax scale", className="small mb-0"),
                           dbc.RadioItems(id=SCALE, options=[{"label": v, "value": k} for k, v in limits.SCALES.items()],
                                          value=limits.DEFAULT_SCALE, inline=True, className="small")],
                          className="model-control"),
            html.Div([html.Label("temperature τ (lower: sharper)", htmlFor=TAU, id=f"{TAU}-label",
                                 className="small mb-0"),
                      dcc.Slider(id=TAU, min=limits.TAU_STEPS[0], max=limits.TAU_STEPS[-1], step=1,
                                 value=limits.DEFAULT_TAU_STEP, marks={k: tau_label(k) for k in (-10, -5, 0, 5, 10)},
                                 allow_direct_input=False, className="model-slider")],
                     className="model-control"),
            html.P(id=SCALE_TEXT, className="small mb-0 scale-text", **{"aria-live": "polite"}),
            export.layout(),
        ],
        id=MODEL_BAR,
        className="model-bar mb-3",
    )


@callback(Output(SCALE_TEXT, "children"), SCALE_GATE.input, prevent_initial_call=True)
def update_scale_text(controls):
    """Why the heatmaps look the way they do at this scale, from the live scaled logits."""
    s = SCALE_GATE.read(controls).setting
    r = model(s)[1]
    spread = float(r.logits.std(axis=-1).mean())  # a typical row's standard deviation
    top = float(r.A.max(axis=-1).mean())  # a typical row's largest weight
    advice = ((f"{'Random weights' if s.weights == 'random' else 'These weights'} give small logits: the softmax "
               "stays nearly flat. Lower τ (the temperature scale) to sharpen it.") if spread < 0.5 else
              "Larger logits make the softmax sharper: each query picks fewer keys. Raise τ to flatten it.")
    return (f"Scale {r.scale:.3g} × q·k: a row's scaled logits, the softmax's input, spread by about {spread:.2f} "
            f"(standard deviation). On average a row's largest weight is {top:.2f}, against 1/{s.n} = {1 / s.n:.3f} "
            f"for even attention, and {times(weight_ratio(r.logits))} the row's smallest (e to the gap between their "
            f"scaled logits). " + advice)


def weight_ratio(logits: np.ndarray) -> float:
    """log10 of a row's largest weight over its smallest, e^(largest − smallest scaled logit), averaged over
    every head's rows: in logs, as with no scaling it can pass the largest float."""
    gaps = np.ptp(logits, axis=-1).ravel()
    return float((np.logaddexp.reduce(gaps) - np.log(gaps.size)) / np.log(10))


def times(log10: float) -> str:
    """A factor from its log10: 1.61 times, 274 times, 2.70e5 times."""
    if log10 < 3:
        return f"{10 ** log10:.3g} times"
    exponent = int(log10)
    return f"{10 ** (log10 - exponent):.2f}e{exponent} times"
