"""Class mode under gunicorn over HTTP, on SQLite and on PostgreSQL: a worker killed mid-session loses
no answer, and the session goes on in the worker gunicorn starts in its place."""

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
from dashboard.classmode import lecturer, student
from tests.class_requests import Bodies, post
from tests.conftest import free_port, start, stop
from tests.pg import postgres_server

pytestmark = pytest.mark.server


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


def test_a_killed_worker_loses_no_answer(bodies, database_env):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = shlex.split(GUNICORN.format(port=port, module="app:server"))
    proc = start([sys.executable, "-m"] + cmd, base + "/healthz", env=database_env)
    http = requests.Session()
    try:
        out = post(http, bodies.start(), base)[1]
        code, token = out[lecturer.CONTROL]["data"]["code"], out[lecturer.CONTROL]["data"]["token"]
        qid = post(http, bodies.pose(code, token), base)[1][lecturer.QUESTION]["data"]["id"]
        sent = {}
        for k in range(40):
            if k == 20:  # mid-session: kill a worker, and wait for gunicorn to start another
                before = workers(proc.pid)
                os.kill(min(before), signal.SIGKILL)
                deadline = time.monotonic() + 30
                while not (len(workers(proc.pid)) == 2 and workers(proc.pid) != before):
                    assert time.monotonic() < deadline, "gunicorn started no new worker"
                    time.sleep(0.1)
            sent[f"{k:032x}"] = k % 12
            _, out = post(http, bodies.answer(code, f"{k:032x}", qid, k % 12), base)
            assert out[student.S_FEEDBACK]["children"] == "Answer sent. You can change it until the reveal."
        for sid in list(sent)[:20]:  # the first 20, some answered in the killed worker, are still there
            view = post(http, bodies.poll(code, sid), base)[1]
            assert view[student.S_RESULT]["children"].startswith(f"Your answer so far: key {sent[sid]}.")
        results = post(http, bodies.reveal(code, token, qid), base)[1]
        assert results[lecturer.COUNT]["children"] == "40 answers"
        out = post(http, bodies.export(code, token), base)[1]
        lines = out[lecturer.DOWNLOAD]["data"]["content"].splitlines()
        assert sorted(int(line.split(",")[-2]) for line in lines[1:]) == sorted(sent.values())
    finally:
        stop(proc)
    assert proc.returncode is not None
