"""The learning lab's cost: one training run, the app's start-up, and a class pressing "train".

Under gunicorn (2 workers), 30 clients post worked-example updates with wrk for 20 s while
9 other clients each press "train" on a different, not yet trained seed at the same moment and
poll as the page does. Prints when their runs were ready, and the example updates' latency meanwhile.

Run: python bench/bench_training.py
"""

import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_load import GUNICORN, run_wrk  # noqa: E402
from dashboard import training  # noqa: E402
from dashboard.attention import HEAD_CHOICES  # noqa: E402
from dashboard.limits import TRAINING_SEEDS  # noqa: E402
from tests.conftest import free_port, stop, wait_until_up  # noqa: E402
from tests.dash_requests import heatmaps_body, press_train_body  # noqa: E402


def main():
    for h in HEAD_CHOICES:
        t = time.perf_counter()
        run = training.train(h, 1)
        print(f"train h = {h}: {time.perf_counter() - t:.2f} s, test MSE {run.test_loss:.4f}")

    start = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import app; "
                            "print(f'{time.perf_counter() - t:.2f}')"], cwd=ROOT, capture_output=True, text=True)
    print(f"start-up (import app: build the layout, train the default seed): {start.stdout.strip()} s")

    phase(with_load=False)
    phase(with_load=True)


def phase(with_load: bool) -> None:
    """A fresh server; 9 students press "train" on 9 untrained seeds at once, with or without
    30 other clients posting example updates non-stop."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m"] + shlex.split(GUNICORN.format(port=port, module="app:server")),
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(url + "/", proc)
        latencies = {}

        def press_train(seed):
            """Press "train", then poll every 300 ms as the page does, until the runs are ready."""
            t, polls, slowest = time.perf_counter(), 0, 0.0
            while True:
                sent = time.perf_counter()
                r = requests.post(url + "/_dash-update-component", json=press_train_body(seed, polls), timeout=60)
                slowest = max(slowest, time.perf_counter() - sent)
                if r.status_code != 200 or r.json()["response"].get("learn-ready", {}).get("data") == seed:
                    break
                polls += 1
                time.sleep(0.3)
            latencies[seed] = (time.perf_counter() - t, r.status_code, slowest)

        bodies = [heatmaps_body(h, seed) for seed in range(100) for h in HEAD_CHOICES]
        for b in bodies:
            requests.post(url + "/_dash-update-component", json=b, timeout=10)
        presses = [threading.Thread(target=press_train, args=(s,)) for s in TRAINING_SEEDS[1:]]
        if with_load:
            timer = threading.Timer(2.0, lambda: [p.start() for p in presses])
            timer.start()
            result = run_wrk(url, bodies, 20, 30)
        else:
            for p in presses:
                p.start()
        for p in presses:
            p.join()
        ready = sorted(t for t, _, _ in latencies.values())
        codes = sorted({c for _, c, _ in latencies.values()})
        print(f"{'with' if with_load else 'without'} 30 clients posting updates: {len(presses)} untrained seeds "
              f"pressed at once, runs ready after median {ready[len(ready) // 2]:.1f} s, at worst {ready[-1]:.1f} s; "
              f"slowest single request {max(s for _, _, s in latencies.values()) * 1e3:.0f} ms; status {codes}")
        if with_load:
            print(f"  meanwhile the 30 clients' example updates: {result['per_second']:.0f}/s, "
                  f"p50 {result['p50_ms']:.0f} ms, p99 {result['p99_ms']:.0f} ms, errors {int(result['errors'])}, "
                  f"non-2xx {int(result['non2xx'])}")
    finally:
        stop(proc)

if __name__ == "__main__":
    main()
