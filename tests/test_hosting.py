"""Hosting for a class: the class deployment (deploy/serve.py: nginx in front of gunicorn) as a class,
an attacker and bad luck see it; and two instances behind nginx."""

import os
import shlex
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import requests

from deploy.serve import GUNICORN
from tests.processes import worker_rss_mib
from dashboard.attention import multi_head_attention, worked_example
from tests.conftest import ROOT, free_port, start, stop, wait_until_up
from tests.dash_requests import heatmaps_body, press_train_body
from tests.test_trainer import alive, descendants, wait_until
from tests.util import decode

pytestmark = pytest.mark.server


def gunicorn(port: int, workers: int = 2) -> subprocess.Popen:
    cmd = shlex.split(GUNICORN.format(port=port, module="app:server").replace("--workers 2", f"--workers {workers}"))
    return start([sys.executable, "-m"] + cmd, f"http://127.0.0.1:{port}/healthz")


class Deployment:
    """`make serve` on free ports of 127.0.0.1, its output in a file (a pipe nobody reads would fill up)."""

    def __init__(self, log_path, env: dict | None = None, port: int | None = None):
        self.port, self.app_port = port or free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "deploy/serve.py", "--host", "127.0.0.1", "--port", str(self.port),
                                      "--app-port", str(self.app_port)], cwd=ROOT, stdout=self.log, stderr=self.log,
                                     env={**os.environ, **(env or {})})
        wait_until_up(self.base + "/healthz", self.proc, timeout=90)  # start-up trains seed 0: slow on a busy machine
        self.seen = set()  # every process of the deployment seen while it ran

    def processes(self) -> set[int]:
        self.seen |= descendants(self.proc.pid) | {self.proc.pid}
        return descendants(self.proc.pid)

    def gunicorn_pid(self) -> int:
        return next(p for p in self.processes() if b"gunicorn" in cmdline(p) and p_parent(p) == self.proc.pid)

    def workers(self) -> set[int]:
        master = self.gunicorn_pid()
        return {p for p in self.processes() if p_parent(p) == master}

    def trainers(self) -> dict[int, int]:
        """{trainer pid: its worker's pid}."""
        workers = self.workers()
        return {p: p_parent(p) for p in self.processes() if p_parent(p) in workers and b"spawn_main" in cmdline(p)}

    def stop(self):
        self.processes()
        stop(self.proc)
        self.log.close()


def cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def p_parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except FileNotFoundError:
        return 0


@pytest.fixture
def deployment(tmp_path):
    d = Deployment(tmp_path / "serve.log")
    yield d
    d.stop()
    left = [p for p in d.seen if alive(p)]
    assert not left, f"left behind: {[cmdline(p) for p in left]}"  # nginx, gunicorn, workers, trainers


def update(base: str, h: int, seed: int, timeout: float = 10) -> requests.Response:
    return requests.post(base + "/_dash-update-component", json=heatmaps_body(h, seed), timeout=timeout,
                         headers={"Accept-Encoding": "br, gzip"})


def assert_right_figures(r: requests.Response, h: int, seed: int) -> None:
    assert r.status_code == 200
    heat = r.json()["response"]["heatmaps"]["figure"]
    A = multi_head_attention(*worked_example(seed)[:5], h).A
    np.testing.assert_allclose([decode(t["z"]) for t in heat["data"]], A, rtol=1e-6)


def test_the_class_deployment_serves_the_app_over_http(deployment):
    base = deployment.base
    page = requests.get(base + "/", headers={"Accept-Encoding": "br, gzip"}, timeout=10)
    assert page.status_code == 200 and page.headers["Content-Encoding"] in ("br", "gzip")
    assert "unsafe-eval" not in page.headers["Content-Security-Policy"]
    script = requests.get(base + "/assets/plotly/plotly-custom.min.js?m=1", headers={"Accept-Encoding": "gzip"})
    assert script.headers["Content-Encoding"] == "gzip" and "immutable" in script.headers["Cache-Control"]
    assert requests.get(base + "/healthz", timeout=5).json()["status"] == "ok"
    for h, seed in [(8, 0), (2, 99), (1, 5)]:
        assert_right_figures(update(base, h, seed), h, seed)
    bad = requests.post(base + "/_dash-update-component", data="{", timeout=5,
                        headers={"Content-Type": "application/json"})
    assert bad.status_code == 400
    assert update(base, "8", 0).status_code == 204
    assert f"--bind\x00127.0.0.1:{deployment.app_port}".encode() in cmdline(deployment.gunicorn_pid())


def test_nginx_keeps_fingerprinted_assets_but_not_behind_a_password(deployment, tmp_path):
    script = deployment.base + "/assets/plotly/plotly-custom.min.js?m=1"
    caches = [requests.get(script, headers={"Accept-Encoding": "br"}, timeout=10).headers["X-Cache"] for _ in range(2)]
    assert caches == ["MISS", "HIT"]
    assert requests.get(deployment.base + "/", timeout=10).headers.get("X-Cache") != "HIT"

    locked = Deployment(tmp_path / "locked.log", env={"CLASS_PASSWORD": "s3cret"})
    try:
        for _ in range(2):
            r = requests.get(locked.base + script.removeprefix(deployment.base), auth=("student", "s3cret"), timeout=10)
            assert r.status_code == 200 and r.headers["X-Cache"] != "HIT"
        assert requests.get(locked.base + script.removeprefix(deployment.base), timeout=10).status_code == 401
    finally:
        locked.stop()


SLOW_HEADERS = b"GET / HTTP/1.1\r\nHost: x\r\n"  # and never the blank line that ends them
SLOW_BODY = (b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             b"Content-Length: 1000\r\n\r\n{")  # and never the other 999 bytes


def slow_clients(port: int, headers: int, bodies: int) -> list[socket.socket]:
    socks = []
    for k in range(headers + bodies):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(SLOW_HEADERS if k < headers else SLOW_BODY)
        socks.append(s)
    return socks


def closed_by_server(s: socket.socket, timeout: float) -> bool:
    s.settimeout(timeout)
    try:
        while s.recv(4096):  # nginx may answer 408 first
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return True


def established(port: int) -> int:
    """Connections to 127.0.0.1:port the kernel has established, counted on the server's side."""
    lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for line in lines if line.split()[1] == f"0100007F:{port:04X}" and line.split()[3] == "01")


def test_slow_clients_do_not_stop_the_class_server(deployment):
    socks = slow_clients(deployment.port, headers=200, bodies=50)
    try:
        deadline = time.monotonic() + 10
        while established(deployment.port) < len(socks):  # they have all reached the server
            assert time.monotonic() < deadline, f"{established(deployment.port)} of {len(socks)} connected"
            time.sleep(0.02)
        for k in range(3):
            assert requests.get(deployment.base + "/healthz", timeout=5).json()["status"] == "ok"
            assert_right_figures(update(deployment.base, 4, k, timeout=5), 4, k)
        # nginx lets them go after its timeouts (10 s for a header, 10 s between two reads of a body)
        deadline = time.monotonic() + 20
        assert all(closed_by_server(s, max(0.1, deadline - time.monotonic())) for s in socks)
    finally:
        for s in socks:
            s.close()


def post_headers(port: int, length: int) -> bytes:
    """Announce a body of `length` bytes, send none of it, and read the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % length)
        return s.recv(100)


def send_chunked(port: int, megabytes: int) -> None:
    """A whole chunked JSON body of seed values like [{},{},...]; the server may hang up on it early."""
    parts = [b'{"output": "x", "inputs": ['] + [b"{}," * (2**20 // 3)] * megabytes + [b"{}]}", b""]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            s.sendall(b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n")
            for part in parts:
                s.sendall(b"%x\r\n%s\r\n" % (len(part), part))
            s.recv(100)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass


def test_big_bodies_get_413_before_they_are_read_and_memory_stays_flat(deployment):
    for port in (deployment.port, deployment.app_port):  # nginx, and the app itself behind it
        assert post_headers(port, 50_000_000).startswith(b"HTTP/1.1 413")
        assert post_headers(port, 64 * 1024 + 1).startswith(b"HTTP/1.1 413")
    master = deployment.gunicorn_pid()
    for _ in range(4):  # a worker's first requests set Dash up and fill caches: measure after that
        assert_right_figures(update(deployment.base, 8, 1), 8, 1)
    before = worker_rss_mib(master)
    for _ in range(6):
        send_chunked(deployment.app_port, 50)
        send_chunked(deployment.port, 50)
    assert worker_rss_mib(master) - before < 20  # MiB; a parsed 50 MB body took 1.2 GiB
    assert_right_figures(update(deployment.base, 8, 1), 8, 1)


def train(base: str, seed: int, in_a_row: int = 8, timeout: float = 60) -> None:
    """Press "train" and poll as the page does, until `in_a_row` polls in a row (whichever worker
    answers them) say the runs are ready."""
    deadline, ready, polls = time.monotonic() + timeout, 0, 0
    while ready < in_a_row:
        assert time.monotonic() < deadline, f"seed {seed} not trained"
        r = requests.post(base + "/_dash-update-component", json=press_train_body(seed, polls), timeout=10)
        assert r.status_code == 200, r.status_code
        ready = ready + 1 if r.json()["response"].get("learn-ready", {}).get("data") == seed else 0
        polls += 1
        time.sleep(0.05)


def trainer_states(base: str, n: int = 12) -> set[str]:
    return {requests.get(base + "/healthz", timeout=10).json()["trainer"] for _ in range(n)}


def health_answers(base: str, n: int = 12) -> set[tuple]:
    """/healthz's distinct answers, (status, body), from whichever workers answer n requests."""
    answers = set()
    for _ in range(n):
        r = requests.get(base + "/healthz", timeout=10)
        answers.add((r.status_code, r.text))
    return answers


def test_a_killed_trainer_or_worker_is_replaced_and_nothing_is_left(deployment):
    base = deployment.base
    for seed in range(1, 5):  # until both workers have started their trainer
        train(base, seed, in_a_row=2)
        if len(set(deployment.trainers().values())) == 2:
            break
    trainers = deployment.trainers()
    assert len(set(trainers.values())) == 2 and trainer_states(base) == {"ok"}

    os.kill(min(trainers), signal.SIGKILL)  # one worker's trainer dies: /healthz must not depend on the worker
    assert wait_until(lambda: not alive(min(trainers)), 10)
    answers = health_answers(base)
    assert len(answers) == 1 and next(iter(answers))[0] == 200, answers  # the same from both workers
    for pid in trainers:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    train(base, 6, in_a_row=12)  # each worker trains it in a new trainer
    assert trainer_states(base) == {"ok"} and not set(trainers) & set(deployment.trainers())

    worker = next(iter(deployment.trainers().values()))
    doomed = descendants(worker) | {worker}  # the worker, its trainer and multiprocessing's resource tracker
    assert len(doomed) == 3
    os.kill(worker, signal.SIGKILL)
    assert wait_until(lambda: not any(alive(p) for p in doomed), 10)
    assert wait_until(lambda: len(deployment.workers()) == 2, 30)  # gunicorn starts another
    train(base, 7, timeout=90)


def test_python_app_py_takes_its_trainer_with_it(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(tmp_path / "app.log", "w") as log:
        proc = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=ROOT, stdout=log, stderr=log)
    try:
        wait_until_up(base + "/healthz", proc)
        train(base, 3, in_a_row=1)
        children = descendants(proc.pid)
        assert len(children) == 2  # the trainer and multiprocessing's resource tracker
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        assert wait_until(lambda: not any(alive(p) for p in children), 10)
    finally:
        proc.kill()
        proc.wait()


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
    nginx = subprocess.Popen(["/usr/sbin/nginx", "-p", str(tmp_path), "-e", "stderr", "-c", str(conf),
                              "-g", "daemon off;"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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


@pytest.mark.parametrize("signal_", [signal.SIGTERM, signal.SIGKILL])
def test_every_process_stops_within_5_s_of_serve_py_and_no_folder_is_left(tmp_path, signal_):
    d = Deployment(tmp_path / "serve.log")
    try:
        for seed in range(1, 5):  # the workers' trainers too
            train(d.base, seed, in_a_row=2)
            if len(set(d.trainers().values())) == 2:
                break
        run = Path(next(p for p in tempfile_folders() if (p / "serve.pid").read_text() == str(d.proc.pid)))
        everything = d.processes() | {d.proc.pid}
        assert len(everything) >= 8  # serve.py, nginx and its workers, gunicorn, 2 workers, their trainers
        d.proc.send_signal(signal_)
        stopped = time.monotonic()
        assert wait_until(lambda: not any(alive(p) for p in everything), 5), \
            [cmdline(p)[:80] for p in everything if alive(p)]
        assert time.monotonic() - stopped < 5
        assert run.exists() == (signal_ == signal.SIGKILL)  # SIGKILL: nothing could clean up ...
        d.proc.wait(5)
        if signal_ == signal.SIGKILL:
            after = Deployment(tmp_path / "after.log")  # ... until the next start
            after.stop()
            assert not run.exists()
    finally:
        d.log.close()
        if d.proc.poll() is None:
            d.stop()


def tempfile_folders() -> list[Path]:
    import tempfile

    return [p for p in Path(tempfile.gettempdir()).glob("explorer-nginx-*") if (p / "serve.pid").exists()]


def raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        return s.recv(200)


def test_nginx_takes_8_kib_of_headers_and_logs_no_long_host_or_referer(deployment, tmp_path):
    cookie = "session=" + "c" * 2000
    page = requests.get(deployment.base + "/", headers={"Cookie": cookie, "X-Extra": "e" * 6000}, timeout=10)
    assert page.status_code == 200  # a 1 KiB header buffer refused a 2 KB cookie with a 400
    host, referer = "h" * 1000, "https://r.example/" + "r" * 1000
    too_big = b"POST /_dash-update-component HTTP/1.1\r\nHost: %s\r\nReferer: %s\r\nContent-Length: 99999999\r\n\r\n"
    assert raw(deployment.port, too_big % (host.encode(), b"x")).startswith(b"HTTP/1.1 400")
    assert raw(deployment.port, too_big % (b"x", referer.encode())).startswith(b"HTTP/1.1 400")
    assert raw(deployment.port, b"GET /?" + b"q" * 1200 + b" HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 414")
    assert raw(deployment.port, too_big % (b"x", b"y")).startswith(b"HTTP/1.1 413")  # this one is logged
    deadline = time.monotonic() + 5
    while b"too large body" not in (tmp_path / "serve.log").read_bytes():
        assert time.monotonic() < deadline, "nginx logged nothing"
        time.sleep(0.1)
    logged = (tmp_path / "serve.log").read_text(errors="replace")
    assert "h" * 200 not in logged and "r" * 200 not in logged and "q" * 200 not in logged


def hrefs(tree) -> set[str]:
    """Every href in a Dash layout (JSON)."""
    if isinstance(tree, dict):
        return {tree["href"]} if isinstance(tree.get("href"), str) else set() | set().union(
            *(hrefs(v) for v in tree.values()))
    if isinstance(tree, list):
        return set().union(*(hrefs(v) for v in tree)) if tree else set()
    return set()


def test_every_header_link_answers_200_through_nginx_on_its_own_port(deployment):
    """Issue 35 item 2: `make serve` on a port that is not 80; each link in both apps' layouts (their headers'
    "class mode", "the explorer", ...) and /class itself answer 200, and no redirect leaves the port."""
    base = deployment.base
    links = {"/", "/class", "/class/"}
    for prefix in ("/", "/class/"):
        links |= {h for h in hrefs(requests.get(base + prefix + "_dash-layout", timeout=10).json())
                  if h.startswith("/")}
    assert "/class" in links or "/class/" in links
    for link in sorted(links):
        url, hops = base + link, 0
        while True:
            r = requests.get(url, allow_redirects=False, timeout=10)
            if r.status_code not in (301, 302, 303, 307, 308):
                break
            url = requests.compat.urljoin(url, r.headers["Location"])
            assert url.startswith(base + "/"), (link, r.headers["Location"])  # same scheme, host and port
            hops += 1
            assert hops < 3
        assert r.status_code == 200, (link, r.status_code)


def test_nginx_master_killed_takes_its_workers_and_the_next_start_on_the_port_succeeds(tmp_path):
    """Issue 39 item 6: after a SIGKILL of nginx's master, 4 nginx workers still answered 502 on the class's port
    30 s later, and the next `make serve` there failed with "Address already in use"."""
    d = Deployment(tmp_path / "serve.log")
    try:
        master = next(p for p in d.processes() if b"nginx" in cmdline(p) and p_parent(p) == d.proc.pid)
        nginx_workers = {p for p in d.processes() if p_parent(p) == master}
        everything = d.processes() | {d.proc.pid}
        assert nginx_workers and requests.get(d.base + "/healthz", timeout=10).status_code == 200
        os.kill(master, signal.SIGKILL)
        assert wait_until(lambda: not any(alive(p) for p in everything), 5), \
            [cmdline(p)[:80] for p in everything if alive(p)]
        d.proc.wait(5)
    finally:
        d.log.close()
        if d.proc.poll() is None:
            d.stop()
    again = Deployment(tmp_path / "again.log", port=d.port)  # the same port: free again
    try:
        assert requests.get(again.base + "/healthz", timeout=10).status_code == 200
    finally:
        again.stop()


def test_the_largest_lecture_file_the_page_takes_passes_nginx(deployment):
    """One body limit (server.MAX_BODY) for the page's upload check, the app and nginx: 48 KiB files got nginx's 413."""
    import base64
    import json

    from dashboard import create_apps
    from dashboard.classmode import form
    from dashboard.server import MAX_BODY
    from tests.class_requests import DISPATCH, Bodies

    largest = b"{" + b" " * (form.MAX_PLAN_BYTES - 2) + b"}"
    body = json.dumps(Bodies(create_apps()[1]).load_plan(
        "data:application/json;base64," + base64.b64encode(largest).decode()))
    headers = {"Content-Type": "application/json"}
    assert requests.post(deployment.base + DISPATCH, data=body, headers=headers, timeout=10).status_code == 200
    too_big = body + " " * (MAX_BODY - len(body))  # MAX_BODY bytes: nginx's 413, as the app's
    assert requests.post(deployment.base + DISPATCH, data=too_big, headers=headers, timeout=10).status_code == 413
