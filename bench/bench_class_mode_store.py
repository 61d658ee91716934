"""Class mode's store under a class: 200 students answer one question, on SQLite and on PostgreSQL.

Two processes stand for two gunicorn workers with 4 threads each; each serves 100 students. Every
student joins in the first second, polls the question every second as the page does, answers once
within 10 s (one in five changes the answer once), and polls until it sees the reveal. The lecturer
polls the live count every 0.5 s and reveals once all 200 are in. A request's latency runs from
when the student sent it to its result, so it includes waiting for a free thread.
Store level only: no HTTP yet. PostgreSQL is a throwaway Debian server (tests/pg.py), fsync on.

Run: python bench/bench_class_mode_store.py
"""

import os
import random
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from heapq import heappop, heappush
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dashboard.classmode.store import Store, StoreError  # noqa: E402
from tests.pg import postgres_server  # noqa: E402

STUDENTS = 200
WORKERS, THREADS = 2, 4
ANSWER_WITHIN = 10.0
POLL_EVERY = 1.0
LECTURER_POLL = 0.5
GIVE_UP = 30.0  # the run stops by itself


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else float("nan")


def worker(where: tuple, code: str, question: str, ids: list[str], t0: float, seed: int) -> dict:
    """One "gunicorn worker": its students' requests, each at its time, on THREADS threads."""
    store = Store(*where)
    rng = random.Random(seed)
    lock = threading.Lock()
    out = {"answer": [], "poll": [], "errors": Counter(), "sent": {}, "saw": {}}
    events = []  # (when, order, student, action): action "poll", or (answer, a change (when, answer) or None)
    for i, student in enumerate(ids):
        heappush(events, (t0 + rng.uniform(0, 1), i, student, "poll"))
        answer_at = t0 + rng.uniform(1, ANSWER_WITHIN)
        change = (rng.uniform(answer_at, t0 + ANSWER_WITHIN), rng.randrange(12)) if rng.random() < 0.2 else None
        heappush(events, (answer_at, i, student, (rng.randrange(12), change)))
    order, in_flight = len(ids), 0

    def run(when, student, action):
        nonlocal order, in_flight
        then = None
        try:
            if action == "poll":
                view = store.student_view(code, student)
                done = view["phase"] == "revealed"
                if done:
                    out["saw"][student] = (view["answers"].get(1), view["truth"])
            else:
                store.answer(code, student, question, action[0])
                out["sent"][student], change = action[0], action[1]
                if change:  # sent once this answer is in, as a student changes it
                    then = (max(change[0], time.time()), (change[1], None))
                done = True
        except StoreError as e:
            out["errors"][type(e).__name__ + ": " + str(e)] += 1
            done = True
        except Exception:
            out["errors"][traceback.format_exc(limit=1)] += 1
            done = True
        with lock:
            out["poll" if action == "poll" else "answer"].append(time.time() - when)
            if not done and when < t0 + GIVE_UP:
                order += 1
                heappush(events, (when + POLL_EVERY, order, student, "poll"))
            if then:
                order += 1
                heappush(events, (then[0], order, student, then[1]))
            in_flight -= 1

    with ThreadPoolExecutor(THREADS) as pool:
        while True:
            with lock:
                due = events and events[0][0] <= time.time()
                if due:
                    when, _, student, action = heappop(events)
                    in_flight += 1
                elif not events and not in_flight:
                    break
            if due:
                pool.submit(run, when, student, action)
            else:
                time.sleep(0.002)
    out["errors"] = dict(out["errors"])
    return out


def bench(name: str, where: tuple, size_note: str) -> None:
    """where: (database_url, data_dir), as Store takes them."""
    store = Store(*where)
    code, token = store.create_session()
    truth = 4
    question = store.pose(code, token, dict(template="key", truth=truth, prompt="In head 2, which key will query 5 "
                                            "attend to most?", h=4, seed=7, n=12, head=1, query=4))
    ids = [store.join(code, f"10.0.{k // 250}.{k % 250}") for k in range(STUDENTS)]  # the server issues them
    t0 = time.time() + 1.5  # the workers start meanwhile
    counts, errors = [], Counter()
    with ProcessPoolExecutor(WORKERS) as pool:
        futures = [pool.submit(worker, where, code, question, ids[seed::WORKERS], t0, seed)
                   for seed in range(WORKERS)]
        time.sleep(max(0.0, t0 - time.time()))
        while time.time() < t0 + GIVE_UP:  # the lecturer's projector
            sent = time.time()
            try:
                count = store.count(code, token, question)["answered"]
            except StoreError as e:
                errors[str(e)] += 1
                count = 0
            counts.append(time.time() - sent)
            if count >= STUDENTS and time.time() > t0 + ANSWER_WITHIN:
                break
            time.sleep(LECTURER_POLL)
        store.step(code, token, question, "revealed")
        revealed = store.results(code, token, question)["votes"][0]
        outs = [f.result() for f in futures]
    sent = {s: v for o in outs for s, v in o["sent"].items()}
    saw = {s: v for o in outs for s, v in o["saw"].items()}
    for o in outs:
        errors.update(o["errors"])
    answers = [x for o in outs for x in o["answer"]]
    polls = [x for o in outs for x in o["poll"]]
    exact = (revealed["count"] == len(sent) == STUDENTS
             and revealed["counts"] == [Counter(sent.values())[k] for k in range(12)]
             and saw == {s: (v, truth) for s, v in sent.items()})
    print(f"{name}: {len(sent)} students answered, {len(answers)} answer posts (changes included), "
          f"{revealed['count']} counted at the reveal; each counted once with its last value: "
          f"{'yes' if exact else 'NO'}; every student saw own answer and truth after the reveal: "
          f"{'yes' if len(saw) == len(sent) else 'NO'}")
    print(f"  answer posts: p50 {p(answers, 0.5):.1f} ms, p99 {p(answers, 0.99):.1f} ms, max {p(answers, 1):.1f} ms")
    print(f"  student polls ({len(polls)}): p50 {p(polls, 0.5):.1f} ms, p99 {p(polls, 0.99):.1f} ms, "
          f"max {p(polls, 1):.1f} ms")
    print(f"  lecturer count polls ({len(counts)}): p99 {p(counts, 0.99):.1f} ms")
    print(f"  errors: {sum(errors.values())} {dict(errors) or ''}")
    print(f"  database size: {store.size() / 1024:.0f} KiB ({size_note})")
    store.end_session(code, token)


def main():
    print(f"{STUDENTS} students, {WORKERS} processes x {THREADS} threads; "
          f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as data_dir:
        bench("SQLite (WAL)", (None, data_dir), "file and write-ahead log")
    with postgres_server() as url:
        bench("PostgreSQL 15", (url, None), "the class-mode tables and their indexes")


if __name__ == "__main__":
    main()
