"""A class at once: 30 clients posting updates for 30 s to gunicorn with 2 workers, with wrk.

Measures the real app (the class deployment's gunicorn, without nginx) and the floor app
(bench/floor_app.py, precomputed figures only) one after the other in the same
run, plus the workers' memory before and after. Needs Debian's wrk.

Run: python bench/bench_load.py [--seconds 30] [--clients 30]
"""

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dashboard.attention import HEAD_CHOICES  # noqa: E402
from tests.processes import worker_rss_mib  # noqa: E402
from deploy.serve import GUNICORN  # noqa: E402  (the class deployment's gunicorn, without nginx)
from tests.conftest import free_port, stop, wait_until_up  # noqa: E402
from tests.dash_requests import body, heatmaps_body  # noqa: E402


def run_wrk(url: str, bodies: list[dict], seconds: int, clients: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write("\n".join(json.dumps(b) for b in bodies))
    cmd = ["wrk", "-t2", f"-c{clients}", f"-d{seconds}s", "--timeout", "5s", "-s", str(ROOT / "bench/post.lua"), url]
    out = subprocess.run(cmd, capture_output=True, text=True, env={"BODIES": f.name}, check=True).stdout
    fields = dict(kv.split("=") for kv in re.search(r"RESULT (.*)", out).group(1).split())
    result = {k: float(v) for k, v in fields.items()}
    result["per_second"] = result["requests"] / result["seconds"]
    return result


def measure(module: str, bodies: list[dict], seconds: int, clients: int) -> dict:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = shlex.split(GUNICORN.format(port=port, module=module))
    proc = subprocess.Popen([sys.executable, "-m"] + cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_until_up(url + "/", proc)
        for b in bodies:  # every distinct request once, as a class would within a minute
            requests.post(url + "/_dash-update-component", json=b, timeout=10)
        run_wrk(url, bodies, 3, clients)  # warm-up
        rss_before = worker_rss_mib(proc.pid)
        result = run_wrk(url, bodies, seconds, clients)
        result["rss_before"], result["rss_after"] = rss_before, worker_rss_mib(proc.pid)
        return result
    finally:
        stop(proc)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--clients", type=int, default=30)
    args = parser.parse_args()

    ours = [heatmaps_body(h, seed) for seed in range(100) for h in HEAD_CHOICES]
    floor = [body([("heatmaps", "figure"), ("cube", "figure")], [("heads", "value", h), ("seed", "value", seed)])
             for seed in range(100) for h in HEAD_CHOICES]
    results = {}
    for name, module, bodies in [("floor", "bench.floor_app:server", floor), ("app", "app:server", ours)]:
        results[name] = r = measure(module, bodies, args.seconds, args.clients)
        print(f"{name:>5}: {r['per_second']:7.0f} updates/s, p50 {r['p50_ms']:.1f} ms, p90 {r['p90_ms']:.1f} ms, "
              f"p99 {r['p99_ms']:.1f} ms, errors {int(r['errors'])}, non-2xx {int(r['non2xx'])}; "
              f"workers' RSS {r['rss_before']:.0f} -> {r['rss_after']:.0f} MiB")
        time.sleep(1)
    print(f"app / floor throughput: {results['app']['per_second'] / results['floor']['per_second']:.2f}")


if __name__ == "__main__":
    main()
