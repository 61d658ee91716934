"""Class mode's callbacks over HTTP (Flask's test client), with a real SQLite store: a lecture from start
to end, and forged requests, which get the app's own message and change nothing."""

import csv
import io
import json

import pytest

from dashboard import create_apps, trainer
from dashboard.classmode import store as S
from dashboard.attention import multi_head_attention, worked_example
from dashboard.training import SINGLE_MIXING_FLOOR
from dashboard.classmode import lecturer, student
from dashboard.explorer import learning
from tests.class_requests import Bodies, post

FORGED = ["8", "", "<script>", 2.5, float("nan"), float("inf"), -1, 10**400, True, None, [], [1], {"id": 1},
          "x" * 10_000]


@pytest.fixture(scope="module")
def app():
    return create_apps()[1]


@pytest.fixture
def client(app, tmp_path, monkeypatch):
    """A fresh database and fresh rate limiters for each test."""
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    lecturer.store.cache_clear()
    monkeypatch.setattr(student, "PER_STUDENT", S.RateLimiter(rate=1.0, burst=5))
    monkeypatch.setattr(student, "PER_ADDRESS", S.RateLimiter(rate=100.0, burst=400))
    monkeypatch.setattr(lecturer, "STARTS", S.RateLimiter(rate=1 / 60, burst=5))
    yield app.server.test_client()
    lecturer.store.cache_clear()


@pytest.fixture
def b(app):
    return Bodies(app)


def start(client, b) -> tuple[str, str]:
    status, out = post(client, b.start())
    assert status == 200
    control = out[lecturer.CONTROL]["data"]
    assert out[lecturer.URL]["pathname"] == f"/class/{control['code']}"
    return control["code"], control["token"]


def pose(client, b, code, token, **question) -> tuple[str, dict]:
    status, out = post(client, b.pose(code, token, **question))
    assert status == 200, out
    assert out[lecturer.STATUS]["children"] == "Posed: students see it now."
    return out[lecturer.QUESTION]["data"]["id"], out


def answer(client, b, code, sid, qid, value, slider=False) -> str:
    status, out = post(client, b.answer(code, sid, qid, value, slider))
    assert status == 200
    return out[student.S_FEEDBACK]["children"]


def count(code, qid) -> int:
    return lecturer.store().count(code, qid)


STUDENTS = [f"{k:032x}" for k in range(1, 6)]
SENT = "Answer sent. You can change it until the reveal."


def test_a_lecture_from_start_to_end(client, b):
    code, token = start(client, b)
    _, out = post(client, b.open(code, token))
    assert out[lecturer.QR]["src"].startswith("data:image/svg+xml") and out[lecturer.STATUS]["children"] == \
        "Pose the first question."
    qid, out = pose(client, b, code, token, kind="key", h=4, seed=3, head=2, query=5)
    A = multi_head_attention(*worked_example(3)[:5], 4).A
    truth = int(A[1, 5].argmax())
    assert out[lecturer.PROMPT]["children"] == "In head 2, which key will query 5 attend to most?"

    _, view = post(client, b.poll(code, STUDENTS[0]))
    assert view[student.S_PROMPT]["children"] == out[lecturer.PROMPT]["children"]
    assert [o["value"] for o in view[student.CHOICES]["options"]] == list(range(12))
    assert "answer" not in json.dumps(view[student.S_RESULT]).lower()
    seen = view[student.SEEN]["data"]
    assert post(client, b.poll(code, STUDENTS[0], seen=seen))[0] == 204  # nothing new: no update

    chosen = [truth, truth, (truth + 1) % 12, truth]
    for sid, k in zip(STUDENTS, chosen):
        assert answer(client, b, code, sid, qid, k) == SENT
    assert answer(client, b, code, STUDENTS[2], qid, truth) == SENT  # a change, counted once
    assert post(client, b.count(code, qid))[1][lecturer.COUNT]["children"] == "4 answers so far"
    _, view = post(client, b.poll(code, STUDENTS[2], seen=seen))
    assert view[student.S_RESULT]["children"] == f"Your answer so far: key {truth}. You can change it."

    _, out = post(client, b.reveal(code, token, qid))
    results = json.dumps(out[lecturer.RESULTS]["children"])
    assert f"4 answers. The answer: key {truth}, chosen by 4 of 4." in results
    assert f"Why: the weight of key {truth} for query 5 in head 2" in results  # the drill-down of that cell
    _, view = post(client, b.poll(code, STUDENTS[0], seen=seen))
    assert view[student.S_RESULT]["children"] == f"Your answer: key {truth}. The answer: key {truth}. Well predicted!"
    _, view = post(client, b.poll(code, STUDENTS[4]))
    assert view[student.S_RESULT]["children"] == f"You did not answer. The answer: key {truth}."

    _, out = post(client, b.export(code, token))
    rows = list(csv.DictReader(io.StringIO(out[lecturer.DOWNLOAD]["data"]["content"])))
    assert [r["student"] for r in rows] == ["s1", "s2", "s3", "s4"] and {r["answer"] for r in rows} == {str(truth)}

    _, out = post(client, b.end(code, token))
    assert out[lecturer.URL]["pathname"] == "/class" and out[lecturer.CONTROL]["data"] is None
    _status, view = post(client, b.poll(code, STUDENTS[0]))
    assert view[student.S_STATUS]["children"] == "There is no session with this code: it may have ended."


def test_how_much_never_reaches_a_student_before_the_reveal(client, b):
    code, token = start(client, b)
    qid, _out = pose(client, b, code, token, kind="amount", h=2, seed=5, head=1, query=3, key=7)
    truth = float(multi_head_attention(*worked_example(5)[:5], 2).A[0, 3, 7])
    views = [post(client, b.poll(code, STUDENTS[0]))[1], post(client, b.poll(code, STUDENTS[1]))[1]]
    assert answer(client, b, code, STUDENTS[0], qid, 0.25, slider=True) == SENT
    views.append(post(client, b.poll(code, STUDENTS[0], seen=[qid, False, None]))[1])
    before = json.dumps(views)
    texts = " ".join(str(v.get(k, {}).get("children")) for v in views for k in (student.S_STATUS, student.S_PROMPT,
                                                                      student.S_RESULT, student.S_FEEDBACK))
    assert not any(t in before for t in (repr(truth), f"{truth:.3f}", "truth")) and f"{truth:.2f}" not in texts
    results = json.dumps(post(client, b.reveal(code, token, qid))[1][lecturer.RESULTS]["children"])
    assert f"1 answer. The answer: {truth:.3f}. The class's median: 0.25." in results
    after = post(client, b.poll(code, STUDENTS[0], seen=[qid, False, 0.25]))[1]
    assert after[student.S_RESULT]["children"] == f"Your answer: 0.25. The answer: {truth:.2f}." + \
        (" Well predicted!" if abs(truth - 0.25) <= 0.05 else "")


def test_learning_lab_questions_take_their_truth_from_the_trained_runs(client, b):
    code, token = start(client, b)
    qid, out = pose(client, b, code, token, kind="head", h=2, train_seed=0)
    own = learning.learned_attention(2, 0, len(learning.limits.TRAINING_STEPS) - 1)[1]
    view = post(client, b.poll(code, STUDENTS[0]))[1]
    assert [o["label"] for o in view[student.CHOICES]["options"]] == ["head 1", "head 2"]
    answer(client, b, code, STUDENTS[0], qid, int(own.argmax()))
    assert post(client, b.reveal(code, token, qid))[1] is not None
    view = post(client, b.poll(code, STUDENTS[0]))[1]
    assert view[student.S_RESULT]["children"].endswith(f"The answer: head {int(own.argmax()) + 1}. Well predicted!")

    qid, out = pose(client, b, code, token, kind="floor", train_seed=0)
    view = post(client, b.poll(code, STUDENTS[0]))[1]
    assert [o["label"] for o in view[student.CHOICES]["options"]] == ["no", "yes"]
    results = json.dumps(post(client, b.reveal(code, token, qid))[1][lecturer.RESULTS]["children"])
    below = trainer.training_runs(0)[1].test_loss < SINGLE_MIXING_FLOOR
    assert f"The answer: {'yes' if below else 'no'}" in results

    _status, out = post(client, b.pose(code, token, kind="head", h=1))
    assert out[lecturer.STATUS]["children"] == "Which head? needs h = 2, 4 or 8."


@pytest.mark.parametrize("value, slider", [(12, False), (-1, False), (3.5, False), ("3", False), (True, False),
                                           ([3], False), (float("nan"), True), (1.5, True), (-0.1, True),
                                           (float("inf"), True), ("0.5", True)])
def test_forged_answers_get_a_message_and_change_nothing(client, b, value, slider):
    code, token = start(client, b)
    kind = "amount" if slider else "key"
    qid, _ = pose(client, b, code, token, kind=kind)
    assert answer(client, b, code, STUDENTS[0], qid, 0.5 if slider else 3, slider) == SENT
    message = answer(client, b, code, STUDENTS[0], qid, value, slider)
    assert message in ("The answer must be a whole number from 0 to 11.", "The answer must be a number from 0 to 1.")
    assert lecturer.store().student_view(code, STUDENTS[0])["answer"] == (0.5 if slider else 3)


def test_a_question_of_another_session_a_forged_id_and_a_replay_after_the_reveal_are_refused(client, b):
    code, token = start(client, b)
    other_code, other_token = start(client, b)
    qid, _ = pose(client, b, code, token)
    other_qid, _ = pose(client, b, other_code, other_token)
    assert answer(client, b, code, STUDENTS[0], other_qid, 1) == "There is no such question in this session."
    assert answer(client, b, code, "short", qid, 1) == "This browser's answer id is not valid: reload the page."
    assert answer(client, b, code, STUDENTS[0], qid, 1) == SENT
    post(client, b.reveal(code, token, qid))
    assert answer(client, b, code, STUDENTS[0], qid, 2) == "The answer has been revealed: answers are closed."
    assert answer(client, b, code, STUDENTS[1], qid, 2) == "The answer has been revealed: answers are closed."
    assert count(code, qid) == 1 and count(other_code, other_qid) == 0
    assert lecturer.store().student_view(code, STUDENTS[0])["answer"] == 1


def test_only_the_control_token_poses_reveals_exports_or_ends(client, b):
    code, token = start(client, b)
    qid, _ = pose(client, b, code, token)
    for forged in [token[:-1] + ("A" if token[-1] != "A" else "B"), "", None, 123, ["x"], "x" * 10_000]:
        for body, status_id in [(b.pose(code, forged), lecturer.STATUS), (b.reveal(code, forged, qid), lecturer.STATUS),
                                (b.export(code, forged), lecturer.STATUS), (b.end(code, forged), lecturer.START_STATUS),
                                (b.open(code, forged), lecturer.STATUS)]:
            status, out = post(client, body)
            assert status == 200 and out[status_id]["children"] == "This control link does not run this session."
    questions = lecturer.store().questions(code, token)
    assert len(questions) == 1 and not questions[0]["revealed"]  # nothing changed


def test_answers_are_rate_limited_per_student(client, b):
    code, token = start(client, b)
    qid, _ = pose(client, b, code, token)
    replies = [answer(client, b, code, STUDENTS[0], qid, k) for k in range(7)]
    assert replies[:5] == [SENT] * 5 and replies[5:] == ["Too many answers at once: wait a moment."] * 2
    assert lecturer.store().student_view(code, STUDENTS[0])["answer"] == 4
    assert answer(client, b, code, STUDENTS[1], qid, 0) == SENT  # another student is not held up


def test_sessions_are_rate_limited_per_address(client, b):
    replies = [post(client, b.start())[1][lecturer.START_STATUS]["children"] for _ in range(6)]
    assert replies[:5] == [""] * 5 and replies[5] == "Too many new sessions from this address: try again in a minute."


def test_forged_inputs_never_get_a_server_error(client, b):
    code, token = start(client, b)
    qid, _ = pose(client, b, code, token)
    bodies = [b.open(code, token), b.pose(code, token), b.count(code, qid), b.poll(code, STUDENTS[0]),
              b.answer(code, STUDENTS[0], qid, 1), b.reveal(code, token, qid), b.export(code, token), b.start(),
              b.end(code, token)]
    statuses = set()
    for body in bodies:
        for port in body["inputs"] + body["state"]:
            for value in FORGED:
                forged = json.loads(json.dumps(body))
                next(p for p in forged["inputs"] + forged["state"] if p["id"] == port["id"])["value"] = value
                status, _out = post(client, forged)
                statuses.add(status)
                assert status in (200, 204), (port, value, status)
    assert statuses == {200, 204}
