"""The floor: a Dash app that only returns figures it computed at start-up.

The worked example's heatmaps and cube for every h and seed, as plain dicts with float32 typed
arrays, so its cost is Dash's own per-request overhead and Plotly's drawing. bench_load.py and
bench_interactions.py measure the real app against it in the same run.

    gunicorn -w 2 bench.floor_app:server
"""

import sys
from pathlib import Path
from urllib.parse import parse_qs

from dash import Dash, Input, Output, dcc, html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard import figures, limits  # noqa: E402
from dashboard.attention import HEAD_CHOICES, multi_head_attention, worked_example  # noqa: E402
from dashboard.figures import example  # noqa: E402

PRECOMPUTED = {}
for seed in limits.SEEDS:
    for h in HEAD_CHOICES:
        A = multi_head_attention(*worked_example(seed)[:5], h).A
        PRECOMPUTED[h, seed] = (example.attention_heatmaps(A),
                                {"data": example.cube_traces(A), "layout": example.cube_layout()})

app = Dash(__name__, compress=True, assets_folder=str(Path(__file__).parent / "no-assets"))
server = app.server
app.layout = html.Div([
    dcc.Location(id="url"),
    dcc.Dropdown(id="heads", options=list(HEAD_CHOICES), value=4, clearable=False, searchable=False),
    dcc.Dropdown(id="seed", options=list(limits.SEEDS), value=0, clearable=False),
    dcc.Graph(id="heatmaps", config=figures.GRAPH_CONFIG),
    dcc.Graph(id="cube", config=figures.GRAPH_CONFIG),
])


@app.callback(Output("heads", "value"), Output("seed", "value"), Input("url", "search"))
def open_state(search):
    """?h=8&seed=3 opens that state, as in the app, so both start an interaction from the same one."""
    query = parse_qs((search or "").lstrip("?"))
    h, seed = query.get("h", ["4"])[0], query.get("seed", ["0"])[0]
    return (int(h) if h in map(str, HEAD_CHOICES) else 4), (int(seed) if seed in map(str, limits.SEEDS) else 0)


@app.callback(Output("heatmaps", "figure"), Output("cube", "figure"), Input("heads", "value"), Input("seed", "value"))
def show(h, seed):
    return PRECOMPUTED[h, seed]
