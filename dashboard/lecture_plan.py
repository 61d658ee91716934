"""A lecture plan on paper: one JSON file that runs the whole lecture, step by step (issue 35).

    {"format": "attention-explorer lecture plan", "version": 2,
     "steps": [{"kind": "view", "view": "?tab=example&h=4&weights=trained", "notes": "two heads per cluster"},
               {"kind": "question", "template": "key", "h": 4, …, "notes": "ask before the reveal"}],
     "questions": [{"template": "key", "h": 4, …}]}

A view step is an address of the explorer (its URL's query: every state a link holds), read parameter by parameter
by the explorer's URL rules (dashboard/urls.py, the same rules assets/rules.js reads a link by), except that a value
the browser would quietly read as the default is refused here, with the step and the parameter named: a plan that
asks for a setting this version cannot show says so when it is opened, not in front of the class. A question step
is class mode's lecture-plan entry (dashboard/classmode/plan.py), checked for shape as class mode checks it; class
mode checks it in full when it is posed. "questions" repeats the question steps, so class mode's "load lecture plan"
opens the same file. Class mode's own files (version 1, questions only) open as a plan of question steps.

Notes are plain text, shown as text (never as HTML). Pure: no Dash; the explorer's URL rules are handed in
(`params`, explorer.URL_PARAMS), so this module needs none of the explorer's.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from urllib.parse import parse_qsl, urlencode

from .i18n import LANGUAGES, N_, _, ngettext

FORMAT = "attention-explorer lecture plan"  # class mode's PLAN_FORMAT: one kind of file (a test holds them equal)
PLAN_VERSION = 2
MAX_BYTES = 46 * 1024  # a file, and the store the page keeps it in, stays under class mode's upload limit
MAX_PLAN_STEPS = 60
MAX_NOTES = 200  # characters of a step's notes
MAX_VIEW = 400  # characters of a view's query (a token order of 48 adds about 130)
KEPT = ("lang",)  # the page's own parameter (explorer config keepParams): allowed in a view, never part of it
# Class mode's lecture-plan entry (classmode/plan.py PLAN_KEYS, MAX_TEXT, questions.TEMPLATE_TITLES; a test holds them
# equal)
QUESTION_KEYS = {"template", "timer", "weights", "h", "seed", "size", "scale", "tau", "head", "query", "key", "bug",
                 "train_seed"}
TEMPLATES = ("key", "amount", "sharpest", "entropy", "influence", "bug", "role", "floor")
LAB = ("role", "floor")  # the learning lab's questions: a training seed and h, no example (questions.LAB)
MAX_TEXT = 20
JS_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")  # what JavaScript's Number() reads
ORDER_SEPARATORS = re.compile(r"[\s,;]+")  # limits.ORDER_SEPARATORS, rules.js orderWords

NOT_A_PLAN = N_("This file is not a lecture plan: save one with 'save plan' in the explorer, or 'save lecture plan' "
                "in class mode.")


class PlanError(ValueError):
    """A plan refused; str(error) says why, in the request's language, naming the step when one is at fault."""


def refuse(message: str, step: int | None = None, **values) -> PlanError:
    text = _(message).format(**values)
    if step is None:
        return PlanError(text)
    # Translators: a lecture plan's step at fault, then why (a sentence)
    return PlanError(_("Step {number}: {problem}").format(number=step + 1, problem=text))


# ---- one parameter of a view, by its url_param rule ------------------------------------------------------------

def is_order(text: str, most: int) -> bool:
    """rules.js isOrder: the numbers 0..k-1, each once, for some k up to `most`."""
    words = ORDER_SEPARATORS.split(text.strip())
    numbers = {int(w) for w in words if w.isascii() and w.isdigit()}
    return len(words) <= most and len(numbers) == len(words) and all(k < len(words) for k in numbers)


def read_value(rule: dict, text: str):
    """A parameter's value by its rule, as rules.js readParam reads it; None where readParam would fall back to the
    default (a value this version cannot show)."""
    if "flag" in rule:
        return {"1": True, "0": False}.get(text)
    if "items" in rule:
        words = text.split(",")
        if len(words) > rule["items"] or not all(w.isascii() and w.isdigit() for w in words):
            return None
        numbers = [int(w) for w in words]
        return numbers if len(set(numbers)) == len(numbers) and all(1 <= k <= rule["items"] for k in numbers) else None
    if "order" in rule:
        return " ".join(ORDER_SEPARATORS.split(text.strip())) if is_order(text, rule["order"]) else None
    if "count" in rule:
        if not JS_NUMBER.fullmatch(text):
            return None
        number = float(text)
        return int(number) if number.is_integer() and 0 <= number < rule["count"] else None
    return next((c for c in rule["choices"] if str(c) == text), None)


def write_value(rule: dict, value) -> str | None:
    """rules.js writeParam: the value as the URL holds it (None: left out)."""
    if "flag" in rule:
        return "1" if value else None
    if "items" in rule:
        return ",".join(map(str, value)) or None
    if "order" in rule:
        return value.replace(" ", ",")
    return None if value == "" else str(value)  # an empty choice (no figure presented) is left out


def read_view(query, params: list[dict], step: int) -> dict:
    """{key: value} of a view's query ("?tab=example&h=4"), each parameter checked by its rule; PlanError names the
    step and the parameter of anything this version cannot show."""
    if not (isinstance(query, str) and len(query) <= MAX_VIEW and query.isascii() and query.isprintable()):
        return fail_view(step)
    rules = {p["key"]: p["rule"] for p in params}
    try:
        pairs = parse_qsl(query.removeprefix("?"), keep_blank_values=True, strict_parsing=bool(query.strip("?")),
                          max_num_fields=len(rules) + len(KEPT))
    except ValueError:
        return fail_view(step)
    values, seen = {}, set()
    for key, text in pairs:
        if key in seen:
            # Translators: {name} is a parameter of the explorer's address, such as h or seed
            raise refuse(N_("the view gives {name} twice."), step, name=shown(key))
        seen.add(key)
        if key in KEPT or text == "":  # the page's language is the page's; an empty value is the default
            continue
        if key not in rules:
            raise refuse(N_("this version of the explorer has no setting {name}."), step, name=shown(key))
        value = read_value(rules[key], text)
        if value is None:
            raise refuse(N_("this version of the explorer cannot show {name} = {value}."), step, name=shown(key),
                         value=shown(text))
        values[key] = value
    return values


def fail_view(step: int):
    raise refuse(N_("the view is not an address of the explorer."), step)


def shown(text: str) -> str:
    """A parameter's name or value, as a message quotes it: short, and text."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def view_query(values: dict, params: list[dict]) -> str:
    """The canonical query of a view's values, in the explorer's order of parameters ("" for the defaults)."""
    pairs = [(p["key"], write_value(p["rule"], values[p["key"]])) for p in params if p["key"] in values]
    text = urlencode([(k, v) for k, v in pairs if v is not None])
    return "?" + text if text else ""


# ---- steps -------------------------------------------------------------------------------------------------------

def check_notes(notes, step: int) -> str:
    if notes is None:
        return ""
    if not (isinstance(notes, str) and len(notes) <= MAX_NOTES
            and all(c == "\n" or unicodedata.category(c) not in ("Cc", "Cs", "Cn") for c in notes)):
        raise refuse(N_("notes are text of at most {count} characters."), step, count=MAX_NOTES)
    return notes


def plain(value) -> bool:
    """classmode/plan.py `plain`: a moderate int, or a short string of printable ASCII."""
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) < 2**31
    return isinstance(value, str) and len(value) <= MAX_TEXT and value.isascii() and value.isprintable()


def check_question(entry, step: int) -> dict:
    """Class mode's entry, checked for shape as class mode checks it (its full check comes when it is posed)."""
    if not (isinstance(entry, dict) and set(entry) <= QUESTION_KEYS and entry.get("template") in TEMPLATES
            and all(plain(v) for v in entry.values())):
        raise refuse(N_("the question is not one class mode can pose."), step)
    return dict(entry)


def check_step(step, k: int, params: list[dict]) -> dict:
    """One step, checked: {"kind": "view", "view": canonical query, "notes"} or {"kind": "question", **entry,
    "notes"}."""
    if not isinstance(step, dict) or step.get("kind") not in ("view", "question"):
        raise refuse(N_("a step is a view of the explorer or a class question."), k)
    notes = check_notes(step.get("notes"), k)
    if step["kind"] == "question":
        entry = {key: v for key, v in step.items() if key not in ("kind", "notes")}
        return {"kind": "question", **check_question(entry, k), "notes": notes}
    if set(step) - {"kind", "view", "notes"}:
        raise refuse(N_("a step is a view of the explorer or a class question."), k)
    return {"kind": "view", "view": view_query(read_view(step.get("view"), params, k), params), "notes": notes}


def check_steps(steps, params: list[dict]) -> list[dict]:
    """A plan's steps, each checked (the browser's store, or a file's), within the plan's limits."""
    if not isinstance(steps, list) or not steps:
        raise refuse(NOT_A_PLAN)
    if len(steps) > MAX_PLAN_STEPS:
        raise refuse(N_("A plan holds at most {count} steps."), count=MAX_PLAN_STEPS)
    checked = [check_step(step, k, params) for k, step in enumerate(steps)]
    if len(file_text(checked).encode()) > MAX_BYTES:
        raise refuse(N_("A plan is at most {size} kB: shorten the notes or split the lecture."),
                     size=MAX_BYTES // 1024)
    return checked


def question_entries(steps: list[dict]) -> list[dict]:
    return [{k: v for k, v in s.items() if k not in ("kind", "notes")} for s in steps if s["kind"] == "question"]


def parse(text, params: list[dict]) -> list[dict]:
    """The checked steps of a plan file's text (bytes or str): this version's, or class mode's questions."""
    if not isinstance(text, (bytes, str)) or len(text) > MAX_BYTES:
        raise refuse(N_("A plan is at most {size} kB: shorten the notes or split the lecture."),
                     size=MAX_BYTES // 1024)
    try:
        plan = json.loads(text)
    except (ValueError, RecursionError):
        raise refuse(NOT_A_PLAN) from None
    if not (isinstance(plan, dict) and plan.get("format") == FORMAT):
        raise refuse(NOT_A_PLAN)
    version = plan.get("version", 1)
    if "steps" not in plan and version in (1, None):  # class mode's: its questions in order
        questions = plan.get("questions")
        if not isinstance(questions, list):
            raise refuse(NOT_A_PLAN)
        return check_steps([{**q, "kind": "question"} if isinstance(q, dict) else q for q in questions], params)
    if isinstance(version, int) and not isinstance(version, bool) and version > PLAN_VERSION:
        raise refuse(N_("This plan was saved by a newer version of the explorer: open it there."))
    if version != PLAN_VERSION or set(plan) - {"format", "version", "steps", "questions"}:
        raise refuse(NOT_A_PLAN)
    steps = check_steps(plan.get("steps"), params)
    if "questions" in plan and plan["questions"] != question_entries(steps):
        raise refuse(N_("The file's questions are not its question steps: was it edited by hand?"))
    return steps


def parse_upload(contents, params: list[dict]) -> list[dict]:
    """The steps of an uploaded file (dcc.Upload's data: URL, base64)."""
    if not (isinstance(contents, str) and len(contents) <= 2 * MAX_BYTES and contents.isascii()):
        raise refuse(N_("A plan is at most {size} kB: shorten the notes or split the lecture."),
                     size=MAX_BYTES // 1024)
    try:
        text = base64.b64decode(contents.partition(",")[2], validate=True)
    except (ValueError, binascii.Error):
        raise refuse(NOT_A_PLAN) from None
    return parse(text, params)


def file_text(steps: list[dict]) -> str:
    """The plan file: its steps, and its questions for class mode (which opens the same file)."""
    plan = {"format": FORMAT, "version": PLAN_VERSION, "steps": steps}
    questions = question_entries(steps)
    if questions:
        plan["questions"] = questions
    return json.dumps(plan, indent=1, ensure_ascii=False)


def view_step(search, notes, params: list[dict], steps: list[dict]) -> list[dict]:
    """The plan with the page's view (its URL's query) added as the last step, with its notes."""
    if len(steps) >= MAX_PLAN_STEPS:
        raise refuse(N_("A plan holds at most {count} steps."), count=MAX_PLAN_STEPS)
    return check_steps([*steps, {"kind": "view", "view": search or "", "notes": notes or ""}], params)


def question_step(template, search, notes, params: list[dict], steps: list[dict]) -> list[dict]:
    """The plan with a class question of kind `template` on the page's view added as the last step: the view's
    setting and selected cell (the learning lab's: its training seed and h), as class mode's form would send."""
    k = len(steps)
    if template not in TEMPLATES:
        raise refuse(N_("the question is not one class mode can pose."), k)
    values = {p["key"]: p["default"] for p in params} | read_view(search or "", params, k)
    entry = {"template": template, "timer": 0, "h": values["h"]}
    if template in LAB:
        entry["train_seed"] = values["train"]
    else:
        entry.update({name: values[name] for name in ("weights", "seed", "size", "scale", "tau")})
        if template == "bug":
            entry["bug"] = values["bug"]
        elif template != "sharpest":
            entry.update(head=values["head"], query=values["query"], **({"key": values["key"]} if template == "amount"
                                                                         else {}))
    return check_steps([*steps, {"kind": "question", **entry, "notes": notes or ""}], params)


def page_params(search) -> dict:
    """The page's own address's parameters as text (a bad or overlong address has none)."""
    if not (isinstance(search, str) and len(search) <= 2 * MAX_VIEW):
        return {}
    return dict(parse_qsl(search.removeprefix("?")))


def read_language(search) -> str | None:
    """The page's ?lang= of an address, if it is one of the page's languages."""
    lang = page_params(search).get("lang")
    return lang if lang in LANGUAGES else None


def address(view: str, search, params: list[dict]) -> str:
    """The address a view step gives the page (`search`, its address now): the view, in the page's language, and
    in lecture mode if the page is in it (a lecture stays in lecture mode, whichever mode its views were saved in)."""
    values = read_view(view, params, 0)
    if page_params(search).get("lecture") == "1":
        values["lecture"] = True
    query, lang = view_query(values, params), read_language(search)
    if lang is not None:
        query += ("&" if query else "?") + urlencode({"lang": lang})
    return query or "?"


def count_text(steps: list[dict]) -> str:
    return ngettext("A plan of {count} step.", "A plan of {count} steps.", len(steps)).format(count=len(steps))
