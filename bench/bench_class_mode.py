"""Class mode under a class, over HTTP: one session of peer instruction on this machine, the app under gunicorn
as README's shared-server command starts it (2 workers x 4 threads), on SQLite and on PostgreSQL.

200 students join in 10 s, before the question: each loads /class/CODE, posts what a real browser posts when
that page opens (recorded once from headless Chromium), and joins (the server issues its id). Each then polls
every 2 s as the page's dcc.Interval does, sending back what the last poll returned (an unchanged poll is a
204). The lecturer poses the question; each student votes within 10 s once its page shows it (one in five
changes the vote once). Once all 200 are in, the lecturer closes vote 1 for the discussion, opens vote 2 five
seconds later, and every student votes again within 10 s (half of them change their answer, one in five changes
it twice); once all 200 are in again, the lecturer reveals both votes. The projector polls the head count
(joined, answered this vote) every 2 s. "Lost" counts the answers a student was told were sent that the export
does not hold with their last value. Latency is from sending a request to its whole response; "late" is how far
the client's own schedule slipped (the clients share the machine's 2 cores with the server). PostgreSQL is a
throwaway Debian server (tests/pg.py), fsync on.

Run: python bench/bench_class_mode.py
"""

import csv
import io
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
from deploy.serve import GUNICORN  # noqa: E402
from dashboard import create_apps  # noqa: E402
from dashboard.classmode import ids, lecturer  # noqa: E402
from dashboard.classmode.store import Store  # noqa: E402
from tests.class_requests import DISPATCH, Bodies, post  # noqa: E402
from tests.conftest import free_port, stop, wait_until_up  # noqa: E402
from tests.pg import postgres_server  # noqa: E402

STUDENTS = 200
CLIENT_PROCESSES, CLIENT_THREADS = 2, 24
JOIN_WITHIN, ANSWER_WITHIN, DISCUSS_FOR = 10.0, 10.0, 5.0
POLL_EVERY = ids.POLL_MS / 1000
GIVE_UP = 90.0
BODIES: Bodies | None = None  # set before the client processes fork: they build their bodies with it


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else float("nan")


def browser_join_bodies(base: str) -> list[dict]:
    """What Chromium posts when a student's page opens, but the join and the polls (made per student)."""
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
    own = (f"..{ids.SEEN}.", f"..{ids.STUDENT_ID}.")
    return [b for b in bodies if not b["output"].startswith(own)]


def students(base: str, join: list[dict], code: str, count: int, t_join: float, seed: int) -> dict:
    """One client process: `count` students' requests, each at its time, on CLIENT_THREADS threads. They join from
    t_join on, and vote when their page shows an open vote (vote 1, then vote 2)."""
    bodies = BODIES
    rng = random.Random(seed)
    lock = threading.Lock()
    out = {"join": [], "join_calls": [], "answer": [], "poll": [], "late": [], "errors": Counter(),
           "sent": {1: {}, 2: {}}, "saw": {}}
    state = {}  # student: (question id, phase) its page last showed
    events = []  # (when, order, student index, action): "join", "poll", or ("vote", round, value, changes left)
    for i in range(count):
        heappush(events, (t_join + rng.uniform(0, JOIN_WITHIN), i, i, "join"))
    order, in_flight, sid, started, tickets = count, 0, {}, {}, {}
    out["join_waits"] = 0

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

    def run(when, i, action):
        nonlocal order, in_flight
        out["late"].append(time.time() - when)
        later = []
        if action in ("join", "rejoin"):
            if action == "join":
                started[i] = time.time()
                page = requests.get(f"{base}/class/{code}", timeout=10)
                if page.status_code != 200:
                    out["errors"][f"page: HTTP {page.status_code}"] += 1
                for body in join:
                    timed("join_calls", body)
            again = tickets.get(i)  # the page's place in the queue, sent back at each poll as the page does
            status, reply = timed("join_calls", bodies.join(code, again=again, polls=None if again is None else 1))
            issued = (reply or {}).get(ids.STUDENT_ID, {}).get("data")
            if not issued:  # the store paces joins from one address: the page tries again at its next poll
                tickets[i] = (reply or {}).get(ids.S_JOIN_AGAIN, {}).get("data", again)
                out["join_waits"] += 1
                if time.time() < t_join + GIVE_UP:
                    later.append((time.time() + POLL_EVERY, i, "rejoin"))
                else:
                    out["errors"]["never joined"] += 1
            else:
                sid[i] = issued["id"]
                out["join"].append(time.time() - started[i])
                action = "poll"
        if action == "poll":
            _, view = timed("poll", bodies.poll(code, sid[i], out.get("seen", {}).get(i)))
            if view:
                out.setdefault("seen", {})[i] = seen = view[ids.SEEN]["data"]
                if len(seen) == 4:  # [question id, phase, [vote 1, vote 2], deadline]
                    if (seen[0], seen[1]) != state.get(i) and seen[1] in ("vote1", "vote2"):
                        k = 1 if seen[1] == "vote1" else 2
                        changes = int(rng.random() < 0.2) + (int(rng.random() < 0.2) if k == 2 else 0)
                        later.append((time.time() + rng.uniform(1, ANSWER_WITHIN - 2), i,
                                      ("vote", k, rng.randrange(12), changes)))
                    state[i] = (seen[0], seen[1])
                    if seen[1] == "revealed":
                        out["saw"][sid[i]] = view[ids.S_RESULT]["children"]
            if sid[i] not in out["saw"] and when < t_join + GIVE_UP:
                later.append((when + POLL_EVERY, i, "poll"))
        elif action not in ("join", "rejoin"):
            _, k, value, changes = action
            asked = out["seen"][i][0]
            _, reply = timed("answer", bodies.answer(code, sid[i], asked, value))
            said = reply and reply[ids.S_FEEDBACK]["children"]
            if said == f"Vote {k} sent. You can change it until the vote closes.":
                out["sent"][k][sid[i]] = value
            elif said:
                out["errors"]["answer: " + said] += 1
            if changes:
                later.append((time.time() + rng.uniform(0.5, 2), i, ("vote", k, rng.randrange(12), changes - 1)))
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
                    when, _, i, action = heappop(events)
                    in_flight += 1
                elif not events and not in_flight:
                    break
            if due:
                pool.submit(run, when, i, action)
            else:
                time.sleep(0.002)
    out["errors"] = dict(out["errors"])
    out.pop("seen", None)
    return out


ATTACK_THREADS = {"sybils from the class's address": 8, "sybils from 4 outside addresses": 8, "/healthz flooders": 4}


def attack(base: str, bodies: Bodies, code: str, question: dict, until: threading.Event, seen: dict) -> None:
    """20 attackers while the class votes: made-up students from the class's own address and from four others
    (X-Real-IP, which gunicorn believes here as it would from nginx), each joining and voting as fast as it can,
    and /healthz flooders."""
    def sybil(k: int, outside: bool):
        headers = {"X-Real-IP": f"10.66.0.{k % 4}"} if outside else {}
        mine = []
        while not until.is_set():
            try:
                _, reply = post(requests, bodies.join(code), base, headers=headers)
                issued = (reply or {}).get(ids.STUDENT_ID, {}).get("data")
                if issued:
                    mine.append(issued["id"])
                    seen["places"] += 1
                for sid in mine[-3:]:
                    if question.get("id"):
                        _, out = post(requests, bodies.answer(code, sid, question["id"], 11), base, headers=headers)
                        seen["acknowledged"] += bool(out and str(out[ids.S_FEEDBACK]["children"]).startswith("Vote"))
                seen["tries"] += 1
            except requests.RequestException:
                seen["errors"] += 1

    def flood():
        while not until.is_set():
            sent = time.time()
            try:
                requests.get(base + "/healthz", timeout=10)
                seen["health"].append(time.time() - sent)
            except requests.RequestException:
                seen["errors"] += 1

    workers = [threading.Thread(target=sybil, args=(k, False)) for k in range(8)] + \
        [threading.Thread(target=sybil, args=(k, True)) for k in range(8)] + [threading.Thread(target=flood)
                                                                              for _ in range(4)]
    for w in workers:
        w.start()
    until.wait()
    for w in workers:
        w.join(15)


def all_answered(k: int) -> str:
    """The projector's head count once the whole class (its stated size) has answered vote k."""
    return lecturer.head_count({"joined": STUDENTS, "class_size": STUDENTS, "answered": STUDENTS, "round": k})


def lecturer_waits(base, bodies, code, token, question, k: int, counts: list, errors: Counter) -> None:
    """The projector's head count every 2 s, until every student has voted in vote k and the time is over."""
    opened = time.time()
    while time.time() < opened + GIVE_UP:
        sent = time.time()
        status, out = post(requests, bodies.count(code, token, question), base)
        counts.append(time.time() - sent)
        if status != 200:
            errors[f"count: HTTP {status}"] += 1
        elif out[ids.COUNT]["children"] == all_answered(k) and \
                sent > opened + ANSWER_WITHIN + 1:
            return
        time.sleep(POLL_EVERY)


def bench(name: str, env: dict, bodies: Bodies) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = shlex.split(GUNICORN.format(port=port, module="app:server"))
    env = {**env, "TRUSTED_PROXIES": "127.0.0.1", "WEB_CONCURRENCY": "2"}  # as behind serve.py's nginx
    server = subprocess.Popen([sys.executable, "-m"] + cmd, cwd=ROOT, env={**os.environ, **env},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(base + "/healthz", server, timeout=120)
        join = browser_join_bodies(base)
        control = post(requests, bodies.start(), base)[1][ids.CONTROL]["data"]
        code, token = control["code"], control["token"]
        post(requests, bodies.roster(code, token, size=STUDENTS), base)  # the lecturer states the class size
        t_join = time.time() + 2.0  # the client processes start meanwhile
        counts, errors, steps = [], Counter(), []
        question, until = {}, threading.Event()
        seen = {"places": 0, "acknowledged": 0, "tries": 0, "errors": 0, "health": []}
        attackers = threading.Thread(target=attack, args=(base, bodies, code, question, until, seen))
        with ProcessPoolExecutor(CLIENT_PROCESSES) as pool:
            share = STUDENTS // CLIENT_PROCESSES
            futures = [pool.submit(students, base, join, code, share, t_join, k) for k in range(CLIENT_PROCESSES)]
            time.sleep(max(0.0, t_join + JOIN_WITHIN + 1 - time.time()))  # the class joins (at the store's pace)
            attackers.start()
            posed = post(requests, bodies.pose(code, token, weights="trained", h=4, head=2, query=1), base)[1]
            if ids.QUESTION not in (posed or {}):
                raise RuntimeError(f"the question was not posed: {posed}")
            question["id"] = question_id = posed[ids.QUESTION]["data"]["id"]
            question = question_id
            lecturer_waits(base, bodies, code, token, question, 1, counts, errors)
            for button in (ids.DISCUSS, ids.VOTE2):
                sent = time.time()
                steps.append((post(requests, bodies.step(code, token, question, button), base)[0], time.time() - sent))
                if button == ids.DISCUSS:
                    time.sleep(DISCUSS_FOR)
            lecturer_waits(base, bodies, code, token, question, 2, counts, errors)
            sent = time.time()
            revealed = post(requests, bodies.reveal(code, token, question), base)[1]
            steps.append((200 if revealed else 0, time.time() - sent))
            until.set()
            attackers.join(30)
            outs = [f.result() for f in futures]
        exported = post(requests, bodies.export(code, token), base)[1][ids.DOWNLOAD]["data"]["content"]
        size = Store(env.get("DATABASE_URL"), env.get("DATA_DIR")).size()
    finally:
        until.set()
        stop(server)
    sent = {k: {s: v for o in outs for s, v in o["sent"][k].items()} for k in (1, 2)}
    saw = {s: v for o in outs for s, v in o["saw"].items()}
    for o in outs:
        errors.update(o["errors"])
    answers, polls, joins, late = ([x for o in outs for x in o[k]] for k in ("answer", "poll", "join", "late"))
    rows = list(csv.DictReader(io.StringIO(exported)))
    held = {k: Counter(r["answer"] for r in rows if r["vote"] == str(k)) for k in (1, 2)}
    lost = sum(max(0, n - held[k][f"key {v}"]) for k in (1, 2) for v, n in Counter(sent[k].values()).items())
    results = str(revealed[ids.RESULTS]["children"])
    both = "Vote 1: " in results and "Vote 2: " in results and revealed[ids.COUNT]["children"] == all_answered(2)
    own = all(saw.get(s, "").startswith(f"You answered key {sent[1][s]} then key {sent[2][s]}.") for s in sent[2])
    print(f"{name}: {len(sent[1])} students voted, {len(sent[2])} voted again, {len(answers)} answer posts (changes "
          f"included); lost: {lost}; export rows {len(rows)} = {len(sent[1]) + len(sent[2])} votes: "
          f"{'yes' if len(rows) == len(sent[1]) + len(sent[2]) else 'NO'}; the reveal shows both votes: "
          f"{'yes' if both else 'NO'}; every student saw both own votes and the truth: "
          f"{'yes' if own and len(saw) == STUDENTS else 'NO'}")
    print(f"  joins (page + {len(join)} callbacks + join, {len(joins)}): p50 {p(joins, 0.5):.0f} ms, "
          f"p99 {p(joins, 0.99):.0f} ms")
    print(f"  answer posts: p50 {p(answers, 0.5):.1f} ms, p99 {p(answers, 0.99):.1f} ms, max {p(answers, 1):.1f} ms")
    print(f"  student polls ({len(polls)}): p50 {p(polls, 0.5):.1f} ms, p99 {p(polls, 0.99):.1f} ms, "
          f"max {p(polls, 1):.1f} ms")
    print(f"  head count polls ({len(counts)}): p50 {p(counts, 0.5):.1f} ms, p99 {p(counts, 0.99):.1f} ms; lecturer "
          f"steps (discuss, vote again, reveal with its figure): {', '.join(f'{t * 1000:.0f} ms' for _, t in steps)}")
    print(f"  client schedule late: p99 {p(late, 0.99):.0f} ms; errors: {sum(errors.values())} {dict(errors) or ''}")
    print(f"  database size: {size / 1024:.0f} KiB; joins asked to wait (store's pace): "
          f"{sum(o['join_waits'] for o in outs)}")
    health = seen["health"]
    print(f"  20 attackers ({', '.join(f'{n} {k}' for k, n in ATTACK_THREADS.items())}): {seen['tries']} sybil "
          f"rounds, {seen['places']} places got, {seen['acknowledged']} sybil votes acknowledged, {seen['errors']} "
          f"connection errors; /healthz {len(health)} requests, p50 {p(health, 0.5):.1f} ms, p99 "
          f"{p(health, 0.99):.1f} ms; the class's histogram holds only the class's votes: "
          f"{'yes' if len(rows) == len(sent[1]) + len(sent[2]) and not lost else 'NO'}")


def main():
    print(f"{STUDENTS} students, two votes, over HTTP, gunicorn 2 workers x 4 threads; load average before: "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    global BODIES
    BODIES = bodies = Bodies(create_apps()[1])
    with tempfile.TemporaryDirectory() as data_dir:
        bench("SQLite (WAL)", {"DATA_DIR": data_dir}, bodies)
    with postgres_server() as url:
        bench("PostgreSQL 15", {"DATABASE_URL": url}, bodies)


if __name__ == "__main__":
    main()
