"""Export and share the current state: one JSON file of every matrix at full float64 precision, the same as
CSV, and a link that opens this very view. Plotly's own toolbar button makes PNGs, in the browser."""

from __future__ import annotations

import csv
import io
import json

import dash_bootstrap_components as dbc
from dash import Input, Output, State, ctx, dcc, html


from ..i18n import _
from ..state import Setting, model
from . import clinic_path, influence
from .clinic_controls import CLINIC_BUG, CLINIC_CAUSAL, MYSTERY, Layers
from .controls import SETTING_FIELDS
from .ids import SEL_HEAD, SEL_KEY, SEL_QUERY, TAB, URL
from .wiring import callback, clientside_callback

DOWNLOAD_JSON = "download-json"
DOWNLOAD_CSV = "download-csv"
DOWNLOAD = "download"
COPY_LINK = "copy-link"
LINK = "share-link"
LINK_STATUS = "share-status"
# what a download holds, by name: the model setting, the selected cell, the tab, and the clinic's layers
STATE = {"setting": {name: State(component, "value") for name, component in SETTING_FIELDS.items()},
         "cell": [State(SEL_HEAD, "value"), State(SEL_QUERY, "value"), State(SEL_KEY, "value")],
         "tab": State(TAB, "value"),
         "layers": {"bug": State(CLINIC_BUG, "value"), "mystery": State(MYSTERY, "value"),
                    "causal": State(CLINIC_CAUSAL, "value")}}


def layout() -> html.Div:
    return html.Div(
        [
            dbc.Button(_("download JSON"), id=DOWNLOAD_JSON, size="sm", color="secondary", outline=True),
            dbc.Button(_("download CSV"), id=DOWNLOAD_CSV, size="sm", color="secondary", outline=True),
            dbc.Button(_("copy link"), id=COPY_LINK, size="sm", color="secondary", outline=True),
            dbc.Label(_("link to this view"), html_for=LINK, className="visually-hidden"),
            dbc.Input(id=LINK, readonly=True, size="sm", className="share-link"),
            html.Span(id=LINK_STATUS, className="small", role="status"),
            dcc.Download(id=DOWNLOAD),
        ],
        className="d-flex flex-wrap align-items-center gap-2 export",
    )


def state_matrices(s: Setting, cell=(None, None, None)) -> dict:
    """The current state: the controls, and X, the weights, the attention cube and the output as nested lists."""
    ex, r = model(s)
    return {
        "h": s.h, "seed": s.seed, "weights": s.weights, "tokens_per_cluster": s.size, "n": s.n, "d": int(ex.X.shape[1]),
        "scale": {"choice": s.scale, "tau": s.temperature if s.scale == "tau" else None, "value": r.scale},
        "X": ex.X.tolist(), "W_Q": ex.W_Q.tolist(), "W_K": ex.W_K.tolist(), "W_V": ex.W_V.tolist(),
        "W_O": ex.W_O.tolist(), "attention": r.A.tolist(), "output": r.output.tolist(),
        **influence.export_state(s, cell),  # the influence arrays and the selected cell
    }


def filename(s: Setting, ending: str, clinic: dict | None = None) -> str:
    bug = "" if clinic is None else f"-mystery{clinic['mystery']}" if clinic["mystery"] else f"-{clinic['bug']}"
    return (f"attention-{s.weights}-h{s.h}-seed{s.seed}-n{s.n}-{s.scale}{s.tau if s.scale == 'tau' else ''}"
            f"{bug}.{ending}")


def as_csv(state: dict) -> str:
    """Long format, one value a line: matrix, head (blank but for the attention cube), row, column, value."""
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\n")
    rows.writerow(["matrix", "head", "row", "column", "value"])
    for name in ("X", "W_Q", "W_K", "W_V", "W_O", "output"):
        rows.writerows([name, "", r, c, repr(v)] for r, line in enumerate(state[name]) for c, v in enumerate(line))
    rows.writerows(["attention", i + 1, r, c, repr(v)] for i, head in enumerate(state["attention"])
                   for r, line in enumerate(head) for c, v in enumerate(line))
    rows.writerows(influence.csv_rows(state))
    if "clinic" in state:
        rows.writerows(clinic_path.csv_rows(state["clinic"]))
    return out.getvalue()


@callback(Output(DOWNLOAD, "data"),
          inputs=dict(json_clicks=Input(DOWNLOAD_JSON, "n_clicks"), csv_clicks=Input(DOWNLOAD_CSV, "n_clicks")),
          state=STATE, prevent_initial_call=True)
def download(json_clicks, csv_clicks, setting, cell, tab, layers):
    """json.dumps writes each float with Python's repr, which reads back to the same float64. On the bug clinic's
    tab the file holds the layer with the bug too."""
    s = Setting.parse(**setting)
    state = state_matrices(s, tuple(cell))
    if tab == "clinic":
        state["clinic"] = clinic_path.export_state(s, *Layers.parse(**layers))
    if ctx.triggered_id == DOWNLOAD_CSV:
        return {"content": as_csv(state), "filename": filename(s, "csv", state.get("clinic")), "type": "text/csv"}
    return {"content": json.dumps(state), "filename": filename(s, "json", state.get("clinic")),
            "type": "application/json"}


# The link shows in a box, and "copy link" copies it (or selects it where the browser allows no clipboard).
clientside_callback("shareLink", Output(LINK, "value"), Input(URL, "search"))
clientside_callback("copyLink", Output(LINK_STATUS, "children"), Input(COPY_LINK, "n_clicks"), State(LINK, "id"),
                    prevent_initial_call=True)
