"""Class mode's rules in one place (issue 34 item 6, issue 39): the browser's rules come from store/schema.py in
the page (RULES), checked here against the same cases Node runs on assets/classmode.js (tests/rules/classmode.json);
each of the store's and server's thresholds is pinned at its exact value, a step inside and a step outside; the
control token leaves the browser when its session ends."""

import json
import string

import pytest

from dashboard import create_apps, server
from dashboard.classmode import ids
from dashboard.classmode.store import Full, JoinWait, NotFound, Store, lecture, schema, sessions, students
from tests.class_requests import Bodies, post
from tests.conftest import ROOT

CASES = json.loads((ROOT / "tests/rules/classmode.json").read_text())
ALPHABET = set(string.ascii_uppercase + string.digits) - set("0O1IL")


def test_the_page_carries_the_rules_from_the_one_source():
    layout = json.dumps(create_apps()[1].layout(), default=lambda c: c.to_plotly_json())
    assert json.dumps(schema.client_rules())[1:-1] in layout
    js = (ROOT / "assets/classmode.js").read_text()
    assert CASES["alphabet"] not in js and "vote1" not in js.split("module.exports")[0]  # nothing repeated


def test_the_join_code_alphabet_is_exactly_every_symbol_but_0_O_1_I_L():
    assert set(schema.CODE_ALPHABET) == ALPHABET and len(schema.CODE_ALPHABET) == 31 == len(ALPHABET)
    assert CASES["alphabet"] == schema.CODE_ALPHABET and set(CASES["absent"]) == set("0O1IL")
    for c in ALPHABET:  # every symbol, in every position
        for k in range(schema.CODE_LENGTH):
            code = "A" * k + c + "A" * (schema.CODE_LENGTH - k - 1)
            assert schema.join_code(code) == code
    for c in map(chr, range(128)):
        if c.upper() not in ALPHABET and not c.isspace():
            with pytest.raises(NotFound):
                schema.join_code("ABC23" + c)


def test_new_codes_are_drawn_from_the_whole_alphabet(tmp_path, monkeypatch):
    drawn = []
    symbols = iter(sorted(ALPHABET) * 2)
    monkeypatch.setattr(sessions.secrets, "choice", lambda seq: (drawn.append(seq), next(symbols))[1])
    store = Store(data_dir=tmp_path)
    codes = [store.create_session(f"10.0.0.{k}")[0] for k in range(6)]  # 36 symbols: each of the 31 at least once
    assert set(drawn) == {schema.CODE_ALPHABET} and set("".join(codes)) == ALPHABET


def test_typed_codes_as_the_server_reads_them():
    for case in CASES["codes"]:
        if case["code"] is None:
            with pytest.raises(NotFound):
                schema.join_code(case["typed"])
        else:
            assert schema.join_code(case["typed"]) == case["code"], case


def test_the_flow_cases_are_the_servers_steps():
    for case in CASES["flow"]:
        assert [case["phase"] not in schema.NEXT[step] for step in ("discuss", "vote2", "revealed")] == \
            case["disabled"], case
    assert schema.client_rules()["next"] == {k: list(v) for k, v in schema.NEXT.items()}


@pytest.mark.parametrize("length, ok", [(21, False), (22, True), (23, False)])
def test_the_student_id_pattern_is_exactly_22_characters(length, ok):
    for c in string.ascii_letters + string.digits + "_-":
        assert bool(schema.STUDENT_ID_PATTERN.fullmatch(c * length)) is ok
    assert not any(schema.STUDENT_ID_PATTERN.fullmatch("A" * 21 + c) for c in "+=")


# ------------------------------------------------------------------ thresholds at their exact values


class Clock:
    def __init__(self):
        self.t = 1.9e9

    def __call__(self):
        return self.t


@pytest.fixture
def store(tmp_path):
    return Store(data_dir=tmp_path, clock=Clock())


def test_ten_sessions_from_an_address_and_the_eleventh_refused(store):
    assert sessions.MAX_SESSIONS_PER_OWNER == 10
    for _ in range(10):
        store.create_session("10.1.0.1")
    with pytest.raises(Full):
        store.create_session("10.1.0.1")


def test_two_hundred_sessions_on_the_server_and_the_next_refused(store):
    assert sessions.MAX_SESSIONS == 200
    for k in range(200):
        store.create_session(f"10.2.{k // 10}.1")
    with pytest.raises(Full):
        store.create_session("10.3.0.1")


@pytest.mark.parametrize("idle, ends", [(-1, False), (1, True)])
def test_a_session_ends_after_exactly_its_idle_time(store, idle, ends):
    code, _ = store.create_session()
    store.clock.t += sessions.DEFAULT_IDLE_HOURS * 3600 + idle
    if ends:
        with pytest.raises(NotFound):
            store.join(code, "10.4.0.1")
    else:
        assert store.join(code, "10.4.0.1")


def test_forty_joins_from_an_address_in_ten_seconds_and_three_hundred_in_all(store):
    assert (students.JOINS_PER_WINDOW, students.JOIN_WINDOW, students.MAX_STUDENTS_PER_OWNER) == (40, 10.0, 300)
    code, _ = store.create_session()
    joined = in_window = 0
    while joined < 300:
        for _ in range(min(40 - in_window, 300 - joined)):
            store.join(code, "10.5.0.1")
        joined += min(40 - in_window, 300 - joined)
        if joined < 300:
            with pytest.raises(JoinWait) as wait:  # the 41st within the window
                store.join(code, "10.5.0.1")
            store.clock.t += students.JOIN_WINDOW - 0.001  # just inside: still waits, with its ticket
            with pytest.raises(JoinWait):
                store.join(code, "10.5.0.1", wait.value.ticket)
            store.clock.t += 0.002  # just outside: its turn
            store.join(code, "10.5.0.1", wait.value.ticket)
            joined, in_window = joined + 1, 1
    store.clock.t += students.JOIN_WINDOW + 1
    with pytest.raises(Full):  # the 301st from the address
        store.join(code, "10.5.0.1")
    assert store.join(code, "10.5.0.2")  # another address still joins


def test_a_hundred_questions_and_the_next_refused(store):
    assert lecture.MAX_QUESTIONS == 100
    code, token = store.create_session()
    q = dict(template="key", prompt="Which key?", n=12, truth=3, h=4, seed=7, head=1, query=4)
    for _ in range(100):
        store.pose(code, token, q)
    with pytest.raises(Full):
        store.pose(code, token, q)


@pytest.mark.parametrize("size, status", [(server.MAX_BODY - 1, 400), (server.MAX_BODY, 413)])
def test_the_body_limit_is_exactly_MAX_BODY(size, status):
    assert server.MAX_BODY == 64 * 1024
    c = create_apps()[0].server.test_client()
    r = c.post("/_dash-update-component", data=b"{" + b" " * (size - 2) + b"}", content_type="application/json")
    assert r.status_code == status


@pytest.mark.parametrize("length, cut", [(server.MAX_LOGGED, False), (server.MAX_LOGGED + 1, True)])
def test_no_user_string_over_MAX_LOGGED_reaches_the_log(length, cut):
    assert server.MAX_LOGGED == 200
    assert (server.short("x" * length) != "x" * length) is cut and len(server.short("x" * length)) <= 201


# ------------------------------------------------------------------ the control token leaves at the end


def test_ending_a_session_clears_its_token_from_the_tab_and_the_browser(tmp_path, monkeypatch):
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    ids.store.cache_clear()
    apps = create_apps()
    client, b = apps[0].server.test_client(), Bodies(apps[1])
    out = post(client, b.start())[1]
    control = out[ids.CONTROL]["data"]
    assert out[ids.RUNNING]["data"] == control and "clear_data" not in out[ids.RUNNING]
    assert "clear_data" not in post(client, b.resume(control))[1].get(ids.RUNNING, {})  # running: kept
    out = post(client, b.end(control["code"], control["token"]))[1]
    assert out[ids.CONTROL]["data"] is None and out[ids.RUNNING] == {"data": None, "clear_data": True}
    # ended elsewhere (another tab, idle): the start page finds it ended and clears this browser's copy
    assert post(client, b.resume(control))[1][ids.RUNNING] == {"clear_data": True}
    ids.store.cache_clear()
