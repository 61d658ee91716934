import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import requests

from deploy import serve

ROOT = Path(__file__).resolve().parents[1]
RUN_MARK = "EXPLORER_TEST_RUN"  # in the environment of every process this test run starts, and theirs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {output(proc)}")
        try:
            if requests.get(url, timeout=5).status_code < 500:
                return
        except (requests.ConnectionError, requests.Timeout):  # not up yet, or busy starting on a loaded machine
            pass
        time.sleep(0.1)
    raise TimeoutError(url)


def output(proc: subprocess.Popen) -> str:
    """What a server has printed: from its log file if start() gave it one, else from its pipe."""
    if hasattr(proc, "log"):
        proc.log.seek(0)
        return proc.log.read().decode(errors="replace")[-4000:]
    return proc.stdout.read() if proc.stdout else ""


def start(cmd: list[str], url: str, env: dict | None = None) -> subprocess.Popen:
    # Output goes to a file, never to a pipe nobody reads: the dev server logs every request, and
    # after about 1,000 of them a full pipe blocks it on its next log line.
    log = tempfile.TemporaryFile()  # noqa: SIM115 (open while the server runs; stop() closes it)
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=log, stderr=subprocess.STDOUT)
    proc.log = log
    try:
        wait_until_up(url, proc)
    except Exception:
        stop(proc)
        raise
    return proc


def stop(proc: subprocess.Popen) -> None:
    """Stop a server as deploy/serve.py does (terminate, then kill after 10 s), and close its log."""
    serve.stop(proc)
    if hasattr(proc, "log"):
        proc.log.close()


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """The real app, started as a teacher would: python app.py (class mode's SQLite in a temporary folder)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start([sys.executable, "app.py", "--port", str(port)], url + "/",
                 env={"DATA_DIR": str(tmp_path_factory.mktemp("data")),
                      "TRUSTED_PROXIES": "127.0.0.1"})  # each browser context's own address (tests/browser.py)
    yield url
    stop(proc)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from tests.browser import ReducedMotion, launch_chromium

    with sync_playwright() as p:
        b = launch_chromium(p)
        yield ReducedMotion(b)
        b.close()


# ------------------------------------------------------------------ no process left behind


def pytest_configure(config):
    os.environ[RUN_MARK] = f"{os.getpid()}.{time.time_ns()}"


def leftover_processes() -> list[tuple[int, str]]:
    """Live processes this run started, the test process aside: its children, and any descendant,
    found by the mark in its environment even once its parent has died and it was handed to init."""
    from multiprocessing import resource_tracker

    mark = f"{RUN_MARK}={os.environ[RUN_MARK]}".encode()
    # This process's resource tracker (started with the in-process trainer) exits when this process
    # does: it reads EOF once every holder of its pipe has gone, and every other holder is checked here.
    ours = {os.getpid(), resource_tracker._resource_tracker._pid}
    left = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) in ours:
            continue
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()  # state, ppid, ...
            if stat[0] == "Z":  # exited, not yet reaped
                continue
            if int(stat[1]) == os.getpid() or mark in (proc / "environ").read_bytes().split(b"\0"):
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                left.append((int(proc.name), f"pid {proc.name}, parent {stat[1]}: {cmd[:200]}"))
        except (OSError, IndexError):  # gone meanwhile, or not ours to read
            continue
    return left


def pytest_sessionfinish(session, exitstatus):
    """Fail the run if a process it started outlives it (fixtures are torn down by now)."""
    from dashboard import trainer

    trainer.shutdown()  # the tests train in this process too
    deadline = time.monotonic() + 5  # processes told to stop may take a moment to exit
    while (left := leftover_processes()) and time.monotonic() < deadline:
        time.sleep(0.1)
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line("\nprocesses left behind by the tests (now killed):", red=True)
        for pid, line in left:
            reporter.write_line("  " + line, red=True)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def page(browser, app_url):
    """A fresh desktop-size page on the app; `page.errors` collects console errors and page errors,
    `page.requests` every URL the page asked for, `page.base` is the app's address."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors, page.requests = [], []
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.requests.append(r.url))
    page.base = app_url
    yield page
    context.close()
