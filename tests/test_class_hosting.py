"""Class mode under gunicorn over HTTP, on SQLite and on PostgreSQL: a worker killed mid-session loses no
answer, and the session goes on in the worker gunicorn starts in its place; a PostgreSQL restart under the
workers loses none either, and no student gets an error for it."""

import os
import shlex
import signal
import sys
import time
from pathlib import Path

import pytest
import requests

from deploy.serve import GUNICORN
from dashboard import create_apps
from dashboard.classmode import ids, student
from tests.class_requests import Bodies, joined, post
from tests.conftest import free_port, start, stop
from tests.pg import pg_ctl, postgres_server

pytestmark = pytest.mark.server
SENT = student.SENT.format(round=1)


def workers(master: int) -> set[int]:
    return {int(p) for p in Path(f"/proc/{master}/task/{master}/children").read_text().split()}


@pytest.fixture(scope="module")
def bodies():
    return Bodies(create_apps()[1])


@pytest.fixture(params=["sqlite", "postgres"])
def database_env(request, tmp_path):
    if request.param == "sqlite":
        yield {"DATA_DIR": str(tmp_path)}
    else:
        with postgres_server(fsync=False) as url:
            yield {"DATABASE_URL": url}


def serve(env: dict):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = shlex.split(GUNICORN.format(port=port, module="app:server"))
    return start([sys.executable, "-m"] + cmd, base + "/healthz", env=env), base


def session(http, bodies, base) -> tuple[str, str, str]:
    out = post(http, bodies.start(), base)[1]
    code, token = out[ids.CONTROL]["data"]["code"], out[ids.CONTROL]["data"]["token"]
    out = post(http, bodies.pose(code, token, weights="trained", head=2, query=1), base)[1]
    return code, token, out[ids.QUESTION]["data"]["id"]


def check_all_counted(http, bodies, base, code, token, qid, sent: dict) -> None:
    for sid, value in sent.items():  # each student sees the answer it sent, whichever worker asks the store
        view = post(http, bodies.poll(code, sid), base)[1]
        assert view[ids.S_RESULT]["children"].startswith(f"Your answer so far: key {value}.")
    results = post(http, bodies.reveal(code, token, qid), base)[1]
    assert results[ids.COUNT]["children"] == f"{len(sent)} joined · {len(sent)} answered vote 1"
    out = post(http, bodies.export(code, token), base)[1]
    lines = out[ids.DOWNLOAD]["data"]["content"].splitlines()
    assert sorted(line.split(",")[-3] for line in lines[1:]) == sorted(f"key {v}" for v in sent.values())


def test_a_killed_worker_loses_no_answer(bodies, database_env):
    proc, base = serve(database_env)
    http = requests.Session()
    try:
        code, token, qid = session(http, bodies, base)
        sent = {}
        for k in range(40):
            if k == 20:  # mid-session: kill a worker, and wait for gunicorn to start another
                before = workers(proc.pid)
                os.kill(min(before), signal.SIGKILL)
                deadline = time.monotonic() + 30
                while not (len(workers(proc.pid)) == 2 and workers(proc.pid) != before):
                    assert time.monotonic() < deadline, "gunicorn started no new worker"
                    time.sleep(0.1)
            sid = joined(http, bodies, code, base)
            sent[sid] = k % 12
            _, out = post(http, bodies.answer(code, sid, qid, k % 12), base)
            assert out[ids.S_FEEDBACK]["children"] == SENT
        check_all_counted(http, bodies, base, code, token, qid, sent)
    finally:
        stop(proc)
    assert proc.returncode is not None


def test_a_postgresql_restart_under_the_workers_loses_no_answer(bodies):
    """pg_ctl restart -m fast drops every worker thread's connection: each retries once on a new one. The same
    40 answers gave 8 server errors, and lost those answers, without the retry."""
    with postgres_server(fsync=False) as url:
        proc, base = serve({"DATABASE_URL": url})
        http = requests.Session()
        try:
            code, token, qid = session(http, bodies, base)
            sids = [joined(http, bodies, code, base) for _ in range(40)]
            replies, sent = [], {}
            for k, sid in enumerate(sids):
                if k == 20:
                    pg_ctl(url, "restart")
                status, out = post(http, bodies.answer(code, sid, qid, k % 12), base)
                replies.append(status if status != 200 else out[ids.S_FEEDBACK]["children"])
                sent[sid] = k % 12
            assert replies == [SENT] * 40
            assert requests.get(base + "/healthz", timeout=10).json()["store"] == "ok"
            check_all_counted(http, bodies, base, code, token, qid, sent)
            pg_ctl(url, "stop")
            try:  # the server down: the student is told, the projector too, and /healthz says so
                _, out = post(http, bodies.answer(code, sids[0], qid, 5), base)
                assert "cannot save answers" in out[ids.S_FEEDBACK]["children"]
                from dashboard.classmode.store import sessions

                deadline = time.monotonic() + sessions.HEALTH_EVERY + 5  # a worker keeps its last check that long
                while (health := requests.get(base + "/healthz", timeout=20)).status_code != 503:
                    assert time.monotonic() < deadline
                    time.sleep(0.2)
                assert health.json()["store"] == "down"
            finally:
                pg_ctl(url, "start")
        finally:
            stop(proc)


def test_a_stopped_postgresql_freezes_neither_the_explorer_nor_healthz_and_loses_no_acknowledged_answer(bodies):
    """SIGSTOP of the whole PostgreSQL cluster (a hung host: its kernel still acknowledges) for HANG seconds while
    16 students answer: every class request answers within db.GIVE_UP (+1 s), acknowledged or "try again"; the
    explorer's updates answer as usual; /healthz answers 503 within 2 s; after SIGCONT, every acknowledged answer
    is there. Before the deadline, every request took the whole stop (44-45 s of 45 s), the explorer's too."""
    from concurrent.futures import ThreadPoolExecutor

    from dashboard.classmode.store import db
    from tests.dash_requests import heatmaps_body
    from tests.test_store_hangs import stopped

    hang = 12.0
    with postgres_server(fsync=False) as url:
        proc, base = serve({"DATABASE_URL": url})
        http = requests.Session()
        try:
            code, token, qid = session(http, bodies, base)
            sids = [joined(http, bodies, code, base) for _ in range(16)]
            acknowledged, took, other = {}, [], []

            def student_answers(sid, k):
                ends = time.monotonic() + hang + 4
                while time.monotonic() < ends:  # answers, one after another, through the stop and after it
                    started = time.monotonic()
                    status, out = post(requests, bodies.answer(code, sid, qid, k % 12), base)
                    took.append(time.monotonic() - started)
                    feedback = out[ids.S_FEEDBACK]["children"] if status == 200 else status
                    if feedback == SENT:
                        acknowledged[sid] = k % 12
                    elif "try again" not in str(feedback):
                        other.append(feedback)
                    k += 1
                    time.sleep(1.0)  # the per-student limit: one answer a second

            explorer, health = [], []
            for _ in range(2):  # the figures computed once before: "as usual" is the cached answer
                requests.post(base + "/_dash-update-component", json=heatmaps_body(4, 1), timeout=30)
            with ThreadPoolExecutor(16) as pool, stopped(url):
                futures = [pool.submit(student_answers, sid, k) for k, sid in enumerate(sids)]
                ends = time.monotonic() + hang
                while time.monotonic() < ends:
                    started = time.monotonic()
                    r = requests.post(base + "/_dash-update-component", json=heatmaps_body(4, 1), timeout=30)
                    explorer.append((r.status_code, time.monotonic() - started))
                    started = time.monotonic()
                    r = requests.get(base + "/healthz", timeout=30)
                    health.append((r.status_code, time.monotonic() - started))
                    time.sleep(0.3)
            for f in futures:
                f.result(60)
            assert other == []
            assert max(took) < db.GIVE_UP + 1, sorted(took)[-5:]
            assert all(status == 200 for status, _ in explorer) and max(t for _, t in explorer) < 2, explorer
            assert max(t for _, t in health) < 2 and health[-1][0] == 503, health
            first_503 = next(k for k, (status, _) in enumerate(health) if status == 503)
            assert all(status == 503 for status, _ in health[first_503:])  # down while it hangs
            assert len(acknowledged) == 16  # every student got through after the stop
            check_all_counted(http, bodies, base, code, token, qid, acknowledged)
        finally:
            stop(proc)


@pytest.mark.browser
def test_a_tap_not_saved_is_cleared_and_the_same_tap_saves_it_after(bodies, browser, tmp_path):
    """Issue 39 item 4 in a real browser: while the store refuses to write an answer (a trigger stands in for a
    full disk: the write fails at once, reads go on), a phone taps a key; the page says 'Nothing was saved: try
    again' and the tapped option is no longer selected, so the same tap, once the store writes again, sends and
    is counted. Before, the failed option stayed selected and the second tap sent nothing (a selected radio sends
    nothing when tapped)."""
    import sqlite3

    from dashboard.classmode.store import db, sessions
    from tests.browser import wait_until

    port = free_port()  # python app.py: one process, whose store is ready once the session has started
    base = f"http://127.0.0.1:{port}"
    proc = start([sys.executable, "app.py", "--port", str(port)], base + "/healthz", env={"DATA_DIR": str(tmp_path)})
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    http = requests.Session()
    try:
        code, token, qid = session(http, bodies, base)
        page = phone.new_page()
        page.goto(f"{base}/class/{code}")
        key = page.locator(f"#{ids.CHOICES} label", has_text="key 3").first
        key.wait_for()
        checked = f"() => document.querySelectorAll('#{ids.CHOICES} input:checked').length"
        writer = sqlite3.connect(tmp_path / sessions.SQLITE_FILE, isolation_level=None)
        writer.execute("CREATE TRIGGER full_disk BEFORE INSERT ON class_answers BEGIN SELECT RAISE(FAIL, "
                       "'database or disk is full'); END")
        try:
            key.tap()
            page.wait_for_selector(f"#{ids.S_FEEDBACK}:has-text('Nothing was saved: try again')",
                                   timeout=(db.GIVE_UP + 10) * 1000)
            assert page.evaluate(checked) == 0  # cleared: a tap on it sends again
        finally:
            writer.execute("DROP TRIGGER full_disk")
            writer.close()
        key.tap()
        page.wait_for_selector(f"#{ids.S_FEEDBACK}:has-text('{SENT}')", timeout=(db.GIVE_UP + 10) * 1000)
        assert wait_until(page, f"() => ({checked})() === 1")
        heads = post(http, bodies.count(code, token, qid), base)[1][ids.COUNT]["children"]
        assert heads == "1 joined · 1 answered vote 1"
    finally:
        phone.close()
        stop(proc)
