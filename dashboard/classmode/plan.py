"""A session on paper: the CSV of every answer (both votes, the truth, heads counted from 1 as the page does),
and the lecture plan, a JSON file of the session's questions in order with their whole setting, which a later
session loads to pose from, one after the other."""

from __future__ import annotations

import base64
import binascii
import csv
import io
import json
import time

from dash import Input, Output, State, no_update
from dash.exceptions import PreventUpdate

from ..i18n import N_, _, ngettext
from . import ids
from .form import MAX_PLAN_BYTES
from .lecturer import STAGE, control, posed
from .store import StoreError, schema
from ..questions import LAB, TEMPLATE_TITLES, entry_text, option_label, prompt_text, question
from .wiring import callback

PLAN_FORMAT = "attention-explorer lecture plan"
MAX_PLAN = 100  # questions, as many as a session holds
PLAN_KEYS = {"template", "timer", "weights", "h", "seed", "size", "scale", "tau", "head", "query", "key", "bug",
             "train_seed"}
MAX_TEXT = 20  # characters of a plan's string values (template, weights, scale)
BAD_PLAN = N_("This file is not a lecture plan: save one from a session with 'save lecture plan'.")


def csv_text(questions: list[dict], rows: list[tuple]) -> str:
    """The answers, their prompts and answers in the page's language; the columns' names and "right" for tools."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["question", "template", "prompt", "options", "truth", "accepted", "tolerance", "phase", "vote",
                     "student", "answer", "right", "answered_utc"])
    by_number = {q["number"]: q for q in questions}
    names: dict[str, str] = {}
    for number, vote, student, value, answered in rows:
        q = by_number[number]
        value = schema.stored(q["kind"], value)
        name = names.setdefault(student, f"s{len(names) + 1}")
        writer.writerow([number, q["template"], prompt_text(q), q["n"] or "", option_label(q["template"], q["truth"]),
                         " ".join(option_label(q["template"], a) for a in q["accepted"]), q["tolerance"] or "",
                         q["phase"], vote, name, option_label(q["template"], value),
                         "yes" if schema.right(q, value) else "no",
                         time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(answered))])
    return out.getvalue()


@callback(Output(ids.DOWNLOAD, "data"), Output(ids.STATUS, "children", allow_duplicate=True),
          Input(ids.EXPORT, "n_clicks"), State(ids.PAGE, "data"), prevent_initial_call=True)
def export(clicks, page):
    """The session's anonymous answers as CSV: students as s1, s2, …, both votes, the truth."""
    code, token = control(page)
    try:
        questions, rows = ids.store().export(code, token)
    except StoreError as e:
        return no_update, str(e)
    return {"content": csv_text(questions, rows), "filename": f"class-{code}.csv", "type": "text/csv"}, ""


@callback(Output(ids.DOWNLOAD, "data", allow_duplicate=True), Output(ids.STATUS, "children", allow_duplicate=True),
          Input(ids.SAVE_PLAN, "n_clicks"), State(ids.PAGE, "data"), prevent_initial_call=True)
def save_plan(clicks, page):
    """The session's questions in order, each with its whole setting and timer, as a lecture plan."""
    code, token = control(page)
    try:
        questions = ids.store().export(code, token)[0]
    except StoreError as e:
        return no_update, str(e)
    if not questions:
        return no_update, _("Pose a question first: a plan holds the session's questions.")
    plan = {"format": PLAN_FORMAT, "version": 1, "questions": [form_of(q) for q in questions]}
    saved = ngettext("Saved a plan of {count} question.", "Saved a plan of {count} questions.", len(questions))
    return {"content": json.dumps(plan, indent=1), "filename": f"lecture-{code}.json",
            "type": "application/json"}, saved.format(count=len(questions))


def plain(value) -> bool:
    """A plan's value: a moderate int, or a short string of printable ASCII."""
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) < 2**31
    return isinstance(value, str) and len(value) <= MAX_TEXT and value.isascii() and value.isprintable()


def plan_entries(contents) -> list[dict]:
    """A lecture plan's questions from an upload (a data: URL), checked for shape; each is checked in full
    (questions.question) when it is posed. ValueError for anything else."""
    if not (isinstance(contents, str) and len(contents) <= 2 * MAX_PLAN_BYTES and contents.isascii()):
        raise ValueError(_(BAD_PLAN))
    try:
        plan = json.loads(base64.b64decode(contents.partition(",")[2], validate=True))
    except (ValueError, binascii.Error, RecursionError):
        raise ValueError(_(BAD_PLAN)) from None
    entries = plan.get("questions") if isinstance(plan, dict) and plan.get("format") == PLAN_FORMAT else None
    if not (isinstance(entries, list) and 0 < len(entries) <= MAX_PLAN):
        raise ValueError(_(BAD_PLAN))
    for entry in entries:
        if not (isinstance(entry, dict) and set(entry) <= PLAN_KEYS and entry.get("template") in TEMPLATE_TITLES
                and all(plain(v) for v in entry.values())):
            raise ValueError(_(BAD_PLAN))
    return entries


def form_of(q: dict) -> dict:
    """The form's values that pose a stored question again (a lecture plan's entry)."""
    entry = {"template": q["template"], "timer": q["timer"]}
    if q["template"] in LAB:
        return {**entry, "train_seed": q["seed"], "h": q["h"]}
    entry.update({k: q[k] for k in ("weights", "h", "seed", "size", "scale", "tau")})
    if q.get("bug"):
        entry["bug"] = q["bug"]
    for name in ("head", "query", "key"):
        index = q.get(f"{name}_index")
        if index is not None:
            entry[name] = index + 1 if name == "head" else index
    return entry


def plan_text(plan) -> tuple[str, bool]:
    """What the plan says next, and whether 'pose next' is off."""
    if not isinstance(plan, dict) or not isinstance(plan.get("questions"), list):
        return "", True
    k, total = plan.get("next", 0), len(plan["questions"])
    if not isinstance(k, int) or k >= total:
        return ngettext("The plan's {count} question is posed.", "The plan's {count} questions are all posed.",
                        total).format(count=total), True
    return _("Plan: question {number} of {count} next: {question}.").format(
        number=k + 1, count=total, question=entry_text(plan["questions"][k])), False


@callback(Output(ids.PLAN, "data"), Output(ids.STATUS, "children", allow_duplicate=True),
          Input(ids.LOAD_PLAN, "contents"), prevent_initial_call=True)
def load_plan(contents):
    try:
        entries = plan_entries(contents)
    except ValueError as e:
        return no_update, str(e)
    loaded = ngettext("Loaded a plan of {count} question.", "Loaded a plan of {count} questions.", len(entries))
    return {"questions": entries, "next": 0}, loaded.format(count=len(entries))


@callback(Output(ids.PLAN_TEXT, "children"), Output(ids.PLAN_NEXT, "disabled"), Input(ids.PLAN, "data"))
def show_plan(plan):
    return plan_text(plan)


@callback(*(Output(o.component_id, o.component_property, allow_duplicate=True) for o in STAGE),
          Output(ids.PLAN, "data", allow_duplicate=True), Input(ids.PLAN_NEXT, "n_clicks"),
          State(ids.PAGE, "data"), State(ids.PLAN, "data"), prevent_initial_call=True)
def pose_next(clicks, page, plan):
    """Pose the plan's next question, checked in full as if typed in the form."""
    code, token = control(page)
    if not isinstance(plan, dict):
        raise PreventUpdate
    try:
        entries, k = plan_entries_again(plan), plan.get("next")
    except ValueError as e:
        return (no_update,) * 9 + (str(e), no_update)
    if not (isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(entries)):
        raise PreventUpdate
    q, message = question(entries[k])
    if q is None:
        refused = _("Plan question {number} not posed: {message}").format(number=k + 1, message=message)
        return (no_update,) * 9 + (refused, no_update)
    out = posed(code, token, q)
    return out + ((no_update,) if out[0] is no_update else ({"questions": entries, "next": k + 1},))


def plan_entries_again(plan: dict) -> list[dict]:
    """The plan as the browser kept it: checked as when it was loaded."""
    text = json.dumps({"format": PLAN_FORMAT, "questions": plan.get("questions")})
    return plan_entries("data:application/json;base64," + base64.b64encode(text.encode()).decode())
