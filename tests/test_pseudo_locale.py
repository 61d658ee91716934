"""A pseudo-locale catches a sentence assembled in code (issue 37).

The test builds a catalog `xx` at test time from every message the code marks (extracted as `make messages` does, so
a message the template does not hold yet is there too): each message wrapped in ⟦…⟧ with its letters and
punctuation made visibly foreign (a → á, n → ñ, "," → "‚" …), its placeholders kept. It is served through
i18n.substitute, Babel's list patterns likewise (each separator wrapped), and nothing is written to
dashboard/locale. Then every view's server callback, the pages' layouts, the explorer's sentence-making functions at
several settings and class mode's results and student strings are rendered, and every visible string must be
owned: once every marked piece is taken out, what is left may hold numbers, formulas and math symbols, but no word
and no punctuation glued to a message (a "; " or ", " between two messages is a separator put back in code).
"""

from __future__ import annotations

import functools
import gettext
import inspect
import io
import re
import sys

import numpy as np
import pytest
from babel.lists import format_list as babel_format_list
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg

from dashboard import bugs, checks, explain, i18n, limits, state, trainer
from dashboard.attention import worked_example
from dashboard.classmode import layout_in as class_layout_in
from dashboard.classmode import results, student
from dashboard.explorer import drilldown, forms, forward, influence, influence_tables, layout_in, learning, summary
from dashboard.explorer import trained as trained_view
from tests.dash_requests import cell, default_values, outputs_of, view_callbacks
from tests.dash_requests import trained as ready_runs
from tests.dash_requests import model as store
from tests.util import fire
from tests.browser import wait_until

OPEN, CLOSE = "⟦", "⟧"
# punctuation too, the middle dot of "3 joined · 2 answered" included: the catalog's own
FOREIGN = str.maketrans("aeiouAEIOUcnsyCNSY,;:.!?·", "áéíóúÁÉÍÓÚçñšýÇÑŠÝ‚⁏˸․ǃʔ∙")
FIELD = re.compile(r"(\{[^{}]*\})")  # a placeholder, kept as it is


def foreign(text: str) -> str:
    """`text` with its letters made foreign, its placeholders ({name:.2f}) untouched."""
    return "".join(part if FIELD.fullmatch(part) else part.translate(FOREIGN) for part in FIELD.split(text))


def pseudo(text: str) -> str:
    return OPEN + foreign(text) + CLOSE


def pseudo_catalog() -> gettext.GNUTranslations:
    """Every message the code marks now (as `make messages` extracts them: babel.cfg, so a message not yet in the
    template is there too), in `xx`, compiled in memory."""
    root = i18n.LOCALE_DIR.parent.parent
    with open(root / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    xx = Catalog(locale="en", domain="messages")  # English's plural rule: the code's two forms
    for _file, _line, message, _comments, context in extract_from_dir(root, method_map, options_map):
        string = tuple(pseudo(s) for s in message) if isinstance(message, tuple) else pseudo(message)
        xx.add(message, string, context=context)
    buffer = io.BytesIO()
    write_mo(buffer, xx)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def pseudo_list(items: list[str], style: str) -> str:
    """Babel's English list with each separator a message of its own: "1⟦‚ ⟧2⟦‚ áñd ⟧4"."""
    marks = [f"\ue000{k}\ue001" for k in range(len(items))]
    parts = re.split("\ue000(\\d+)\ue001", babel_format_list(marks, style=style, locale="en"))
    return "".join(items[int(part)] if k % 2 else (pseudo(part) if part else "") for k, part in enumerate(parts))


@pytest.fixture(scope="module")
def xx():
    """The pseudo-locale for the module's tests; every cache of the dashboard emptied after, so that no text made
    in it is ever served in a real language."""
    trainer.training_runs(0)  # the learning lab's default seed, trained before: its views draw it
    with i18n.substitute(pseudo_catalog(), pseudo_list):
        yield
    cached = type(functools.lru_cache()(len))
    for name, module in list(sys.modules.items()):
        if name.startswith("dashboard"):
            for value in list(vars(module).values()):
                if isinstance(value, cached) or (inspect.isfunction(value) and hasattr(value, "cache_clear")):
                    value.cache_clear()


# What a student sees or hears: a component's text props, and a figure's titles, labels, names and hover texts.
TEXT_PROPS = {"children", "title", "placeholder", "aria-label", "label", "alt", "aria-valuetext", "header"}
FIGURE_TEXT = {"text", "title", "name", "hovertemplate", "ticktext", "texttemplate"}


def figure_texts(node) -> list[str]:
    if isinstance(node, dict):
        found = []
        for key, value in node.items():
            if key in FIGURE_TEXT and isinstance(value, str):
                found.append(value)
            elif key in FIGURE_TEXT and isinstance(value, list | tuple):
                found += [v for v in value if isinstance(v, str)]
            elif key not in ("bdata", "colorscale", "font", "z", "x", "y", "customdata", "shapes"):
                found += figure_texts(value)
        return found
    if isinstance(node, list | tuple):
        return [t for item in node for t in figure_texts(item)]
    if hasattr(node, "to_plotly_json"):  # a Patch of a figure
        return figure_texts(node.to_plotly_json())
    return []


def visible(node) -> list[str]:
    """The text of a component tree (or of a string, or a list of them)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list | tuple):
        return [t for item in node for t in visible(item)]
    if hasattr(node, "to_plotly_json") and hasattr(node, "_prop_names"):
        if "prose" in (getattr(node, "className", None) or "").split():  # the seed's text, per language (content/)
            return []
        found = []
        for prop in ("children", *sorted(TEXT_PROPS - {"children"}), "figure", "options"):
            value = getattr(node, prop, None)
            if value is None:
                continue
            if prop == "figure":
                found += figure_texts(value)
            elif prop == "options":
                found += [t for o in value if isinstance(o, dict) for t in visible(o.get("label"))]
            else:
                found += visible(value)
        return found
    return []


def answer_texts(key: str, answer) -> list[str]:
    """The visible text of a callback's answer, output by output."""
    outputs = outputs_of(key)
    if len(outputs) > 1 and isinstance(answer, dict):  # named outputs (output=dict(…)), in the order of the spec
        answer = list(answer.values())
    answers = answer if len(outputs) > 1 else [answer]
    found = []
    for output, value in zip(outputs, answers):
        prop = output.split("@")[0].rsplit(".", 1)[-1]
        found += figure_texts(value) if prop == "figure" else visible(value) if prop in TEXT_PROPS else []
    return found


# Identifiers of the formulas, written the same in every language (as the seed writes them).
MATH = {"softmax", "log", "MultiHead", "Concat", "concat", "head", "heads", "logits", "output", "mean", "grad",
        "input", "d_k", "W_O", "W_Q", "W_K", "W_V"}
CODE_PUNCTUATION = ",;:.!?·、，；：。"  # in code, or a Chinese mark (no English message holds one)
GLUED = re.compile(rf"\x01[ ]*[{CODE_PUNCTUATION}]|[{CODE_PUNCTUATION}][ ]*\x01")
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾"  # head₁, headₕ, log₂: the seed's notation
# Each language's name in its own language, for the switch (i18n.LANGUAGE_NAMES), a key's label and an example join
# code: never translated.
KEPT = set(i18n.LANGUAGE_NAMES.values()) | {"Esc", "ABC234"}
# the lecturer page's join code and link: data, not words
JOIN_LINK = re.compile(rf"https?://[\w.:-]+/class/({limits.CODE.pattern})?|{limits.CODE.pattern}")


def unowned(text: str) -> list[str]:
    """What in `text` no message owns: a word outside every marked piece, or code's punctuation (ASCII, or a
    Chinese mark no English message holds) touching a piece, at any depth: "⟦…: ⟦a⟧; ⟦b⟧⟧" is a "; " joined in code
    inside a message's placeholder (the catalog's own punctuation is pseudo's full-width one)."""
    if re.search(r"<(p|img|div|span|h\d|ul|table)\b", text):  # typeset HTML: the content's, per language
        return []
    outside = re.sub(r"%\{[^}]*\}", "0", re.sub(r"<[^>]+>", " ", text))  # Plotly's tags and hover fields
    # a message split around an element (surgery's bold loss): its start runs to the string's end, its end from
    # the string's start
    outside = re.sub(r"^[^⟦]*⟧", "\x01", re.sub(r"⟦[^⟧]*$", "\x01", outside))
    # Punctuation of sentences in code, wherever it is: the catalog's own is pseudo's look-alike, and formulas
    # write neither a semicolon nor ": " (a label and its value, "h = 1: 0.354", is a message's)
    found = re.findall(r"[;；、，：。]|: ", outside)
    # a list of numbers joined in code, "heads 1, 2, 4" (a vector or an index, "(+0.12, -0.34)", "[2, 5]", is math)
    found += [m.group(2) for m in re.finditer(r"(^|[^\[(\d.+-])((?:\d+(?:\.\d+)?)(?:, \d+(?:\.\d+)?)+)", outside)]
    while True:  # innermost first: a message's placeholder may hold other messages
        stripped = re.sub(r"⟦[^⟦⟧]*⟧", "\x01", outside)
        found += [m.group() for m in GLUED.finditer(stripped)]
        if stripped == outside:
            break
        outside = stripped
    for word in re.findall(r"[^\W\d]+", outside.replace("\x01", " ")):
        bare = word.strip("_").rstrip(SUBSCRIPTS)
        if len(bare) > 2 and bare not in MATH and not re.fullmatch(r"[A-Za-z]_?[A-Za-z0-9]?", bare):
            found.append(word)
    return found


def offenders(texts: list[str]) -> list[tuple[str, list[str]]]:
    return [(t, u) for t in texts if t not in KEPT and not JOIN_LINK.fullmatch(t) and (u := unowned(t))]


def test_the_pseudo_catalog_is_served_and_catches_a_separator_in_code(xx):
    """The check itself: a message is marked and foreign, a list's separators are the catalog's, and a "; "
    joined in code is caught."""
    said = i18n._("Type the {n} numbers 0 to {last} in a new order, separated by spaces or commas.")
    assert said == "⟦Týpé thé {n} ñúmbérš 0 tó {last} íñ á ñéw órdér‚ šépárátéd bý špáçéš ór çómmáš․⟧"
    assert i18n.format_list(["1", "2", "4"]) == "1⟦‚ ⟧2⟦‚ áñd ⟧4"
    assert unowned(i18n.format_list(["1", "2", "4"])) == []
    assert unowned("; ".join([i18n._("value"), i18n._("value")])) != []
    inner = "; ".join([i18n._("value"), i18n._("value")])  # a separator in code, inside a message's placeholder
    assert unowned(i18n._("Median answer, {medians}.").format(medians=inner)) != []
    assert unowned(i18n._("Median answer, {medians}.").format(medians=i18n.format_list(["0.2", "0.3"]))) == []
    assert unowned(f"{i18n._('value')}, 4") != [] and unowned("rank 1") != []
    assert unowned(" · ".join([i18n._("value"), i18n._("value")])) != []  # the middle dot, joined in code
    assert unowned(i18n._("{joined} · {answered} answered vote {round}").format(
        joined=i18n._("{joined} joined").format(joined=3), answered=2, round=1)) == []  # the catalog's own
    assert unowned("A⁽¹⁾[2, 5] = 0.300") == unowned("(+0.120, -0.340)") == [] == unowned("‖v⁽¹⁾_5 W_O⁽¹⁾‖ = 0.812")


def at_defaults(key: str) -> dict:
    """A view's values at the page's defaults, with the learning lab's seed 0 trained and ready (so its views
    draw their sentences, not "training …")."""
    values = default_values(key)
    return {**values, "trained": ready_runs()} if "trained" in values else values


def test_every_view_answer_is_owned_by_the_catalog(xx):
    """Every view's server callback at the page's defaults: figures, sentences, tables."""
    texts = [t for c in view_callbacks() for t in answer_texts(c.key, fire(c.function, **at_defaults(c.key)))]
    assert len(texts) > 300
    assert offenders(texts) == []


def test_the_pages_are_owned_by_the_catalog(xx):
    texts = visible(layout_in.__wrapped__("en")) + visible(class_layout_in.__wrapped__("en"))
    assert len(texts) > 200
    assert offenders(texts) == []


SETTINGS = [dict(h=1, seed=0), dict(h=2, seed=3), dict(h=4, seed=0, weights="trained"), dict(h=8, seed=5)]


@pytest.mark.parametrize("s", SETTINGS, ids=str)
def test_the_explorer_s_sentences_at_several_settings(xx, s):
    setting = state.Setting(s["h"], s["seed"], weights=s.get("weights", "random"))
    ex, result = state.model(setting)
    n = ex.X.shape[0]
    texts = []
    summaries = explain.head_summaries(result.A, ex.cluster)
    texts += [summary.reading(summaries, n, trained=setting.weights == "trained")]
    fig, text, table = (fire(influence.update_heads, shared=store(**s))[k] for k in ("figure", "text", "table"))
    texts += figure_texts(fig) + [text] + visible(table)
    for i, r in [(0, 0), (setting.h - 1, 5)]:
        q = influence.ranking(setting, i, r)
        texts += [influence_tables.disagreement_text(q)] + visible(influence_tables.agreement_table(q))
        texts += visible(fire(drilldown.update_drilldown, shared=store(**s), cell=cell(i + 1, r, (r + 3) % n)))
    texts += [forward.forward_text(setting.h, np.linalg.norm(explain.head_contributions(result, ex.W_O),
                                                              axis=(1, 2)))]
    texts += [forms.rank_text(setting.h, np.arange(setting.h) % 3 + 1)]  # ranks that differ: a list
    texts += [trained_view.training_message(0), learning.loss_text(0)]
    texts += [limits.permutation(text, 12)[1] for text in ("0 1 2", "0 0 1 2 3 4 5 6 7 8 9 10", "x")]
    texts += [learning.roles([0.8, 0.3, 0.2, 0.4][:min(setting.h, 4)], [0.1, 0.6, 0.3, 0.4][:min(setting.h, 4)],
                             result.A, 10)]
    assert offenders(texts) == []


def test_the_clinic_s_sentences(xx):
    """The checks' verdicts, "caught by …; missed by …", and a wrong guess at the mystery: "Not that one: …; …"."""
    ex = worked_example(0)
    example = checks.Example(ex.X, tuple(ex[1:5]), 4)
    texts = []
    for key in ("softmax-axis", "kq", "reshape", "no-scale"):
        found = checks.side_by_side(example, bugs.BUGS_BY_KEY[key])
        texts += [checks.caught_by(found)] + [v.detail for c, b, _caught in found.values() for v in (c, b)]
        for guess in ("kq", "reshape", "softmax-axis"):
            texts += [checks.judge(example, bugs.BUGS_BY_KEY[key], bugs.BUGS_BY_KEY[guess])[1]]
    texts += [_said(limits.choice, 3, (1, 2, 4, 8), "h"), _said(limits.member, 3, range(0, 10, 2), "h")]
    assert offenders(texts) == []


def _said(rule, *args) -> str:
    """The message a rule raises for a value it refuses."""
    try:
        rule(*args)
    except Exception as error:  # limits.Invalid, ValueError
        return str(error)
    raise AssertionError(f"{rule.__name__}{args} refused nothing")


def question(template: str, kind: str, truth, accepted=(), votes=((3, 1), (4, 2)), phase="revealed") -> dict:
    """A revealed question as the store gives it to results and student (the counts per vote and option)."""
    n = 12 if template in ("key", "influence") else 4 if template in ("sharpest", "role") else 2
    if kind == "amount":
        tallies = [{"count": len(v), "values": list(v), "counts": []} for v in ([0.21, 0.25, 0.4], [0.23, 0.24])]
        return dict(template=template, kind=kind, truth=truth, tolerance=0.025, lo=0.05, hi=0.5, accepted=None,
                    n=None, votes=tallies, phase=phase)
    tallies = [{"count": a + b, "counts": [a, b] + [0] * (n - 2), "values": []} for a, b in votes]
    return dict(template=template, kind=kind, truth=truth, tolerance=None, lo=None, hi=None, accepted=list(accepted),
                n=n, votes=tallies, phase=phase)


QUESTIONS = [question("key", "option", 4, accepted=(4, 5, 7)), question("sharpest", "option", 1, accepted=(1,)),
             question("amount", "amount", 0.2299), question("floor", "option", 1, accepted=(1,), votes=((0, 0),))]


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: q["template"])
def test_class_mode_s_results_and_a_student_s_strings(xx, q):
    texts = [results.summary(q)]
    for answers in ({1: q["truth"], 2: q["truth"]}, {1: q["truth"]}, {}):
        texts += [student.result_text(q, answers), student.result_text({**q, "phase": "vote2"}, answers),
                  student.result_text({**q, "phase": "vote1"}, answers)]
    assert offenders([t for t in texts if t]) == []


# ------------------------------------------------------------------ the pages in a browser, in the pseudo-locale

# The app as app.py starts it, with the pseudo-locale in place of every catalog before it is built.
SERVE = """import sys
from dashboard import i18n
from tests.test_pseudo_locale import pseudo_catalog, pseudo_list
i18n.substitute_everywhere(pseudo_catalog(), pseudo_list)
import app
app.main(sys.argv[1:])
"""

# Every shown text node of an element, the seed's typeset text (content/, per language) left out, and (not yet
# mended, not this test's author's file) the figures' text alternatives: assets/a11y.js joins the panels'
# readings with "; " (describe, figureEnd) and a title's lines with ", ", which want a page message each.
SHOWN_TEXT = """(selector) => {
  const out = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || el.closest('.prose, .figure-text, script, style, noscript')) continue;
      if (!el.getClientRects().length) continue;  // not shown
      const text = node.data.trim();
      if (text) out.push(text);
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def pseudo_url(tmp_path_factory):
    from tests.conftest import free_port, start, stop

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start([sys.executable, "-c", SERVE, "--port", str(port)], url + "/",
                 env={"DATA_DIR": str(tmp_path_factory.mktemp("data")), "TRUSTED_PROXIES": "127.0.0.1"})
    yield url
    stop(proc)


def class_session_offenders(page, context, url: str) -> dict:
    """Both class pages through a question: the lecturer starts a session on the start page and poses the form's
    question, a phone joins and answers it, the lecturer reveals it. Each page's text at each step."""
    found = {}

    def look(where, on):
        if bad := offenders(on.evaluate(SHOWN_TEXT, "body")):
            found[where] = bad

    page.click("#class-start")
    page.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
    look("lecturer, no question", page)
    phone = context.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(f"{url}/class/{page.inner_text('#class-code')}")
    phone.wait_for_selector("#class-student-status")
    look("student, joined", phone)
    page.click("#class-pose")
    phone.wait_for_selector("#class-choices label")
    phone.locator("#class-choices label").first.click()
    page.wait_for_selector("#class-count:has-text('1')")
    look("lecturer, question open", page)
    look("student, answered", phone)
    status = phone.inner_text("#class-student-status")
    page.click("#class-reveal")
    page.wait_for_selector("#class-results table.class-bars")
    wait_until(phone, "s => document.getElementById('class-student-status').innerText !== s", status)
    look("lecturer, revealed", page)
    look("student, revealed", phone)
    return found


@pytest.mark.browser
def test_every_tab_and_the_class_page_in_a_browser_is_owned_by_the_catalog(browser, pseudo_url):
    """The pseudo-locale served by a real server and drawn by Chromium: every tab (figures' titles and axes
    too), class mode's start page, and the lecturer's and a student's pages through a question hold no text that
    no message owns."""
    from tests.test_a11y import each_tab, wait_drawn

    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{pseudo_url}/?h=4")
        wait_drawn(page, "example")
        found = {}
        for tab in each_tab(page):
            texts = page.evaluate(SHOWN_TEXT, f"#section-{tab}, header, nav, #model-bar")
            assert len(texts) > 10, tab
            if bad := offenders(texts):
                found[tab] = bad
        page.goto(f"{pseudo_url}/class/")
        page.wait_for_selector("main")
        if bad := offenders(page.evaluate(SHOWN_TEXT, "body")):
            found["class"] = bad
        found.update(class_session_offenders(page, context, pseudo_url))
        assert found == {}, "\n".join(f"{where}: {text[:160]!r} {bad}" for where, pairs in found.items()
                                      for text, bad in pairs)
    finally:
        context.close()
