"""The model bar: the softmax's scale and the number of tokens, beside h and the seed, drive every view
but the learning lab. Its sentence says why random weights attend almost evenly at the seed's scale."""

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
            html.Div([html.Label("temperature τ", htmlFor=TAU, id=f"{TAU}-label", className="small mb-0"),
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
    """Why the heatmaps look the way they do at this scale, from the live logits."""
    s = SCALE_GATE.read(controls).setting
    ex, r = model(s)
    spread = float(r.logits.std(axis=-1).mean())  # a typical row's standard deviation
    top = float(r.A.max(axis=-1).mean())  # a typical row's largest weight
    return (f"Scale {r.scale:.3g} × q·k: a row's logits spread by about {spread:.2f} (standard deviation), "
            f"so e^logit varies by a factor of about {np.exp(2 * spread):.1f} across a row, and a row's largest "
            f"weight is {top:.2f} on average against 1/{s.n} = {1 / s.n:.3f} for even attention. "
            + ("Random weights give small logits: the softmax stays flat. Raise τ to sharpen it."
               if spread < 0.5 else "Larger logits make the softmax sharper: each query picks fewer keys."))
