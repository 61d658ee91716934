"""The lecturer's operations, each checked against the session's control token: pose a question, move it
through peer instruction's phases (vote 1, discussion, vote 2, reveal), count heads, read the results."""

from __future__ import annotations

import secrets

from ...attention import check_int
from ...i18n import N_, _
from . import schema, students
from .errors import Closed, Full, BadRequest, NotFound

MAX_QUESTIONS = 100  # per session
KEEP = object()  # Lecture.roster: the class size stays as it is
COLUMNS = ", ".join(schema.QUESTION_COLUMNS)
STEP_REFUSED = {"discuss": N_("The discussion follows the first vote."),
                "vote2": N_("The second vote follows the discussion."),
                "revealed": N_("This question is revealed already, or closed.")}


class Lecture:
    """Mixed into Store: needs self.db, self.clock, self._control, self._touch."""

    def _question(self, cur, code: str, question_id, lock: bool = False) -> dict:
        row = cur.one(f"SELECT {COLUMNS} FROM class_questions WHERE id = {{}} AND session = {{}}"
                      + (self.db.backend.for_share if lock else ""), schema.question_id(question_id), code)
        if row is None:
            raise NotFound(_(schema.NO_QUESTION))
        return schema.question_row(row)

    def pose(self, code, token, question: dict) -> str:
        """Pose a question (schema.question's columns: template, prompt, truth, the whole setting ...); returns
        its id. Its first vote opens at once; an earlier question still open closes."""
        columns = schema.question(question)
        question_id = secrets.token_urlsafe(schema.QUESTION_BYTES)

        def body(cur):
            checked = self._control(cur, code, token)
            if cur.one("SELECT 1 FROM class_questions WHERE id = {}", question_id):
                return question_id  # a retry whose first try committed, and the reply was lost
            row = cur.one("UPDATE class_sessions SET questions = questions + 1 WHERE code = {} AND questions < {}"
                          " RETURNING questions", checked, MAX_QUESTIONS)
            if row is None:
                raise Full(_("A session holds at most {count} questions: start a new session.").format(
                    count=MAX_QUESTIONS))
            cur.execute("UPDATE class_questions SET phase = 'closed', deadline = NULL WHERE session = {}"
                        " AND phase IN ('vote1', 'discuss', 'vote2')", checked)
            now = self.clock()
            values = {"id": question_id, "session": checked, "number": row[0], **columns, "phase": "vote1",
                      "deadline": now + columns["timer"] if columns["timer"] else None}
            cur.execute(f"INSERT INTO class_questions ({', '.join(values)}) VALUES ({', '.join(['{}'] * len(values))})",
                        *values.values())
            self._touch(cur, checked)
            return question_id

        return self.db.run(True, body)

    def step(self, code, token, question_id, phase: str) -> dict:
        """Move the question on: "discuss" (the first vote closes), "vote2" (after the discussion: the second vote
        opens, with the timer again) or "revealed" (from any of them: the second vote is optional). Returns the
        head count."""
        if not (isinstance(phase, str) and phase in schema.NEXT):
            raise BadRequest(_("A question moves on to the discussion, the second vote or the reveal."))

        def body(cur):
            checked = self._control(cur, code, token)
            q = self._question(cur, checked, question_id)
            if q["phase"] not in schema.NEXT[phase]:
                raise Closed(_(STEP_REFUSED[phase]))
            deadline = self.clock() + q["timer"] if phase == "vote2" and q["timer"] else None
            cur.execute("UPDATE class_questions SET phase = {}, deadline = {}, rounds = {} WHERE id = {}", phase,
                        deadline, 2 if phase == "vote2" else q["rounds"], q["id"])
            self._touch(cur, checked)
            return self._heads(cur, checked, q["id"])

        return self.db.run(True, body)

    def _roster(self, cur, code: str) -> dict:
        joined = cur.one("SELECT COUNT(*) FROM class_students WHERE session = {}", code)[0]
        size, joining = cur.one("SELECT class_size, joining FROM class_sessions WHERE code = {}", code)
        return {"joined": joined, "class_size": size, "joining": bool(joining)}  # not "size": a question's tokens per cluster

    def roster(self, code, token, size=KEEP, joining: bool | None = None) -> dict:
        """The class: students joined, the class size the lecturer stated (None: not stated), whether joining is
        open. `size` (1..MAX_STUDENTS, or None for no stated size) and `joining` change them first. Closing joining
        with no size stated takes the head count as the class size."""
        if size is not KEEP and size is not None:
            size = check_int(N_("The class size"), size, 1, students.MAX_STUDENTS, error=schema.invalid)
        if joining is not None and not isinstance(joining, bool):
            raise BadRequest(_("Joining is open or closed."))

        def body(cur):
            checked = self._control(cur, code, token)
            if size is not KEEP:
                cur.execute("UPDATE class_sessions SET class_size = {} WHERE code = {}", size, checked)
            if joining is not None:
                cur.execute("UPDATE class_sessions SET joining = {} WHERE code = {}", int(joining), checked)
                if not joining:
                    cur.execute("UPDATE class_sessions SET class_size = (SELECT COUNT(*) FROM class_students WHERE"
                                " session = {}) WHERE code = {} AND class_size IS NULL", checked, checked)
            if size is not KEEP or joining is not None:
                self._touch(cur, checked)
            return self._roster(cur, checked)

        return self.db.run(size is not KEEP or joining is not None, body)

    def _heads(self, cur, code: str, question_id) -> dict:
        q = self._question(cur, code, question_id)
        answered = cur.one("SELECT COUNT(*) FROM class_answers WHERE question = {} AND round = {}",
                           q["id"], q["rounds"])[0]
        return {"id": q["id"], "phase": q["phase"], "round": q["rounds"], **self._roster(cur, code),
                "answered": answered, "remaining": self._remaining(q)}

    def _remaining(self, q: dict) -> float | None:
        """Seconds until the open vote locks, or None (no timer, or no vote open)."""
        if q["deadline"] is None or q["phase"] not in schema.OPEN:
            return None
        return max(0.0, q["deadline"] - self.clock())

    def count(self, code, token, question_id) -> dict:
        """The projector's head count: students joined, answers in this round, the phase, the time left."""
        return self.db.run(False, lambda cur: self._heads(cur, self._control(cur, code, token), question_id))

    def results(self, code, token, question_id) -> dict:
        """After the reveal: the question with its truth, and per round ("votes") the answer count and their
        distribution: "counts" per option, or the sorted "values" of an amount."""
        def body(cur):
            q = self._question(cur, self._control(cur, code, token), question_id)
            if q["phase"] != "revealed":
                raise Closed(_("The answers are shown after the reveal."))
            rows = cur.all("SELECT round, value FROM class_answers WHERE question = {} ORDER BY round, value", q["id"])
            q["votes"] = []
            for k in range(1, q["rounds"] + 1):
                values = [v for r, v in rows if r == k]
                vote = {"count": len(values)}
                if q["kind"] == "amount":
                    vote["values"] = values
                else:
                    vote["counts"] = [0] * q["n"]
                    for v in values:
                        vote["counts"][int(v)] += 1
                q["votes"].append(vote)
            return q

        return self.db.run(False, body)

    def current(self, code, token) -> dict | None:
        """The session's last question with its truth and head count (the lecturer's page), or None."""
        def body(cur):
            checked = self._control(cur, code, token)
            row = cur.one("SELECT id FROM class_questions WHERE session = {} ORDER BY number DESC LIMIT 1", checked)
            return None if row is None else {**self._question(cur, checked, row[0]), **self._heads(cur, checked, row[0])}

        return self.db.run(False, body)

    def questions(self, code, token) -> list[dict]:
        """Every question of the session in order, with its truth and its head count (the lecturer's page)."""
        def body(cur):
            checked = self._control(cur, code, token)
            ids = [r[0] for r in cur.all("SELECT id FROM class_questions WHERE session = {} ORDER BY number", checked)]
            return [{**self._question(cur, checked, i), **self._heads(cur, checked, i)} for i in ids]

        return self.db.run(False, body)

    def export(self, code, token) -> tuple[list[dict], list[tuple]]:
        """The session's questions in order, and every answer as (question number, round, student, value,
        answered), students in order of their first answer; the views write the CSV and the lecture plan."""
        def body(cur):
            checked = self._control(cur, code, token)
            questions = [schema.question_row(r) for r in cur.all(
                f"SELECT {COLUMNS} FROM class_questions WHERE session = {{}} ORDER BY number", checked)]
            answers = cur.all("SELECT q.number, a.round, a.student, a.value, a.answered FROM class_questions q"
                              " JOIN class_answers a ON a.question = q.id WHERE q.session = {}"
                              " ORDER BY q.number, a.round, a.answered, a.student", checked)
            return questions, answers

        return self.db.run(False, body)
