"""A class of 200 for 60 s against the class deployment (deploy/serve.py: nginx in front of gunicorn),
with 50 slow clients holding connections open all the while.

Each student does what the browser does: loads the page (the page, its scripts and styles, the layout,
the callback list and the first updates), then, after 1-5 s of thought each time, changes h or the seed,
switches tab, or presses "train" on a learning-tab seed and polls every 300 ms until the runs are ready.
A change asks for every figure of the tab shown, as if the student had scrolled through all of it (every callback
that reads the tab's store, explorer/controls.MODEL); a return to a tab whose controls did not change asks for
nothing, as in the browser (the store fills only when they differ).
The page loads are spread over the first 10 s, as a class arriving. Half the slow clients never finish
their headers, half never finish their bodies; each reconnects when the server drops it.

Prints errors, the p50 and p99 latency of real updates (answers with figures) and of all requests, and
the workers' memory at start, every 10 s and at the end (after every figure has been asked for twice, so the figure
caches are mostly full, as after a few minutes of class).

Run: python bench/bench_class.py [--seconds 60] [--students 200] [--slow 50]
"""

import argparse
import itertools
import os
import random
import re
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.processes import rss_mib, worker_rss_mib  # noqa: E402
from dashboard.attention import HEAD_CHOICES  # noqa: E402
from dashboard.limits import SEEDS, TABS, TRAINING_SEEDS  # noqa: E402
from tests.dash_requests import change_of_heads, press_train_body  # noqa: E402
from tests.test_hosting import SLOW_BODY, SLOW_HEADERS, Deployment  # noqa: E402
from tests.test_trainer import descendants  # noqa: E402

UPDATE = "/_dash-update-component"
HEADERS = {"Accept-Encoding": "br, gzip"}


class Class:
    """Students' results: (latency in s, real update?) per request, and the errors."""

    def __init__(self, base: str, until: float):
        self.base, self.until = base, until
        self.latencies, self.errors = [], []
        self.lock = threading.Lock()

    def request(self, session, method: str, path: str, body=None, update=False, decode=False):
        """One request, timed to its last byte. Unless asked to decode it, the answer is read as it came
        (compressed): the client's CPU is the server's too."""
        t = time.perf_counter()
        try:
            r = session.request(method, self.base + path, json=body, headers=HEADERS, timeout=10, stream=not decode)
            if not decode:
                r.raw.read(decode_content=False)
        except requests.RequestException as err:
            with self.lock:
                self.errors.append(type(err).__name__)
            return None
        latency = time.perf_counter() - t
        with self.lock:
            if r.status_code >= 400:
                self.errors.append(f"{r.status_code} {path}")
            self.latencies.append((latency, update and r.status_code == 200))  # 200: figures; 204: no update
        return r

    def page_load(self, session, seed: int) -> None:
        page = self.request(session, "GET", "/", decode=True)
        if page is None:
            return
        for asset in re.findall(r'(?:src|href)="(/(?:assets|_dash-component-suites)/[^"]+)"', page.text):
            self.request(session, "GET", asset)
        self.request(session, "GET", "/_dash-layout")
        self.request(session, "GET", "/_dash-dependencies")
        for body in change_of_heads(HEAD_CHOICES[0], seed):  # the first draw of the example tab, tokens included
            self.request(session, "POST", UPDATE, body, update=True)

    def train(self, session, seed: int) -> None:
        for polls in range(200):
            r = self.request(session, "POST", UPDATE, press_train_body(seed, polls), decode=True)
            if r is None or r.status_code != 200 or r.json()["response"].get("learn-ready", {}).get("data") == seed:
                return
            time.sleep(0.3)

    def student(self, rng: random.Random) -> None:
        session = requests.Session()
        h, seed, tab = HEAD_CHOICES[0], 0, "example"
        drawn = {tab: (h, seed)}  # the controls each tab last drew with: a return to an unchanged tab asks nothing
        time.sleep(rng.uniform(0, 10))
        self.page_load(session, seed)
        while time.monotonic() < self.until:
            time.sleep(rng.uniform(1, 5))
            action = rng.choice(["h", "seed", "tab", "train"])
            if action == "train":
                self.train(session, rng.choice(TRAINING_SEEDS[1:]))
                continue
            h = rng.choice(HEAD_CHOICES) if action == "h" else h
            seed = rng.choice(SEEDS) if action == "seed" else seed
            tab = rng.choice(list(TABS)) if action == "tab" else tab
            if drawn.get(tab) == (h, seed):
                continue
            drawn[tab] = (h, seed)
            for body in change_of_heads(h, seed, tab):  # as if the student had scrolled through the whole tab
                self.request(session, "POST", UPDATE, body, update=True)


def cpu_seconds(pids) -> float:
    """CPU time (user + system) the processes have used so far."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            total += sum(int(x) for x in f.read().rsplit(")", 1)[1].split()[11:13])
    return total / os.sysconf("SC_CLK_TCK")


def slow_clients(port: int, n: int, until: float) -> int:
    """Hold n connections that trickle a byte every 5 s and never finish; returns how often the server dropped one."""
    def connect(k):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(SLOW_HEADERS[:-4] if k % 2 == 0 else SLOW_BODY)
        s.setblocking(False)
        return s

    socks, dropped, last = [connect(k) for k in range(n)], 0, time.monotonic()
    while time.monotonic() < until:
        time.sleep(0.2)
        trickle = time.monotonic() - last > 5
        last = time.monotonic() if trickle else last
        for k, s in enumerate(socks):
            try:
                if s.recv(4096) == b"":
                    raise ConnectionResetError
            except BlockingIOError:  # still held open: nothing to read
                if trickle:
                    s.send(b"X" if k % 2 == 0 else b" ")
                continue
            except OSError:
                pass
            s.close()
            socks[k], dropped = connect(k), dropped + 1
    for s in socks:
        s.close()
    return dropped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--slow", type=int, default=50)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        d = Deployment(Path(tmp) / "serve.log")
        try:
            session = requests.Session()
            for _ in range(2):  # every figure, twice: each worker has most of them cached from the start
                for seed, h, tab in itertools.product(SEEDS, HEAD_CHOICES, ["example", "mixing"]):
                    for body in change_of_heads(h, seed, tab):
                        session.post(d.base + UPDATE, json=body, timeout=10)
            warm = Class(d.base, 0)
            for _ in range(4):  # and a few page loads: the first ones build what every later one reuses
                warm.page_load(requests.Session(), 0)
            master = d.gunicorn_pid()
            rss = [worker_rss_mib(master)]

            load, cpu = [os.getloadavg()[0]], [cpu_seconds(d.processes()), time.process_time()]
            until = time.monotonic() + args.seconds
            c = Class(d.base, until)
            slow_result = []
            slow = threading.Thread(target=lambda: slow_result.append(slow_clients(d.port, args.slow, until)))
            students = [threading.Thread(target=c.student, args=(random.Random(k),)) for k in range(args.students)]
            slow.start()
            time.sleep(1)  # the slow clients are in before the class arrives
            for s in students:
                s.start()
            while time.monotonic() < until:  # the workers' memory every 10 s
                time.sleep(min(10, max(0, until - time.monotonic())))
                rss.append(worker_rss_mib(master))
            for s in students + [slow]:
                s.join()
            load.append(os.getloadavg()[0])
            cpu = [cpu_seconds(d.processes()) - cpu[0], time.process_time() - cpu[1]]
            trainers = sum(rss_mib(p) for w in d.workers() for p in descendants(w))
        finally:
            d.stop()

    real = np.array([t for t, is_update in c.latencies if is_update]) * 1e3
    every = np.array([t for t, _ in c.latencies]) * 1e3
    print(f"{args.students} students and {args.slow} slow clients for {args.seconds} s against make serve "
          f"(nginx + gunicorn, 2 workers x 4 threads)")
    print(f"  this machine's load average (other jobs included): {load[0]:.1f} at start, {load[1]:.1f} at the end")
    print(f"  requests: {len(every)}, errors: {len(c.errors)} {sorted(set(c.errors))[:5]}")
    print(f"  real updates: {len(real)}, p50 {np.percentile(real, 50):.1f} ms, p99 {np.percentile(real, 99):.1f} ms")
    print(f"  all requests (page loads, assets, 204s, training polls): p50 {np.percentile(every, 50):.1f} ms, "
          f"p99 {np.percentile(every, 99):.1f} ms")
    print(f"  CPU used in those {args.seconds} s: the server (nginx, gunicorn, workers, trainers) {cpu[0]:.1f} s, "
          f"this bench's clients {cpu[1]:.1f} s, of the machine's {os.cpu_count() * args.seconds} s")
    print(f"  slow connections dropped by the server and reopened: {slow_result[0] if slow_result else '?'}")
    print(f"  workers' RSS (both together) every 10 s: {' -> '.join(f'{m:.0f}' for m in rss)} MiB; "
          f"their trainer children and resource trackers {trainers:.0f} MiB")


if __name__ == "__main__":
    main()
