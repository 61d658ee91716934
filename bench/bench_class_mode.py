"""Class mode under a class, over HTTP: one session on this machine, the app under gunicorn as README's
shared-server command starts it (2 workers x 4 threads), on SQLite and on PostgreSQL.

200 students join in 10 s, before the question: each loads /class/CODE and posts what a real browser
posts when that page opens (recorded once from headless Chromium: the student's first poll and the hidden
dashboard's opening callbacks). Each then polls every 2 s as the page's dcc.Interval does, sending back
what the last poll returned (an unchanged poll is a 204). Then the lecturer poses the question; each
student answers it within 10 s, once its page shows it (one in five changes the answer once), and polls
until it sees the reveal. The lecturer's page polls the live count every 2 s and reveals once all 200 are
in. Latency is from sending a request to its whole response; "late" is how far the client's own schedule
slipped (the clients share the machine's 2 cores with the server). PostgreSQL is a throwaway Debian
server (tests/pg.py), fsync on.

Run: python bench/bench_class_mode.py
"""

import os
import random
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from heapq import heappop, heappush
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from deploy.serve import GUNICORN
from dashboard import create_apps
from dashboard.classmode import lecturer, questions, student
from tests.class_requests import DISPATCH, Bodies, post
from tests.conftest import free_port, stop, wait_until_up
from tests.pg import postgres_server

STUDENTS = 200
CLIENT_PROCESSES, CLIENT_THREADS = 2, 24
JOIN_WITHIN, ANSWER_WITHIN = 10.0, 10.0
POLL_EVERY = lecturer.POLL_MS / 1000
GIVE_UP = 40.0
BODIES: Bodies | None = None  # set before the client processes fork: they build their bodies with it


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else float("nan")


def browser_join_bodies(base: str) -> list[dict]:
    """What Chromium posts when a student's page opens, but the student's own poll (made per student)."""
    import json

    from playwright.sync_api import sync_playwright

    from tests.browser import launch_chromium

    bodies = []
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.on("request", lambda r: DISPATCH in r.url and bodies.append(json.loads(r.post_data)))
        page.goto(base + "/class/ABCDEF")
        page.wait_for_selector("#class-student-status:has-text('no session')")
        page.wait_for_timeout(3000)  # every initial callback has been sent
        browser.close()
    return [b for b in bodies if not b["output"].startswith(f"..{student.SEEN}.")]


def students(base: str, join: list[dict], code: str, ids: list[str], t_join: float, t0: float, seed: int) -> dict:
    """One client process: its students' requests, each at its time, on CLIENT_THREADS threads. They join
    from t_join on; the question is posed at t0."""
    bodies = BODIES
    rng = random.Random(seed)
    lock = threading.Lock()
    out = {"join": [], "join_calls": [], "answer": [], "poll": [], "late": [], "errors": Counter(), "sent": {},
           "saw": {}}
    seen, asked = {}, {}
    events = []  # (when, order, student, action): "join", "poll", or ("answer", value, a later change or None)
    for i, sid in enumerate(ids):
        heappush(events, (t_join + rng.uniform(0, JOIN_WITHIN), i, sid, "join"))
        answer_at = t0 + rng.uniform(1, ANSWER_WITHIN)
        change = rng.uniform(answer_at, t0 + ANSWER_WITHIN) if rng.random() < 0.2 else None
        heappush(events, (answer_at, i, sid, ("answer", rng.randrange(12), change)))
    order, in_flight = len(ids), 0

    def timed(kind: str, body: dict) -> tuple[int, dict | None]:
        sent = time.time()
        try:
            status, response = post(requests, body, base)
        except requests.RequestException as e:  # a refused or dropped connection is an error, as any 4xx or 5xx
            out["errors"][f"{kind}: {type(e).__name__}"] += 1
            return 0, None
        out[kind].append(time.time() - sent)
        if status >= 400:
            out["errors"][f"{kind}: HTTP {status}"] += 1
        return status, response

    def run(when, sid, action):
        nonlocal order, in_flight
        out["late"].append(time.time() - when)
        later = []
        if action in ("join", "poll"):
            if action == "join":
                sent = time.time()
                page = requests.get(f"{base}/class/{code}", timeout=10)
                if page.status_code != 200:
                    out["errors"][f"page: HTTP {page.status_code}"] += 1
                for body in join:
                    timed("join_calls", body)
                out["join"].append(time.time() - sent)
            _, view = timed("poll", bodies.poll(code, sid, seen.get(sid)))
            if view:
                seen[sid] = view[student.SEEN]["data"]  # ["waiting"], or [question id, revealed, own answer]
                if view[student.ASKED]["data"]:
                    asked[sid] = view[student.ASKED]["data"]["id"]
                if len(seen[sid]) == 3 and seen[sid][1]:
                    out["saw"][sid] = view[student.S_RESULT]["children"]
            if sid not in out["saw"] and when < t0 + GIVE_UP:
                later.append((when + POLL_EVERY, sid, "poll"))
        elif sid not in asked:  # this student's page has not shown the question yet
            later.append((time.time() + 0.5, sid, action))
        else:
            _, value, change = action
            _, reply = timed("answer", bodies.answer(code, sid, asked[sid], value))
            if reply and reply[student.S_FEEDBACK]["children"].startswith("Answer sent"):
                out["sent"][sid] = value
            elif reply:
                out["errors"]["answer: " + reply[student.S_FEEDBACK]["children"]] += 1
            if change:
                later.append((max(change, time.time()), sid, ("answer", (value + 1 + rng.randrange(11)) % 12, None)))
        with lock:
            for event in later:
                order += 1
                heappush(events, (event[0], order) + event[1:])
            in_flight -= 1

    with ThreadPoolExecutor(CLIENT_THREADS) as pool:
        while True:
            with lock:
                due = events and events[0][0] <= time.time()
                if due:
                    when, _, sid, action = heappop(events)
                    in_flight += 1
                elif not events and not in_flight:
                    break
            if due:
                pool.submit(run, when, sid, action)
            else:
                time.sleep(0.002)
    out["errors"] = dict(out["errors"])
    return out


def bench(name: str, env: dict, bodies: Bodies) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = shlex.split(GUNICORN.format(port=port, module="app:server"))
    server = subprocess.Popen([sys.executable, "-m"] + cmd, cwd=ROOT, env={**os.environ, **env},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(base + "/healthz", server)
        join = browser_join_bodies(base)
        lecturer = requests  # a new connection a request: gunicorn closes idle ones after 2 s, as often as the polls
        control = post(lecturer, bodies.start(), base)[1][lecturer.CONTROL]["data"]
        code, token = control["code"], control["token"]
        truth = questions.question("key", 4, 7, 2, 5, 0, 0)[0]["truth"]
        ids = [f"{random.getrandbits(128):032x}" for _ in range(STUDENTS)]
        share = STUDENTS // CLIENT_PROCESSES
        t_join = time.time() + 2.0  # the client processes start meanwhile
        t0 = t_join + JOIN_WITHIN + 1  # everyone is in: the lecturer poses the question
        counts, errors = [], Counter()
        with ProcessPoolExecutor(CLIENT_PROCESSES) as pool:
            futures = [pool.submit(students, base, join, code, ids[k * share:(k + 1) * share], t_join, t0, k)
                       for k in range(CLIENT_PROCESSES)]
            time.sleep(max(0.0, t0 - time.time()))
            posed = post(lecturer, bodies.pose(code, token, kind="key", h=4, seed=7, head=2, query=5), base)[1]
            question = posed[lecturer.QUESTION]["data"]["id"]
            while time.time() < t0 + GIVE_UP:  # the lecturer's projector
                sent = time.time()
                status, out = post(lecturer, bodies.count(code, question), base)
                counts.append(time.time() - sent)
                if status != 200:
                    errors[f"count: HTTP {status}"] += 1
                elif out[lecturer.COUNT]["children"] == f"{STUDENTS} answers so far" and sent > t0 + ANSWER_WITHIN + 1:
                    break
                time.sleep(POLL_EVERY)
            revealed = post(lecturer, bodies.reveal(code, token, question), base)[1]
            outs = [f.result() for f in futures]
        csv_rows = post(lecturer, bodies.export(code, token), base)[1][lecturer.DOWNLOAD]["data"]["content"]
        size = lecturer.Store(env.get("DATABASE_URL"), env.get("DATA_DIR")).size()
    finally:
        stop(server)
    sent = {s: v for o in outs for s, v in o["sent"].items()}
    saw = {s: v for o in outs for s, v in o["saw"].items()}
    for o in outs:
        errors.update(o["errors"])
    answers, polls, joins, late = ([x for o in outs for x in o[k]] for k in ("answer", "poll", "join", "late"))
    bars = Counter(int(line.rsplit(",", 2)[-2]) for line in csv_rows.splitlines()[1:])
    results = str(revealed[lecturer.RESULTS]["children"])
    exact = (len(sent) == STUDENTS and bars == Counter(sent.values()) and sum(bars.values()) == STUDENTS
             and revealed[lecturer.COUNT]["children"] == f"{STUDENTS} answers"
             and f"chosen by {Counter(sent.values())[truth]} of {STUDENTS}" in results)
    own = all(saw.get(s, "").startswith(f"Your answer: key {v}. The answer: key {truth}.") for s, v in sent.items())
    print(f"{name}: {len(sent)} students answered, {len(answers)} answer posts (changes included); "
          f"each counted once with its last value, total {sum(bars.values())} = {len(sent)} sent: "
          f"{'yes' if exact else 'NO'}; every student saw own answer and the truth after the reveal: "
          f"{'yes' if own and len(saw) == STUDENTS else 'NO'}")
    print(f"  joins (page + {len(join)} callbacks, {len(joins)}): p50 {p(joins, 0.5):.0f} ms, "
          f"p99 {p(joins, 0.99):.0f} ms")
    print(f"  answer posts: p50 {p(answers, 0.5):.1f} ms, p99 {p(answers, 0.99):.1f} ms, max {p(answers, 1):.1f} ms")
    print(f"  student polls ({len(polls)}): p50 {p(polls, 0.5):.1f} ms, p99 {p(polls, 0.99):.1f} ms, "
          f"max {p(polls, 1):.1f} ms")
    print(f"  lecturer count polls ({len(counts)}): p99 {p(counts, 0.99):.1f} ms; client schedule late: "
          f"p99 {p(late, 0.99):.0f} ms")
    print(f"  errors: {sum(errors.values())} {dict(errors) or ''}")
    print(f"  database size: {size / 1024:.0f} KiB")


def main():
    print(f"{STUDENTS} students over HTTP, gunicorn 2 workers x 4 threads; load average before: "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    global BODIES
    BODIES = bodies = Bodies(create_apps()[1])
    with tempfile.TemporaryDirectory() as data_dir:
        bench("SQLite (WAL)", {"DATA_DIR": data_dir}, bodies)
    with postgres_server() as url:
        bench("PostgreSQL 15", {"DATABASE_URL": url}, bodies)


if __name__ == "__main__":
    main()
