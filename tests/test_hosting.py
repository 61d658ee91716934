"""Hosting for a class: the app under gunicorn over HTTP, and two instances behind nginx."""

import shlex
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import requests

from bench.bench_load import GUNICORN
from dashboard.attention import multi_head_attention, worked_example
from tests.conftest import free_port, start, stop, wait_until_up
from tests.dash_requests import example_body
from tests.util import decode

pytestmark = pytest.mark.server


def gunicorn(port: int, workers: int = 2) -> subprocess.Popen:
    cmd = shlex.split(GUNICORN.format(port=port, module="app:server").replace("--workers 2", f"--workers {workers}"))
    return start([sys.executable, "-m"] + cmd, f"http://127.0.0.1:{port}/healthz")


def update(base: str, h: int, seed: int) -> requests.Response:
    return requests.post(base + "/_dash-update-component", json=example_body(h, seed), timeout=10,
                         headers={"Accept-Encoding": "br, gzip"})


def assert_right_figures(r: requests.Response, h: int, seed: int) -> None:
    assert r.status_code == 200
    heat = r.json()["response"]["heatmaps"]["figure"]
    A = multi_head_attention(*worked_example(seed)[:5], h).A
    np.testing.assert_allclose([decode(t["z"]) for t in heat["data"]], A, rtol=1e-6)


def test_gunicorn_serves_the_app_over_http():
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = gunicorn(port)
    try:
        page = requests.get(base + "/", headers={"Accept-Encoding": "br, gzip"}, timeout=10)
        assert page.status_code == 200 and page.headers["Content-Encoding"] in ("br", "gzip")
        assert "unsafe-eval" not in page.headers["Content-Security-Policy"]
        script = requests.get(base + "/assets/plotly/plotly-custom.min.js?m=1", headers={"Accept-Encoding": "gzip"})
        assert script.headers["Content-Encoding"] == "gzip" and "immutable" in script.headers["Cache-Control"]
        assert requests.get(base + "/healthz", timeout=5).json() == {"status": "ok"}
        for h, seed in [(8, 0), (2, 99), (1, 5)]:
            assert_right_figures(update(base, h, seed), h, seed)
        bad = requests.post(base + "/_dash-update-component", data="{", timeout=5,
                            headers={"Content-Type": "application/json"})
        assert bad.status_code == 400
        assert update(base, "8", 0).status_code == 204
    finally:
        stop(proc)


NGINX_CONF = """
    worker_processes 1;
    pid {dir}/nginx.pid;
    error_log {dir}/error.log;
    events {{ worker_connections 256; }}
    http {{
        access_log off;
        client_body_temp_path {dir}/body;
        proxy_temp_path {dir}/proxy;
        fastcgi_temp_path {dir}/fastcgi;
        uwsgi_temp_path {dir}/uwsgi;
        scgi_temp_path {dir}/scgi;
        upstream explorer {{
            server 127.0.0.1:{a} max_fails=1 fail_timeout=30s;
            server 127.0.0.1:{b} max_fails=1 fail_timeout=30s;
        }}
        server {{
            listen 127.0.0.1:{port};
            location / {{
                proxy_pass http://explorer;
                proxy_next_upstream error timeout http_502 http_503 non_idempotent;
                proxy_connect_timeout 2s;
                add_header X-Upstream $upstream_addr always;
            }}
        }}
    }}
"""


def test_two_instances_behind_nginx_survive_losing_one(tmp_path):
    tmp_path.chmod(0o755)
    a, b, port = free_port(), free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    first, second = gunicorn(a, workers=1), gunicorn(b, workers=1)
    conf = tmp_path / "nginx.conf"
    conf.write_text(textwrap.dedent(NGINX_CONF.format(dir=tmp_path, a=a, b=b, port=port)))
    nginx = subprocess.Popen(["/usr/sbin/nginx", "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until_up(base + "/healthz", nginx)
        served_by = set()
        for k in range(12):
            r = update(base, 4, k)
            assert_right_figures(r, 4, k)
            served_by.add(r.headers["X-Upstream"])
        assert served_by == {f"127.0.0.1:{a}", f"127.0.0.1:{b}"}  # the load is shared

        stop(first)
        for k in range(12):
            r = update(base, 8, k)
            assert_right_figures(r, 8, k)  # stateless: the other instance answers every update
        assert requests.get(base + "/", timeout=10).status_code == 200
    finally:
        for proc in (nginx, first, second):
            if proc.poll() is None:
                stop(proc)
