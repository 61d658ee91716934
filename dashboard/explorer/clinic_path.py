"""The views that follow the clinic's bug past its heatmaps: where the wrong number comes from (the numbers on
the way to one weight and one output row, in both layers, and the first that differs) and the buggy layer's
forward pass. The export (explorer/export.py) takes the bug's layer too."""

from __future__ import annotations

from dash import Output, html

from .. import checks, i18n, limits
from ..figures import Display
from ..figures import explain as fig
from ..i18n import _
from ..state import SETTINGS_CACHED, Setting, bug_layers
from . import clinic_text as text
from .clinic_controls import (CLINIC_BUGGY, CLINIC_CELL, CLINIC_DEFAULT_CELL, CLINIC_HEAD, CLINIC_HEATMAPS, CLINIC_KEY,
                              CLINIC_QUERY, LAYERS, Layers, shown)
from .controls import MODEL, Cell, ModelView
from .selection import clickable
from .ui import alert, cell_inputs, graph, live_html
from .wiring import callback

CLINIC_PATH = "clinic-path"
CLINIC_FORWARD = "clinic-forward"

MODEL_STORE = MODEL["clinic"]


def layout() -> html.Div:
    return html.Div(
        [html.H3(_("Where does the wrong number come from?"), className="h5"),
         html.P(_("Click a cell of either layer's heatmaps, or choose it here: the numbers on the way to that weight "
                  "and to the query's output row, in both layers."), className="small mb-1"),
         cell_inputs((CLINIC_HEAD, CLINIC_QUERY, CLINIC_KEY), CLINIC_DEFAULT_CELL),
         live_html(CLINIC_PATH, className="clinic-path"),
         html.H3(_("The forward pass of the layer with the bug"), className="h5 mt-3"),
         html.P(_("V as the layer's heads read it, the concatenation [head₁ … headₕ], the W_O it was given and the "
                  "output it returned."), className="small mb-1"),
         graph(CLINIC_FORWARD)],
        className="mt-3",
    )


@i18n.lru_cache(maxsize=SETTINGS_CACHED)
def path_panel(s: Setting, bug_key: str, mystery: int, causal: bool, cell: tuple[int, int, int]) -> str:
    bug, label = shown(bug_key, mystery, causal)
    layers = bug_layers(s, bug.key, causal)
    return text.path(checks.wrong_number_path(layers.correct, layers.buggy, *cell), *cell, label,
                     anywhere=not checks.same_layer(layers.correct, layers.buggy))


@callback(Output(CLINIC_PATH, "children"), inputs=dict(shared=MODEL_STORE.input, layers=LAYERS, cell=CLINIC_CELL),
          prevent_initial_call=True)
def update_path(shared, layers, cell):
    """The path to the chosen cell in both layers, or what is wrong with the cell."""
    s, view = ModelView.parse(shared).setting, Layers.parse(**layers)
    selected, message = limits.cell(*Cell(**cell), s.h, s.n)
    if selected is None:
        return alert(message)
    return path_panel(s, *view, selected)


@i18n.lru_cache(maxsize=SETTINGS_CACHED)
def forward_figure(s: Setting, bug_key: str, mystery: int, causal: bool, display: Display) -> dict:
    layers = bug_layers(s, shown(bug_key, mystery, causal)[0].key, causal)
    layer = layers.buggy
    return fig.forward_figure(layer.V, layer.concat, layers.ex.W[3], layer.output, display,
                              V_title=_("V, as the heads read it"))


@callback(Output(CLINIC_FORWARD, "figure"), inputs=dict(shared=MODEL_STORE.input, layers=LAYERS),
          prevent_initial_call=True)
def update_forward(shared, layers):
    view = ModelView.parse(shared)
    return forward_figure(view.setting, *Layers.parse(**layers), view.display)


def export_state(s: Setting, bug_key: str, mystery: int, causal: bool) -> dict:
    """Both of the clinic's layers for "download JSON" and "download CSV": the bug's key (None in mystery mode,
    which gives its number instead), whether the layers are causal, and each layer's attention (h, n, n) and
    output (n, d) as nested lists."""
    bug = shown(bug_key, mystery, causal)[0]
    ex, correct, buggy = bug_layers(s, bug.key, causal)
    return {"bug": None if mystery else bug.key, "mystery": mystery, "causal": ex.causal,
            "correct": {"attention": correct.A.tolist(), "output": correct.output.tolist()},
            "with_bug": {"attention": buggy.A.tolist(), "output": buggy.output.tolist()}}


def csv_rows(clinic: dict):
    """The export's CSV rows for both layers: matrix (clinic_correct_attention, clinic_bug_output, …), head
    (blank for the outputs), row, column, value."""
    for layer, prefix in (("correct", "clinic_correct"), ("with_bug", "clinic_bug")):
        yield from ([f"{prefix}_attention", i + 1, r, c, repr(v)] for i, head in enumerate(clinic[layer]["attention"])
                    for r, line in enumerate(head) for c, v in enumerate(line))
        yield from ([f"{prefix}_output", "", r, c, repr(v)] for r, line in enumerate(clinic[layer]["output"])
                    for c, v in enumerate(line))


clickable(CLINIC_HEATMAPS, (CLINIC_HEAD, CLINIC_QUERY, CLINIC_KEY))
clickable(CLINIC_BUGGY, (CLINIC_HEAD, CLINIC_QUERY, CLINIC_KEY))
