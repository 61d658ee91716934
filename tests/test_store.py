"""Class mode's store, against SQLite and a real PostgreSQL server (tests/pg.py)."""

import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from dashboard.classmode.store import (Closed, Forbidden, Full, BadRequest, JoinWait, NotFound, PlacesHeld, RateLimited,
                                       RateLimiter, Store, StoreError, Unavailable)
from dashboard.classmode.store import SQLITE_FILE, lecture, schema, sessions, students
from tests.conftest import ROOT
from tests.pg import pg_ctl, postgres_server

ADDRESS = "10.0.0.1"


class Clock:
    def __init__(self):
        self.t = 1.9e9

    def __call__(self):
        return self.t


@pytest.fixture(scope="module")
def pg_server():
    with postgres_server(fsync=False) as url:
        yield url


_databases = itertools.count()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.server)])
def database(request, tmp_path):
    """Store arguments for an empty database: (database_url, data_dir)."""
    if request.param == "sqlite":
        return None, tmp_path
    server = request.getfixturevalue("pg_server")
    name = f"test_{next(_databases)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name, None


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(database, clock):
    return Store(*database, clock=clock)


def rows(store, table: str) -> list:
    """Every row of a table, read directly from the database."""
    return store.db.run(False, lambda cur: cur.all(f"SELECT * FROM {table} ORDER BY 1, 2"))


def key_question(store, code, token, truth=3, **extra):
    q = dict(template="key", prompt="In head 2, which key will query 5 attend to most?", n=12, truth=truth, h=4,
             seed=7, head=1, query=4) | extra
    return store.pose(code, token, q)


def joined(store, code, k: int, address: str = ADDRESS) -> list[str]:
    """k students join from one address, at the pace the store takes (a test clock waits when it says so)."""
    ids, ticket = [], None
    while len(ids) < k:
        try:
            ids.append(store.join(code, address, ticket))
            ticket = None
        except JoinWait as wait:
            ticket = wait.ticket  # its place in the queue, sent back as the page does
            store.clock.t += students.JOIN_WINDOW
    return ids


def test_a_session_has_a_short_code_and_a_long_token_stored_only_as_a_hash(store):
    code, token = store.create_session(ADDRESS)
    code2, token2 = store.create_session(ADDRESS)
    assert len(code) == 6 and set(code) <= set("ABCDEFGHJKMNPQRSTUVWXYZ23456789") and code != code2
    assert len(token) == 43 and token != token2
    [(stored_code, token_hash, owner, *_), _] = sorted(rows(store, "class_sessions"), key=lambda r: r[0] != code)
    assert stored_code == code and token not in token_hash and token_hash == schema.token_hash(token)
    assert ADDRESS not in str(rows(store, "class_sessions"))  # the address is kept as a digest only
    assert store.questions(code.lower() + " ", token) == []  # a code typed in lower case, with a space


@pytest.mark.parametrize("forged", [None, "", "x" * 43, 12345, "x" * 10_000, ["token"], "\ud800" * 43,
                                    "A" * 42 + "\u0000", "A" * 42 + "é"])
def test_only_the_control_token_runs_a_session(store, forged):
    code, token = store.create_session(ADDRESS)
    other_code, other_token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    [student] = joined(store, code, 1)
    store.answer(code, student, q, 2)
    before = rows(store, "class_questions"), rows(store, "class_answers"), rows(store, "class_sessions")
    for bad in (forged, other_token):
        with pytest.raises(Forbidden):
            key_question(store, code, bad)
        for call in (store.results, store.count):
            with pytest.raises(Forbidden):
                call(code, bad, q)
        with pytest.raises(Forbidden):
            store.step(code, bad, q, "revealed")
        for call in (store.questions, store.export, store.end_session):
            with pytest.raises(Forbidden):
                call(code, bad)
        assert not store.running(code, bad)
    assert (rows(store, "class_questions"), rows(store, "class_answers"), rows(store, "class_sessions")) == before
    assert store.count(code, token, q)["answered"] == 1 and store.running(code, token)


# Lone surrogates, NUL, other scripts, the wrong length, the wrong type: each refused with the store's own
# message, before any hash or query (a surrogate failed in the hash, a NUL in psycopg).
FORGED_STRINGS = ["\ud800", "\udfff" * 22, "\u0000", "A" * 21 + "\u0000", "ABC23\u0000", "ABC2\ud8003", "é" * 22,
                  "ſ" * 6, "x" * 10_000, "", None, 7, 2.5, ["ABC234"], {"id": 1}, "A" * 22 + "\n", " " * 22]


@pytest.mark.parametrize("forged", FORGED_STRINGS, ids=[repr(s)[:20] for s in FORGED_STRINGS])
def test_every_forged_string_is_refused_with_a_message(store, forged):
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    [student] = joined(store, code, 1)
    calls = [lambda: store.join(forged), lambda: store.student_view(forged, student),
             lambda: store.student_view(code, forged), lambda: store.answer(forged, student, q, 1),
             lambda: store.answer(code, forged, q, 1), lambda: store.answer(code, student, forged, 1),
             lambda: store.member(code, forged), lambda: store.create_session(forged)]
    for run in (lambda: store.pose(forged, token, {}), lambda: store.count(code, token, forged),
                lambda: store.count(forged, token, q), lambda: store.step(code, token, forged, "discuss"),
                lambda: store.step(code, token, q, forged), lambda: store.results(code, forged, q),
                lambda: store.export(forged, token), lambda: store.end_session(code, forged)):
        calls.append(run)
    for call in calls:
        try:
            call()
        except StoreError as refused:
            assert str(refused) and "\\u" not in str(refused)
    assert store.count(code, token, q) == {"id": q, "phase": "vote1", "round": 1, "joined": 1, "answered": 0,
                                           "remaining": None, "class_size": None, "joining": True}


@pytest.mark.parametrize("code", ["ZZZZZZ", "abc", "", None, 7, "ABC23O", "A" * 300])
def test_an_unknown_or_malformed_join_code_is_not_found(store, code):
    real, token = store.create_session(ADDRESS)
    q = key_question(store, real, token)
    [student] = joined(store, real, 1)
    for call in (lambda: store.join(code), lambda: store.student_view(code, student),
                 lambda: store.answer(code, student, q, 1), lambda: store.member(code, student)):
        with pytest.raises(NotFound):
            call()
    assert rows(store, "class_answers") == []


BAD_QUESTIONS = [
    dict(template="guess"),
    dict(template=None),
    dict(n=None),
    dict(n=1),
    dict(n=49),
    dict(n=12.0),
    dict(truth=12),
    dict(truth=-1),
    dict(truth=2.0),
    dict(truth=True),
    dict(accepted=[3, 3]),
    dict(accepted=[4]),  # the truth must be accepted
    dict(accepted=list(range(12))),  # every option right: nothing to ask
    dict(accepted=[3, "4"]),
    dict(accepted="3"),
    dict(tolerance=0.1),
    dict(template="amount", n=None, truth=float("nan"), tolerance=0.01, lo=0.0, hi=1.0),
    dict(template="amount", n=None, truth=1.5, tolerance=0.01, lo=0.0, hi=1.0),
    dict(template="amount", n=None, truth=0.5, tolerance=0.01, lo=0.6, hi=1.0),
    dict(template="amount", n=None, truth=0.5, tolerance=0.0, lo=0.0, hi=1.0),
    dict(template="amount", n=3, truth=0.5, tolerance=0.01, lo=0.0, hi=1.0),
    dict(template="amount", n=None, truth=0.5),
    dict(template="role", n=2, truth=2, head=None),
    dict(prompt=""),
    dict(prompt="   "),
    dict(prompt="x" * 301),
    dict(prompt=None),
    dict(prompt="Which\u0000key?"),
    dict(prompt="\ud800"),
    dict(h=3),
    dict(h=True),
    dict(h="8"),
    dict(h=4.0),
    dict(seed=-1),
    dict(seed=2**31),
    dict(seed="0"),
    dict(size=1),
    dict(size=17),
    dict(scale="\ud800"),
    dict(tau=11),
    dict(weights="learned"),
    dict(timer=7),
    dict(timer="60"),
    dict(head=4),  # h = 4: heads 0..3
    dict(head=-1),
    dict(query=12),
    dict(key=1.5),
    dict(key=3),  # the answer, in the state students see
    dict(template="sharpest", n=4, truth=1, head=1),
    dict(colour="red"),
]


@pytest.mark.parametrize("bad", BAD_QUESTIONS, ids=[repr(b)[:40] for b in BAD_QUESTIONS])
def test_a_bad_question_is_refused_and_nothing_changes(store, bad):
    code, token = store.create_session(ADDRESS)
    with pytest.raises(BadRequest):
        key_question(store, code, token, **bad)
    assert store.questions(code, token) == [] and rows(store, "class_sessions")[0][6] == 0


def test_students_get_their_ids_from_the_server_and_answer_once_each(store):
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    a, b = joined(store, code, 2)
    assert a != b and schema.STUDENT_ID_PATTERN.fullmatch(a)
    assert store.member(code, a) and not store.member(code, "A" * 22)
    made_up = "B" * 22  # the right format, but never issued
    with pytest.raises(NotFound, match="no session with this code"):
        store.answer(code, made_up, q, 1)
    with pytest.raises(NotFound):
        store.student_view(code, made_up)
    other, other_token = store.create_session(ADDRESS)
    with pytest.raises(NotFound):  # an id is good in its own session only
        store.answer(other, a, key_question(store, other, other_token), 1)
    for value in (1, 5, 5, 2):
        store.answer(code, a, q, value)  # changes, never a second answer
    store.answer(code, b, q, 2)
    assert store.count(code, token, q) | {"id": None} == {"id": None, "phase": "vote1", "round": 1, "joined": 2,
                                                          "answered": 2, "remaining": None, "class_size": None,
                                                          "joining": True}
    assert [(r[1], r[3], r[4]) for r in sorted(rows(store, "class_answers"), key=lambda r: r[4])] == \
        [(1, 2.0, 0), (1, 2.0, 3)]


@pytest.mark.slow
def test_a_flood_of_made_up_students_closes_nothing(store):
    """1,200 answers with fresh ids from one address: refused, and a new student's answer is still counted."""
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    refused = 0
    for k in range(1200):
        try:
            store.answer(code, f"{k:022d}", q, 11)
        except NotFound:
            refused += 1
    assert refused == 1200 and rows(store, "class_answers") == []
    [newcomer] = joined(store, code, 1)
    assert store.answer(code, newcomer, q, 3) == 1
    assert store.count(code, token, q)["answered"] == 1


def test_joining_is_bounded_per_address_and_per_session(store, monkeypatch):
    monkeypatch.setattr(students, "MAX_STUDENTS", 5)
    monkeypatch.setattr(students, "MAX_STUDENTS_PER_OWNER", 3)
    code, token = store.create_session(ADDRESS)
    joined(store, code, 3)
    with pytest.raises(Full, match="from this address"):
        store.join(code, ADDRESS)
    joined(store, code, 2, "10.0.0.2")  # another address still joins ...
    with pytest.raises(Full, match="as many students as it takes"):
        store.join(code, "10.0.0.3")  # ... up to the session's bound
    assert len(rows(store, "class_students")) == 5


def test_joins_from_one_address_go_at_a_human_pace_exactly(store, clock):
    code, _token = store.create_session(ADDRESS)
    for _ in range(students.JOINS_PER_WINDOW):
        store.join(code, ADDRESS)  # a burst of JOINS_PER_WINDOW at one instant: all in
    with pytest.raises(JoinWait, match="joins by itself in a moment") as first:
        store.join(code, ADDRESS)
    store.join(code, "10.0.0.2")  # another address is not slowed
    clock.t += students.JOIN_WINDOW - 0.001  # just inside: the burst is still in the window
    with pytest.raises(JoinWait):
        store.join(code, ADDRESS, first.value.ticket)
    clock.t += 0.001  # just outside
    store.join(code, ADDRESS, first.value.ticket)


def queued_behind_a_full_window(store, code, k: int, address: str = ADDRESS) -> list[str]:
    """A window's JOINS_PER_WINDOW students join from the address at once, then k pages are asked to wait: their
    tickets, in the order they came."""
    for _ in range(students.JOINS_PER_WINDOW):
        store.join(code, address)
    tickets = []
    for _ in range(k):
        with pytest.raises(JoinWait) as wait:
            store.join(code, address)
        tickets.append(wait.value.ticket)
    return tickets


def test_joins_from_one_address_are_first_come_first_served(store, clock):
    """A page asked to wait keeps its turn with its ticket: a script that tries again fast, without it, queues behind
    every page that came earlier, and a forged or expired ticket is a new arrival."""
    code, _token = store.create_session(ADDRESS)
    tickets = queued_behind_a_full_window(store, code, 3)
    assert len(set(tickets)) == 3
    clock.t += students.JOIN_WINDOW + 0.001  # the window has room for 40 again: the queue goes first
    for forged in (None, "x" * 22, tickets[0][::-1], 7):
        with pytest.raises(JoinWait):  # a new arrival (a made-up ticket is one) waits behind the queue
            store.join(code, ADDRESS, forged)
    for ticket in reversed(tickets):  # within the window's room, every ticket's turn has come
        store.join(code, ADDRESS, ticket)
    with pytest.raises(JoinWait):  # a used ticket is no place: a new arrival, behind the 4 still queued
        store.join(code, ADDRESS, tickets[0])
    clock.t += students.TICKET_LIFE + 0.001  # the queue's pages never came back: their places are free
    assert store.join(code, ADDRESS)


def test_a_ticket_holds_a_place_of_the_class_until_it_lapses(store, clock):
    """Pages that came first hold their places while they wait their turn: a script from outside gets only what the
    class size leaves, and is asked to wait (PlacesHeld), not refused, while the places left are only held; a
    ticket not sent back within TICKET_LIFE frees its place."""
    code, token = store.create_session(ADDRESS)
    store.roster(code, token, size=students.JOINS_PER_WINDOW + 2)
    start = clock.t
    waits = queued_behind_a_full_window(store, code, 2)
    with pytest.raises(PlacesHeld, match="held by a student who is joining"):
        store.join(code, "10.5.0.1")
    clock.t += students.JOIN_WINDOW - 0.001  # the first page comes back (still waiting), the second never does
    with pytest.raises(JoinWait):
        store.join(code, ADDRESS, waits[0])
    clock.t = start + students.TICKET_LIFE - 0.001  # just inside the second's life: its place is still held
    with pytest.raises(PlacesHeld):
        store.join(code, "10.5.0.1")
    clock.t += 0.002  # just outside: its place is free; the first's ticket was renewed, so it keeps its own
    assert store.join(code, "10.5.0.1")
    with pytest.raises(PlacesHeld):
        store.join(code, "10.5.0.2")
    assert store.join(code, ADDRESS, waits[0])  # the window has room: its turn
    assert store.roster(code, token)["joined"] == students.JOINS_PER_WINDOW + 2
    with pytest.raises(Full, match="its 42 students have joined"):  # every place taken: refused, not asked to wait
        store.join(code, "10.5.0.2")


def test_of_two_tickets_for_the_window_s_last_place_the_earlier_gets_it(store, clock):
    code, _token = store.create_session(ADDRESS)
    tickets = queued_behind_a_full_window(store, code, students.JOINS_PER_WINDOW + 1)
    clock.t += students.JOIN_WINDOW + 0.001
    for ticket in tickets[:-2]:  # 39 of the window's 40 places
        store.join(code, ADDRESS, ticket)
    with pytest.raises(JoinWait):  # the later asks first: one ticket is ahead of it, and one place is left
        store.join(code, ADDRESS, tickets[-1])
    assert store.join(code, ADDRESS, tickets[-2])
    with pytest.raises(JoinWait):
        store.join(code, ADDRESS, tickets[-1])


def test_a_ticket_is_queued_only_in_its_session_for_its_address_while_it_lives(store, clock):
    code, _token = store.create_session(ADDRESS)
    other, _token = store.create_session("10.0.0.2")
    [ticket] = queued_behind_a_full_window(store, code, 1)
    assert store.queued(code, ticket, ADDRESS) and store.queued(code.lower(), ticket, ADDRESS)
    for forged in [(other, ticket, ADDRESS), (code, ticket, "10.0.0.3"), (code, ticket[::-1], ADDRESS),
                   (code, None, ADDRESS), (code, True, ADDRESS), (code, "x" * 5000, ADDRESS), ("ZZZ", ticket, ADDRESS)]:
        assert not store.queued(*forged), forged
    clock.t += students.TICKET_LIFE  # just at its end: still live
    assert store.queued(code, ticket, ADDRESS)
    clock.t += 0.001
    assert not store.queued(code, ticket, ADDRESS)


def test_a_ticket_gets_no_place_once_the_lecturer_has_made_the_class_smaller(store, clock):
    code, token = store.create_session(ADDRESS)
    [ticket] = queued_behind_a_full_window(store, code, 1)
    store.roster(code, token, size=students.JOINS_PER_WINDOW)  # the class is in: the lecturer states its size
    clock.t += students.JOIN_WINDOW + 0.001
    with pytest.raises(Full, match="The class is complete"):
        store.join(code, ADDRESS, ticket)
    assert store.roster(code, token)["joined"] == students.JOINS_PER_WINDOW


@pytest.mark.slow
def test_a_class_of_200_behind_one_address_joins_within_60_s_and_a_flood_gets_a_window_a_ticket_life(store, clock):
    """200 phones at one school address each try every 2 s (the page's poll) until they are in."""
    code, _token = store.create_session(ADDRESS)
    start, waiting, flood = clock.t, [None] * 200, 0  # each phone's ticket, once it has one
    while waiting and clock.t - start < 120:
        still = []
        for ticket in waiting:
            try:
                store.join(code, ADDRESS, ticket)
            except JoinWait as wait:
                still.append(wait.ticket)
        waiting = still
        clock.t += 2
    assert not waiting and clock.t - start <= 60
    other, _token = store.create_session("10.0.0.2")
    start = clock.t
    while clock.t - start < 30:  # a script: 100 tries a second for 30 s
        for _ in range(10):
            try:
                store.join(other, ADDRESS)
                flood += 1
            except (JoinWait, PlacesHeld):  # tickets it never sends back, up to its address's bound, then lapsed
                pass
        clock.t += 0.1
    # a window's 40 at once, then nothing until the tickets it took meanwhile (and never sent back) lapse
    assert students.JOINS_PER_WINDOW <= flood <= students.JOINS_PER_WINDOW * (1 + int(30 // students.TICKET_LIFE))


def test_the_class_owns_its_room_size_closing_and_answers(store, clock):
    """The lecturer states the class size: a script at the school's address or at four outside addresses gets no
    more places than the size leaves; once joining is closed, none; no question holds more answers than joined
    students; the class's histogram stays the class's."""
    code, token = store.create_session(ADDRESS)
    assert store.roster(code, token) == {"joined": 0, "class_size": None, "joining": True}
    assert store.roster(code, token, size=30) == {"joined": 0, "class_size": 30, "joining": True}
    q = key_question(store, code, token, truth=3)
    for k, student in enumerate(joined(store, code, 27)):  # 27 of the class are in
        store.answer(code, student, q, k % 4)
    script = []
    for _ in range(50):  # then a script floods from the class's address and four others
        store.clock.t += 0.5
        for address in (ADDRESS, "10.5.0.1", "10.5.0.2", "10.5.0.3", "10.5.0.4"):
            try:
                script.append(store.join(code, address))
            except (Full, JoinWait):
                pass
    assert store.count(code, token, q)["joined"] == 30 and len(script) == 3  # the 3 places the class left
    with pytest.raises(Full, match="The class is complete: its 30 students have joined"):
        store.join(code, "10.5.0.9")
    for sybil in script:
        store.answer(code, sybil, q, 11)
    heads = store.count(code, token, q)
    assert heads["answered"] == 30 <= heads["joined"] == heads["class_size"] == 30
    counts = store.step(code, token, q, "revealed") and store.results(code, token, q)["votes"][0]["counts"]
    assert counts[:4] == [7, 7, 7, 6] and counts[11] == 3 and sum(counts) == 30
    # closing joining with no stated size takes the head count as the class size
    other, other_token = store.create_session("10.0.0.7")
    joined(store, other, 2, "10.0.0.8")
    assert store.roster(other, other_token, size=None, joining=False) == {"joined": 2, "class_size": 2, "joining": False}
    with pytest.raises(Closed, match="closed joining"):
        store.join(other, "10.0.0.8")
    assert store.roster(other, other_token, size=None, joining=True)["class_size"] is None
    joined(store, other, 1, "10.0.0.8")
    for bad in (0, students.MAX_STUDENTS + 1, "30", 2.5, True):
        with pytest.raises(BadRequest):
            store.roster(other, other_token, size=bad)
    assert store.roster(other, other_token, size=students.MAX_STUDENTS)["class_size"] == students.MAX_STUDENTS
    with pytest.raises(BadRequest):
        store.roster(other, other_token, joining="no")
    with pytest.raises(Forbidden):
        store.roster(other, token, size=5)


def test_peer_instruction_vote_discuss_vote_again_reveal(store, clock):
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token, truth=3, accepted=[3, 7])
    a, b, c = joined(store, code, 3)
    store.answer(code, a, q, 1)
    store.answer(code, b, q, 3)
    seen = store.student_view(code, a)
    assert seen["phase"] == "vote1" and seen["answers"] == {1: 1}
    assert not set(schema.QUESTION_COLUMNS[7:11]) & set(seen) and "truth" not in seen  # no truth, no range
    with pytest.raises(Closed, match="after the reveal"):
        store.results(code, token, q)
    assert store.step(code, token, q, "discuss")["answered"] == 2
    with pytest.raises(Closed, match="Discuss your answer with your neighbour"):
        store.answer(code, c, q, 3)
    with pytest.raises(Closed):
        store.step(code, token, q, "discuss")
    heads = store.step(code, token, q, "vote2")
    assert (heads["phase"], heads["round"], heads["joined"], heads["answered"]) == ("vote2", 2, 3, 0)
    for student, value in ((a, 3), (b, 3), (c, 7)):
        assert store.answer(code, student, q, value) == 2
    assert store.student_view(code, a)["answers"] == {1: 1, 2: 3}
    store.step(code, token, q, "revealed")
    with pytest.raises(Closed, match="revealed"):
        store.answer(code, a, q, 1)
    result = store.results(code, token, q)
    assert [v["count"] for v in result["votes"]] == [2, 3]
    assert result["votes"][0]["counts"][:4] == [0, 1, 0, 1] and result["votes"][1]["counts"][3] == 2
    seen = store.student_view(code, c)
    assert seen["truth"] == 3 and seen["accepted"] == [3, 7] and schema.right(seen, seen["answers"][2])


def test_the_second_vote_can_be_skipped_and_a_timer_locks_the_vote(store, clock):
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token, timer=30)
    a, b = joined(store, code, 2)
    assert store.student_view(code, a)["remaining"] == 30
    clock.t += 29
    store.answer(code, a, q, 3)
    assert store.count(code, token, q)["remaining"] == 1
    clock.t += 2
    with pytest.raises(Closed, match="Time is up"):
        store.answer(code, b, q, 3)
    with pytest.raises(Closed, match="follows the discussion"):
        store.step(code, token, q, "vote2")
    store.step(code, token, q, "discuss")
    store.step(code, token, q, "vote2")  # the second vote, with the timer again
    store.answer(code, b, q, 4)
    clock.t += 31
    with pytest.raises(Closed, match="Time is up"):
        store.answer(code, a, q, 4)
    q2 = key_question(store, code, token)
    store.answer(code, a, q2, 1)
    assert store.step(code, token, q2, "revealed")["round"] == 1  # the second vote skipped
    assert [v["count"] for v in store.results(code, token, q2)["votes"]] == [1]


def test_posing_a_new_question_closes_the_earlier_one(store):
    code, token = store.create_session(ADDRESS)
    first = key_question(store, code, token)
    [a] = joined(store, code, 1)
    store.answer(code, a, first, 1)
    second = key_question(store, code, token)
    with pytest.raises(Closed, match="posed another"):
        store.answer(code, a, first, 2)
    with pytest.raises(Closed):
        store.step(code, token, first, "revealed")
    store.answer(code, a, second, 2)
    assert store.student_view(code, a)["id"] == second
    assert [q["phase"] for q in store.questions(code, token)] == ["closed", "vote1"]
    assert store.current(code, token) | {"answered": None} == store.questions(code, token)[1] | {"answered": None}


@pytest.mark.parametrize("kind, n, value", [
    ("key", 12, 12), ("key", 12, -1), ("key", 12, 3.0), ("key", 12, "3"), ("key", 12, True), ("key", 12, None),
    ("key", 12, [1]), ("key", 12, 10**30), ("role", 2, 2), ("role", 8, -1),
    ("amount", None, float("nan")), ("amount", None, float("inf")), ("amount", None, -0.01),
    ("amount", None, 1.0001), ("amount", None, "0.5"), ("amount", None, False), ("amount", None, None),
])
def test_a_forged_answer_is_refused_and_nothing_changes(store, kind, n, value):
    code, token = store.create_session(ADDRESS)
    truth = 0.5 if kind == "amount" else 1
    extra = dict(tolerance=0.05, lo=0.1, hi=0.9) if kind == "amount" else {}
    q = store.pose(code, token, dict(template=kind, prompt="?", h=8, seed=0, n=n, truth=truth, **extra))
    students_ = joined(store, code, 2)
    store.answer(code, students_[0], q, truth)
    before = rows(store, "class_answers")
    for student in students_:
        with pytest.raises(BadRequest):
            store.answer(code, student, q, value)
    assert rows(store, "class_answers") == before


def test_a_question_id_from_another_session_is_not_found(store):
    code, token = store.create_session(ADDRESS)
    other, other_token = store.create_session(ADDRESS)
    key_question(store, code, token)  # this session has a question open, only not that one
    q_other = key_question(store, other, other_token)
    [a] = joined(store, code, 1)
    for forged in (q_other, "nonsense", None, 3, "x" * 1000, "\ud800" * 16, "A" * 15 + "\u0000"):
        with pytest.raises(NotFound):
            store.answer(code, a, forged, 1)
        with pytest.raises(NotFound):
            store.count(code, token, forged)
        with pytest.raises(NotFound):
            store.step(code, token, forged, "revealed")
    assert rows(store, "class_answers") == [] and not any(r["phase"] == "revealed"
                                                          for r in store.questions(other, other_token))


def test_amount_questions_keep_their_tolerance_and_range_until_the_reveal(store):
    code, token = store.create_session(ADDRESS)
    q = store.pose(code, token, dict(template="amount", prompt="How large is A(2)_5,7?", h=4, seed=7, head=1,
                                     query=4, key=6, truth=0.25, tolerance=0.02, lo=0.05, hi=0.3))
    answered = joined(store, code, 4)
    for student, value in zip(answered, [0, 1, 0.5, 0.25]):
        store.answer(code, student, q, value)
    assert "tolerance" not in store.student_view(code, answered[0])
    store.step(code, token, q, "revealed")
    result = store.results(code, token, q)
    assert result["votes"][0]["values"] == [0.0, 0.25, 0.5, 1.0] and (result["lo"], result["hi"]) == (0.05, 0.3)
    assert schema.right(result, 0.27) and not schema.right(result, 0.28)


def test_the_export_is_anonymous_and_has_both_votes(store):
    code, token = store.create_session(ADDRESS)
    q1 = key_question(store, code, token)
    a, b = joined(store, code, 2)
    store.answer(code, a, q1, 3)
    store.answer(code, b, q1, 4)
    store.step(code, token, q1, "discuss")
    store.step(code, token, q1, "vote2")
    store.answer(code, b, q1, 3)
    questions, answers = store.export(code, token)
    assert [q["number"] for q in questions] == [1] and questions[0]["rounds"] == 2
    assert sorted((n, r, s, v) for n, r, s, v, _ in answers) == sorted([(1, 1, a, 3), (1, 1, b, 4), (1, 2, b, 3)])


def test_ending_a_session_deletes_it(store):
    code, token = store.create_session(ADDRESS)
    other, other_token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    [a] = joined(store, code, 1)
    store.answer(code, a, q, 1)
    key_question(store, other, other_token)
    store.end_session(code, token)
    for call in (lambda: store.student_view(code, a), lambda: store.answer(code, a, q, 2), lambda: store.join(code)):
        with pytest.raises(NotFound):
            call()
    for call in (lambda: store.questions(code, token), lambda: store.end_session(code, token)):
        with pytest.raises(Forbidden):
            call()
    assert rows(store, "class_answers") == [] and rows(store, "class_students") == []
    assert [r[0] for r in rows(store, "class_sessions")] == [other] and len(rows(store, "class_questions")) == 1


def test_sessions_expire_when_idle_and_at_the_latest_after_their_lifetime(database, clock):
    store = Store(*database, ttl_hours=8, idle_hours=2, clock=clock)
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    [a] = joined(store, code, 1)
    clock.t += 2 * 3600 - 100
    store.answer(code, a, q, 1)  # activity: the session is not idle
    clock.t += 2 * 3600 - 100
    store.student_view(code, a)  # a poll is no activity ...
    later, later_token = store.create_session(ADDRESS)
    assert store.count(code, token, q)["answered"] == 1
    clock.t += 200  # ... so two hours after the answer the session has gone
    for call in (lambda: store.student_view(code, a), lambda: store.answer(code, a, q, 1)):
        with pytest.raises(NotFound):
            call()
    with pytest.raises(Forbidden):
        store.questions(code, token)
    assert store.purge() == 1 and store.purge() == 0
    assert [r[0] for r in rows(store, "class_sessions")] == [later] and rows(store, "class_answers") == []
    for _ in range(5):  # busy all along: still ends after its lifetime
        clock.t += 3600
        key_question(store, later, later_token)
    clock.t += 3 * 3600
    with pytest.raises(Forbidden):
        key_question(store, later, later_token)


def test_the_session_lifetimes_come_from_the_environment(database, clock, monkeypatch):
    url, data_dir = database
    monkeypatch.setenv("CLASS_SESSION_HOURS", "0.5")
    monkeypatch.setenv("CLASS_IDLE_HOURS", "0.25")
    monkeypatch.setenv("DATA_DIR", str(data_dir)) if data_dir else monkeypatch.setenv("DATABASE_URL", url)
    store = Store.from_env()
    assert (store.ttl, store.idle) == (1800, 900) and type(store.db.backend) is (sessions.SQLite if data_dir
                                                                                  else sessions.Postgres)


def test_no_session_is_ever_deleted_to_make_room_for_another(store, clock, monkeypatch):
    """Students at the school's address pressed "start" many times: the lecturer's session, with or without a
    question or students, stays; a start past the bound is refused, saying why and what to do."""
    monkeypatch.setattr(sessions, "MAX_SESSIONS_PER_OWNER", 3)
    lecture_code, _token = store.create_session(ADDRESS)
    joined(store, lecture_code, 2, "10.9.0.1")  # the class joined, before the first question
    for _ in range(2):
        clock.t += 1
        store.create_session(ADDRESS)
    before = rows(store, "class_sessions")
    for _ in range(5):
        clock.t += 1
        with pytest.raises(Full, match=r"runs 3 class sessions, as many as it may: end one with the 'end session'"
                                       r" button of its control link, or wait until one has been idle for 180 minutes"):
            store.create_session(ADDRESS)
    assert rows(store, "class_sessions") == before and len(rows(store, "class_students")) == 2
    store.create_session("10.0.0.2")  # another address is not held up


def test_a_full_server_refuses_a_start_and_frees_itself_as_sessions_go_idle(store, clock, monkeypatch):
    monkeypatch.setattr(sessions, "MAX_SESSIONS", 3)
    with_question = store.create_session("10.1.0.1")
    key_question(store, *with_question)
    store.create_session("10.1.0.2")
    clock.t += 600
    busy = store.create_session("10.1.0.3")
    before = rows(store, "class_sessions")
    with pytest.raises(Full, match="as many class sessions as it can: try again later. A session ends once it has"
                                   " been idle for 180 minutes"):
        store.create_session("10.1.0.10")
    assert rows(store, "class_sessions") == before  # nothing deleted
    clock.t += store.idle - 600 - 0.001  # just inside: the first two are not idle long enough yet
    with pytest.raises(Full):
        store.create_session("10.1.0.10")
    clock.t += 0.002  # just outside: the two idle ones (one with a question) have ended; the busy one stays
    store.create_session("10.1.0.10")
    codes = [r[0] for r in rows(store, "class_sessions")]
    assert with_question[0] not in codes and busy[0] in codes and len(codes) == 2


def test_everything_else_is_bounded(store, monkeypatch):
    monkeypatch.setattr(lecture, "MAX_QUESTIONS", 2)
    monkeypatch.setattr(students, "MAX_CHANGES", 2)
    code, token = store.create_session(ADDRESS)
    key_question(store, code, token)
    q = key_question(store, code, token)
    with pytest.raises(Full):
        key_question(store, code, token)
    assert len(store.questions(code, token)) == 2
    [a] = joined(store, code, 1)
    for value in (1, 2, 3):
        store.answer(code, a, q, value)
    with pytest.raises(Full):  # two changes and no more
        store.answer(code, a, q, 4)
    store.step(code, token, q, "discuss")
    store.step(code, token, q, "vote2")
    store.answer(code, a, q, 5)  # a new round, a new answer


def test_threads_answering_at_once_are_each_counted_once(store):
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    ids = [store.join(code, f"10.2.{k // 250}.{k % 250}") for k in range(200)]

    def answer(group):
        for s in group:
            store.answer(code, s, q, 1)
            store.answer(code, s, q, len(s) % 12)

    threads = [threading.Thread(target=answer, args=(ids[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.count(code, token, q)["answered"] == 200
    store.step(code, token, q, "revealed")
    assert sum(store.results(code, token, q)["votes"][0]["counts"]) == 200


@pytest.mark.parametrize("round", range(2))
def test_no_answer_slips_in_after_the_reveal(store, round, monkeypatch):
    monkeypatch.setattr(students, "MAX_CHANGES", 10**6)
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    ids = joined(store, code, 200)
    last, closed, errors = {}, [], []  # the last accepted answer of each student
    go = threading.Barrier(9, timeout=60)

    def answer(group):
        """Answer and change answers until the reveal refuses one (or 40 rounds, if it never does)."""
        go.wait()
        for k, s in enumerate(itertools.islice(itertools.cycle(group), 40 * len(group))):
            try:
                store.answer(code, s, q, k % 12)
            except Closed:
                return closed.append(s)
            except Exception as e:
                return errors.append(e)
            last[s] = k % 12

    threads = [threading.Thread(target=answer, args=(ids[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    go.wait()
    deadline = time.monotonic() + 60
    while store.count(code, token, q)["answered"] < 20:  # reveal while answers are coming in
        assert time.monotonic() < deadline and not errors, f"answers stopped short: {errors}"
    store.step(code, token, q, "revealed")
    revealed = store.results(code, token, q)["votes"][0]
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads) and errors == [] and len(closed) == 8
    assert revealed["counts"] == [list(last.values()).count(v) for v in range(12)]
    assert revealed["count"] == len(last) == store.count(code, token, q)["answered"]


def test_a_query_may_hold_a_literal_question_mark_or_percent_sign(store):
    """Placeholders are the driver's own: a ? or % written in the SQL is SQL, not a parameter."""
    code, token = store.create_session(ADDRESS)
    store.pose(code, token, dict(template="amount", prompt="Does 50% of the weight go to one key?", h=4, seed=7,
                                 truth=0.5, tolerance=0.05, lo=0.0, hi=1.0))
    key_question(store, code, token)  # its prompt ends in ? too, without 50%
    assert store.db.run(False, lambda cur: cur.all(
        "SELECT number, '?%' FROM class_questions WHERE prompt LIKE '%50%?' AND session = {}", code)) == [(1, "?%")]


def test_the_rate_limiter_refuses_bursts_per_client():
    clock = Clock()
    limit = RateLimiter(rate=2, burst=3, clock=clock)
    for _ in range(3):
        limit.check("10.0.0.1")
    with pytest.raises(RateLimited, match="Too many answers at once") as refused:
        limit.check("10.0.0.1")
    assert refused.value.retry_after == 0.5  # when the next answer is back
    limit.check("10.0.0.2")
    clock.t += 0.5
    limit.check("10.0.0.1")
    with pytest.raises(RateLimited):
        limit.check("10.0.0.1")


def test_the_rate_limiter_forgets_clients_and_stays_bounded(monkeypatch):
    monkeypatch.setattr(RateLimiter, "MAX_CLIENTS", 10)
    clock = Clock()
    limit = RateLimiter(rate=1, burst=2, clock=clock)
    limit.check("busy")
    limit.check("busy")
    for i in range(20):
        clock.t += 1
        limit.check(f"client {i}")
    assert len(limit._buckets) <= 10
    assert "busy" not in limit._buckets  # refilled long ago
    for i in range(25):  # more busy clients than it keeps: it forgets, and stays bounded
        limit.check(f"other {i}")
        assert len(limit._buckets) <= 10


# A second process: it answers for its students and prints each student once the answer is stored.
CHILD = """
import sys
from dashboard.classmode.store import Store
store = Store.from_env()
code, q = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    student = line.strip()
    store.answer(code, student, q, len(student) % 12)
    print(student, flush=True)
"""


def child(database, code, q, ids) -> subprocess.Popen:
    url, data_dir = database
    env = {**os.environ, "PYTHONPATH": str(ROOT)} | ({"DATABASE_URL": url} if url else {"DATA_DIR": str(data_dir)})
    proc = subprocess.Popen([sys.executable, "-c", CHILD, code, q], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    proc.stdin.write("".join(f"{s}\n" for s in ids))
    proc.stdin.close()
    return proc


@pytest.mark.slow
def test_processes_share_a_session_and_answers_survive_a_killed_process(database):
    store = Store(*database)
    code, token = store.create_session(ADDRESS)
    q = key_question(store, code, token)
    ids = [store.join(code, f"10.3.{k // 250}.{k % 250}") for k in range(1000)]
    a, b = child(database, code, q, ids[:100]), child(database, code, q, ids[100:200])
    assert a.wait(60) == 0 and b.wait(60) == 0
    assert store.count(code, token, q)["answered"] == 200

    q2 = key_question(store, code, token)
    killed = child(database, code, q2, ids)  # would go on longer than the test waits
    confirmed = [killed.stdout.readline().strip() for _ in range(50)]
    killed.send_signal(signal.SIGKILL)
    killed.wait(10)
    confirmed += killed.stdout.read().split()  # printed before the kill
    killed.stdout.close()
    assert killed.returncode == -signal.SIGKILL
    restarted = Store(*database)  # as a new worker would
    counted = restarted.count(code, token, q2)["answered"]
    assert len(confirmed) <= counted <= len(confirmed) + 1  # at most the one in flight was not printed
    assert {s: restarted.student_view(code, s)["answers"] for s in confirmed} == \
        {s: {1: len(s) % 12} for s in confirmed}


def test_the_sqlite_store_needs_no_setup_and_uses_wal(tmp_path):
    data_dir = tmp_path / "new" / "folder"
    store = Store(data_dir=data_dir)
    store.create_session()
    path = data_dir / SQLITE_FILE
    assert path.exists() and store.size() >= path.stat().st_size > 0
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_store_of_an_older_version_is_made_again(tmp_path):
    old = sqlite3.connect(tmp_path / SQLITE_FILE)
    old.executescript("CREATE TABLE class_sessions (code TEXT PRIMARY KEY, token_hash TEXT, created REAL,"
                      " expires REAL, questions INTEGER); INSERT INTO class_sessions VALUES ('ABC234', 'x', 0, 0, 0);"
                      " CREATE TABLE class_answers (question TEXT, student TEXT, value REAL);")
    old.close()
    store = Store(data_dir=tmp_path)
    code, token = store.create_session()
    assert key_question(store, code, token) and [r[0] for r in rows(store, "class_sessions")] == [code]


def test_a_connection_is_not_shared_across_a_fork(store):
    """gunicorn --preload forks workers after the app is loaded: each must open its own connection."""
    code, token = store.create_session()
    parent_conn = store.db._conn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child poses through the same Store object, then exits at once
        ok = False
        try:
            ok = store.db._conn() is not parent_conn and store.count(code, token, key_question(store, code, token))
        finally:
            os.write(write, b"1" if ok else b"0")
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    assert store.db._conn() is parent_conn and len(store.questions(code, token)) == 1


def test_the_size_on_disk_grows_with_the_answers(store):
    code, token = store.create_session()
    q = key_question(store, code, token)
    before = store.size()
    for k in range(200):
        store.answer(code, store.join(code, f"10.4.0.{k}"), q, 1)
    assert store.size() > before > 0


# ------------------------------------------------------------------ failures that speak


def test_a_full_disk_is_a_message_and_the_store_works_again_once_there_is_room(tmp_path, monkeypatch):
    store = Store(data_dir=tmp_path)
    code, token = store.create_session()
    q = key_question(store, code, token)
    [a] = joined(store, code, 1)
    connect = sessions.SQLite.connect
    pages = store.db.run(False, lambda cur: cur.one("PRAGMA page_count")[0])

    def full(self):  # the disk has room for no further page of the file
        conn = connect(self)
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(sessions.SQLite, "connect", full)
    store.close()
    refused = []
    for k in range(300):  # answers fill the last pages, then ...
        try:
            store.answer(code, store.join(code, f"10.5.{k // 250}.{k % 250}"), q, 1)
        except Unavailable as e:
            refused.append(str(e))
            break
    assert refused == [Unavailable.MESSAGE] and "cannot save answers" in refused[0]
    monkeypatch.setattr(sessions.SQLite, "connect", connect)
    store.close()
    store.answer(code, a, q, 2)  # room again: the store works


def test_a_data_folder_that_cannot_be_written_is_a_message(tmp_path, caplog):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(Unavailable, match="cannot save answers"):
        Store(data_dir=tmp_path / "file" / "data")  # refused for root too, unlike a chmod
    store = Store(data_dir=tmp_path / "data")
    store.create_session()
    (tmp_path / "data" / SQLITE_FILE).chmod(0o444)
    store.db.backend.connect = lambda: sqlite3.connect(f"file:{tmp_path / 'data' / SQLITE_FILE}?mode=ro", uri=True,
                                                       isolation_level=None)  # read-only, for root too
    store.close()
    with pytest.raises(Unavailable):
        store.create_session()
    assert store.health() == "down"
    assert all(len(r.getMessage()) < 300 for r in caplog.records)


@pytest.mark.server
def test_postgresql_stopped_is_a_message_and_a_restart_loses_no_acknowledged_answer(pg_server):
    """pg_ctl restart -m fast drops every connection: each thread's next transaction retries once on a new
    one, so no answer fails; with the server down, each fails with a message and none is acknowledged."""
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute("CREATE DATABASE restarts")
    url = pg_server.rsplit("/", 1)[0] + "/restarts"
    store = Store(url)
    code, token = store.create_session()
    q = key_question(store, code, token)
    ids = [store.join(code, f"10.6.0.{k}") for k in range(80)]
    acknowledged, failures = {}, []

    def answer(group, value):
        for s in group:
            try:
                store.answer(code, s, q, value)
                acknowledged[s] = value
            except Exception as e:  # noqa: BLE001 (each failure is recorded and checked below)
                failures.append(e)

    with ThreadPoolExecutor(4) as threads:  # as a gunicorn worker's threads: each keeps its connection
        def in_threads(group, value):
            for done in [threads.submit(answer, group[i::4], value) for i in range(4)]:
                done.result(60)

        in_threads(ids[:40], 1)
        pg_ctl(url, "restart")
        in_threads(ids[40:], 2)  # every thread's connection was dropped
        assert failures == [] and len(acknowledged) == 80
        pg_ctl(url, "stop")
        try:
            in_threads(ids[:8], 3)
            assert store.health() == "down"
            assert len(failures) == 8 and all(type(e) is Unavailable for e in failures)
        finally:
            pg_ctl(url, "start")
    deadline = time.monotonic() + sessions.HEALTH_EVERY + 5  # /healthz's last answer is kept that long
    while store.health() != "ok":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert {s: store.student_view(code, s)["answers"][1] for s in ids} == acknowledged  # none lost, none changed
