"""The floor: a Dash app that only returns figures it computed at start-up.

Its callback looks up plain dicts with float32 typed arrays, so its cost is
Dash's own per-request overhead. bench_load.py and bench_browser.py measure
the real app against it in the same run.

    gunicorn -w 2 bench.floor_app:server
"""

import sys
from pathlib import Path

from dash import Dash, Input, Output, dcc, html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard import figures  # noqa: E402
from dashboard.attention import HEAD_CHOICES, multi_head_attention, worked_example  # noqa: E402
from dashboard.figures import example  # noqa: E402

PRECOMPUTED = {}
for h in HEAD_CHOICES:
    A = multi_head_attention(*worked_example(0)[:5], h).A
    PRECOMPUTED[h] = (example.attention_heatmaps(A), {"data": example.cube_traces(A), "layout": example.cube_layout()})

app = Dash(__name__, compress=True, assets_folder=str(Path(__file__).parent / "no-assets"))
server = app.server
app.layout = html.Div([
    dcc.Dropdown(id="heads", options=list(HEAD_CHOICES), value=4, clearable=False, searchable=False),
    dcc.Graph(id="heatmaps", config=figures.GRAPH_CONFIG),
    dcc.Graph(id="cube", config=figures.GRAPH_CONFIG),
])


@app.callback(Output("heatmaps", "figure"), Output("cube", "figure"), Input("heads", "value"))
def show(h):
    return PRECOMPUTED[h]
