"""The students' operations. A student's id is issued here (join) and kept by the browser; every other
operation checks that the id joined this session, so a client cannot make up students. A question takes one
answer per student and round, changeable until the round closes; the truth stays here until the reveal."""

from __future__ import annotations

import secrets

from ...i18n import N_, _, ngettext
from . import schema
from .errors import Closed, Full, JoinWait, NotFound, PlacesHeld

MAX_STUDENTS = 1000  # per session (and the largest class size a lecturer can state)
MAX_STUDENTS_PER_OWNER = 300  # per session and address: a class behind one school address fits
# Joins from one address come at a human pace: at most JOINS_PER_WINDOW in any JOIN_WINDOW seconds, counted in the
# store (so across workers and hosts). A class of 200 behind one school address joins within 50 s (five windows).
# Who comes first is served first: a join asked to wait gets a ticket, which holds a place (against the class size)
# and its turn in its address's queue while its page sends it back at each poll; a ticket not sent back within
# TICKET_LIFE seconds frees its place. A script that retries fast gets no turn before the pages that came earlier,
# and no more places than the class size leaves.
JOIN_WINDOW = 10.0
JOINS_PER_WINDOW = 40
TICKET_LIFE = 15.0  # seconds: the page sends its ticket back every ids.POLL_MS (2 s)
MAX_CHANGES = 50  # changes of one student's answer in one round
NOT_OPEN = {"discuss": N_("Discuss your answer with your neighbour: the second vote opens soon."),
            "revealed": N_("The answer has been revealed: answers are closed."),
            "closed": N_("This question is closed: the lecturer has posed another.")}
HIDDEN = ("truth", "accepted", "tolerance", "lo", "hi")  # what no student sees before the reveal


class Students:
    """Mixed into Store: needs self.db, self.clock, self._live, self._session, self._touch, self._question."""

    def join(self, code, address: str = "?", ticket=None) -> str:
        """A new student of a live session: a random id, which the browser keeps and sends back. Only while the
        lecturer keeps joining open, up to the class size the lecturer stated (else MAX_STUDENTS), at most
        MAX_STUDENTS_PER_OWNER of them from one address, and from one address at a human pace, first come first
        served: JoinWait carries a ticket, which the page sends back (`ticket`) until its turn comes. PlacesHeld
        (no ticket): every place left is held by a ticket, and the page tries again in case one lapses."""
        owner, sent = schema.owner(address), schema.ticket(ticket)

        def body(cur):
            checked = self._session(cur, code)
            # joins to one session queue (the row lock), so the class size holds exactly
            size, joining = cur.one("SELECT class_size, joining FROM class_sessions WHERE code = {}"
                                    + self.db.backend.for_update, checked)
            if not joining:
                raise Closed(_("The lecturer has closed joining: ask them to open it again."))
            now = self.clock()
            cur.execute("DELETE FROM class_tickets WHERE session = {} AND expires < {}", checked, now)
            joined, mine, recent = cur.one(
                "SELECT COUNT(*), SUM(CASE WHEN owner = {} THEN 1 ELSE 0 END), SUM(CASE WHEN owner = {} AND joined"
                " > {} THEN 1 ELSE 0 END) FROM class_students WHERE session = {}",
                owner, owner, now - JOIN_WINDOW, checked)
            held, held_here, number = cur.one(
                "SELECT COUNT(*), SUM(CASE WHEN owner = {} THEN 1 ELSE 0 END), MAX(CASE WHEN owner = {} AND id = {}"
                " THEN number END) FROM class_tickets WHERE session = {}", owner, owner, sent, checked)
            mine, recent, held_here = mine or 0, recent or 0, held_here or 0
            if number is None:  # a new arrival: behind every ticket of its address, in a place no ticket holds
                self._room(size, joined, held, mine, held_here)
                turn = not held_here and recent < JOINS_PER_WINDOW
            else:  # its own place is held; those who joined must still leave it one (the size may have shrunk)
                self._room(size, joined, 0, mine, 0)
                ahead = cur.one("SELECT COUNT(*) FROM class_tickets WHERE session = {} AND owner = {} AND number < {}",
                                checked, owner, number)[0]
                turn = recent + ahead < JOINS_PER_WINDOW
            if not turn:
                return JoinWait(JOIN_WINDOW / JOINS_PER_WINDOW, self._hold(cur, checked, owner, sent, number, now))
            if number is not None:
                cur.execute("DELETE FROM class_tickets WHERE session = {} AND id = {}", checked, sent)
            student = secrets.token_urlsafe(schema.STUDENT_BYTES)
            cur.execute("INSERT INTO class_students (session, id, owner, joined) VALUES ({}, {}, {}, {})",
                        checked, student, owner, now)
            self._touch(cur, checked)
            return student

        issued = self.db.run(True, body)
        if isinstance(issued, JoinWait):  # returned, not raised, so that its ticket is committed
            raise issued
        return issued

    @staticmethod
    def _hold(cur, code: str, owner: str, ticket: str | None, number: int | None, now: float) -> str:
        """The ticket that holds a waiting page's place for TICKET_LIFE more seconds: its own, or a new one at the
        end of the session's queue."""
        if number is not None:
            cur.execute("UPDATE class_tickets SET expires = {} WHERE session = {} AND id = {}",
                        now + TICKET_LIFE, code, ticket)
            return ticket
        ticket = secrets.token_urlsafe(schema.STUDENT_BYTES)
        last = cur.one("SELECT COALESCE(MAX(number), 0) FROM class_tickets WHERE session = {}", code)[0]
        cur.execute("INSERT INTO class_tickets (session, id, owner, number, expires) VALUES ({}, {}, {}, {}, {})",
                    code, ticket, owner, last + 1, now + TICKET_LIFE)
        return ticket

    def queued(self, code, ticket, address: str = "?") -> bool:
        """Whether `ticket` holds a live place in this session's join queue for this address: a page waiting its
        turn, not a guesser of codes (the views give it a limit of its own instead of its address's)."""
        sent = schema.ticket(ticket)
        if sent is None:
            return False
        try:
            checked = schema.join_code(code)
        except NotFound:
            return False
        return self.db.run(False, lambda cur: cur.one(
            "SELECT COUNT(*) FROM class_tickets WHERE session = {} AND id = {} AND owner = {} AND expires >= {}",
            checked, sent, schema.owner(address), self.clock())[0] > 0)

    @staticmethod
    def _room(size, joined: int, held: int, mine: int, held_here: int) -> None:
        """Full when the session has no place for one more student (`joined`, `mine`: those of this address);
        PlacesHeld when every place left is held by a ticket (`held`, `held_here`: of this address)."""
        if size is not None and joined >= size:
            raise Full(ngettext(
                "The class is complete: its {size} student has joined. If you are not that student, ask the "
                "lecturer to raise the class size.",
                "The class is complete: its {size} students have joined. If you are not one of them, ask the "
                "lecturer to raise the class size.", size).format(size=size))
        if joined >= MAX_STUDENTS:
            raise Full(_("This session has as many students as it takes."))
        if mine >= MAX_STUDENTS_PER_OWNER:
            raise Full(_("This session has as many students from this address as it takes."))
        if joined + held >= min(MAX_STUDENTS, size or MAX_STUDENTS) or mine + held_here >= MAX_STUDENTS_PER_OWNER:
            raise PlacesHeld(JOIN_WINDOW / JOINS_PER_WINDOW)

    def _student(self, cur, code, student) -> tuple[str, int]:
        """(checked code, the session's question count) for a student who joined this live session. An unknown
        code and an unknown student get the same answer: a guesser learns nothing about codes."""
        code, student = schema.join_code(code), schema.student_id(student)
        live, *times = self._live("s")
        row = cur.one("SELECT s.questions FROM class_sessions s JOIN class_students t ON t.session = s.code"
                      f" WHERE s.code = {{}} AND t.id = {{}} AND {live}", code, student, *times)
        if row is None:
            raise NotFound(_(schema.NO_SESSION))
        return code, row[0]

    def member(self, code, student) -> bool:
        """Whether this id joined this live session (a reload keeps it); NotFound for no such session."""
        def body(cur):
            try:
                self._student(cur, code, student)
                return True
            except NotFound:
                self._session(cur, code)  # raises for a session that is gone
                return False

        return self.db.run(False, body)

    def student_view(self, code, student) -> dict | None:
        """The session's current question as this student may see it, or None before the first: its setting and
        phase, the seconds left to vote ("remaining"), this student's own answer in each round ("answers").
        The truth, the accepted answers and the range of values only after the reveal; no one else's answer."""
        def body(cur):
            checked, number = self._student(cur, code, student)
            if number == 0:
                return None
            question_id = cur.one("SELECT id FROM class_questions WHERE session = {} AND number = {}",
                                  checked, number)[0]
            q = self._question(cur, checked, question_id)
            own = cur.all("SELECT round, value FROM class_answers WHERE question = {} AND student = {}",
                          question_id, student)
            q["answers"] = {r: schema.stored(q["kind"], v) for r, v in own}
            q["remaining"] = self._remaining(q)
            if q["phase"] != "revealed":
                for hidden in HIDDEN:
                    del q[hidden]
            return q

        return self.db.run(False, body)

    def answer(self, code, student, question_id, value) -> int:
        """Record or change this student's answer in the open round; returns the round (1 or 2)."""
        def body(cur):
            checked, _questions = self._student(cur, code, student)
            q = self._question(cur, checked, question_id, lock=True)
            checked_value = schema.answer(q["kind"], q["n"], value)
            phase = q["phase"]
            round_ = schema.OPEN.get(phase)
            if round_ is None:
                raise Closed(_(NOT_OPEN[phase]))
            now = self.clock()
            if q["deadline"] is not None and now > q["deadline"]:
                raise Closed(_("Time is up: this vote is closed."))
            row = cur.one("INSERT INTO class_answers (question, round, student, value, answered)"
                          " VALUES ({}, {}, {}, {}, {}) ON CONFLICT (question, round, student) DO UPDATE"
                          " SET value = excluded.value, answered = excluded.answered,"
                          " changes = class_answers.changes + 1 WHERE class_answers.changes < {} RETURNING changes",
                          q["id"], round_, student, checked_value, now, MAX_CHANGES)
            if row is None:
                raise Full(_("You have changed this answer too often."))
            self._touch(cur, checked)
            return round_

        return self.db.run(True, body)
