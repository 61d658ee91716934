"""Server time and bytes on the wire for one change of h, as the browser sends it.

A change of h triggers one POST per server callback whose outputs are on the page
(see tests/dash_requests.change_of_heads); the callbacks of hidden tabs answer 204.
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
from dashboard.views import common, example  # noqa: E402
from tests.dash_requests import change_of_heads  # noqa: E402

HEADERS = {"Accept-Encoding": "br, gzip"}


def one_change(client, h, seed):
    """(seconds, bytes on the wire incl. status line and headers) for every request of one change of h."""
    elapsed, wire = 0.0, 0
    for body in change_of_heads(h, seed):
        data = json.dumps(body)
        t = time.perf_counter()
        r = client.post("/_dash-update-component", data=data, content_type="application/json", headers=HEADERS)
        payload = r.get_data()
        elapsed += time.perf_counter() - t
        assert r.status_code in (200, 204), r.status_code
        wire += len(payload) + sum(len(k) + len(v) + 4 for k, v in r.headers.items()) + 17
    return elapsed, wire


def main(rounds: int = 300):
    client = create_app().server.test_client()
    for label, h in [("h = 8", 8), ("h = 4", 4), ("h = 1", 1)]:
        cold = []
        for seed in range(20):
            example.example_figures.cache_clear(), example.cube_data.cache_clear(), common.model.cache_clear()
            cold.append(one_change(client, h, seed)[0])
        warm = [one_change(client, h, k % 100) for k in range(rounds)]
        times = sorted(t for t, _ in warm)
        print(f"{label}: server time p50 {statistics.median(times) * 1e3:.2f} ms, "
              f"p90 {times[int(0.9 * len(times))] * 1e3:.2f} ms (cached); "
              f"first time for a seed p50 {statistics.median(cold) * 1e3:.2f} ms; "
              f"wire {statistics.median(w for _, w in warm) / 1024:.1f} KiB "
              f"over {len(change_of_heads(h, 0))} requests")


if __name__ == "__main__":
    main()
