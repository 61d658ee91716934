"""Server time and bytes on the wire for one change of h, and for one click on a cell, as the browser sends them.

A change of h sends one POST per server callback of the shown tab that reads the tab's store (explorer/controls.MODEL),
and the model bar's sentence (see tests/dash_requests.change_of_heads); hidden tabs' stores do not change, so they send
nothing. A click sends the shown tab's callbacks that read the cell, which answer with a Patch of the outlines.
Each request goes through the whole WSGI stack in-process (routing, validation,
callback, JSON, brotli), which is the server's share of an update.

Run: python bench/bench_update.py
"""

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboard import create_app  # noqa: E402
from dashboard import state  # noqa: E402
from dashboard.explorer import example, forms, forward  # noqa: E402
from tests.dash_requests import change_of_heads, change_of_model, click_on_cell  # noqa: E402

HEADERS = {"Accept-Encoding": "br, gzip"}


def one_change(client, h, seed):
    """(seconds, bytes on the wire incl. status line and headers) for every request of one change of h."""
    return send(client, change_of_heads(h, seed))


def send(client, bodies):
    """(seconds, bytes on the wire incl. status line and headers) for a list of callback requests."""
    elapsed, wire = 0.0, 0
    for body in bodies:
        data = json.dumps(body)
        t = time.perf_counter()
        r = client.post("/_dash-update-component", data=data, content_type="application/json", headers=HEADERS)
        payload = r.get_data()
        elapsed += time.perf_counter() - t
        assert r.status_code == 200, r.status_code  # every request of the shown tab draws
        wire += len(payload) + sum(len(k) + len(v) + 4 for k, v in r.headers.items()) + 17
    return elapsed, wire


APP = create_app()


def main(rounds: int = 300):
    client = APP.server.test_client()
    for label, h in [("h = 8", 8), ("h = 4", 4), ("h = 1", 1)]:
        cold = []
        for seed in range(20):
            for cached in (example.block_figure, example.heatmap_figure, example.cube_data, state.model, forms.forms_figures,
                           forward.forward_view):
                cached.cache_clear()
            cold.append(one_change(client, h, seed)[0])
        warm = [one_change(client, h, k % 100) for k in range(rounds)]
        times = sorted(t for t, _ in warm)
        print(f"{label}: server time p50 {statistics.median(times) * 1e3:.2f} ms, "
              f"p90 {times[int(0.9 * len(times))] * 1e3:.2f} ms (cached); "
              f"first time for a seed p50 {statistics.median(cold) * 1e3:.2f} ms; "
              f"wire {statistics.median(w for _, w in warm) / 1024:.1f} KiB "
              f"over {len(change_of_heads(h, 0))} requests")
    clicks = [send(client, click_on_cell(8, k % 100, 1 + k % 8, k % 12, (5 * k) % 12)) for k in range(rounds)]
    times = sorted(t for t, _ in clicks)
    print(f"click on a cell, h = 8: server time p50 {statistics.median(times) * 1e3:.2f} ms, "
          f"p90 {times[int(0.9 * len(times))] * 1e3:.2f} ms; wire {statistics.median(w for _, w in clicks) / 1024:.1f} KiB "
          f"over {len(click_on_cell(8, 0, 1, 0, 1))} requests")
    # a new temperature or size is a setting seen for the first time: nothing cached, every figure computed
    fresh = []
    for k in range(40):
        for cached in (state.model, example.block_figure, example.heatmap_figure, example.cube_data, example.token_figure,
                       forms.forms_figures, forward.forward_view):
            cached.cache_clear()
        fresh.append(send(client, change_of_model(8, k, size=16, scale="tau", tau=k % 21 - 10)))
    times = sorted(t for t, _ in fresh)
    print(f"change of scale or size, h = 8, n = 48, nothing cached: server time p50 {statistics.median(times) * 1e3:.1f}"
          f" ms, p90 {times[int(0.9 * len(times))] * 1e3:.1f} ms; wire {statistics.median(w for _, w in fresh) / 1024:.1f}"
          f" KiB over {len(change_of_model())} requests")


if __name__ == "__main__":
    main()
