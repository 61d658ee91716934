"""The student's language (dashboard/i18n.py): complete and current catalogs, the same math in every language, one
glossary, the language a page is built in, and pages and live answers in Chinese and Spanish with no English left."""

import json
import re
import string
import tomllib
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from dashboard import create_app, i18n
from dashboard.explorer import layout_in, ui
from dashboard.classmode import layout_in as class_layout_in
from dashboard.wiring import LANGUAGE
from tests.dash_requests import PASSED_ON, default_values, request, view_callbacks
from tests.util import fire

ROOT = Path(__file__).resolve().parent.parent
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
SECTIONS = sorted(p.stem for p in ui.CONTENT.glob("*.md"))
FORMULA = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)  # as tools/assets/render-math.js finds them
PLACEHOLDER = re.compile(r"\{[^{}]*\}")  # {name}: the code's, not a word of the translation
CJK = re.compile(r"[\u4e00-\u9fff]")
GLOSSARY = tomllib.loads((i18n.LOCALE_DIR / "glossary.toml").read_text(encoding="utf-8"))
# English words that no Chinese or Spanish sentence holds: one of them on a translated page is English left over.
ENGLISH = re.compile(r"\b(the|and|of|with|from|this|each|is|are|head|heads|seed|weights|query|queries|keys|values"
                     r"|attention|click|choose|shows?|largest|row|loading|download|reset|plot|autoscale|hover)\b", re.IGNORECASE)


def catalog(lang: str):
    with open(i18n.LOCALE_DIR / i18n.LOCALES[lang] / "LC_MESSAGES" / "messages.po", "rb") as po:
        return read_po(po, locale=i18n.LOCALES[lang])


def source_messages() -> set:
    """Every message the code marks now, as `make messages` extracts them (babel.cfg)."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    return {message for _file, _line, message, _comments, _context
            in extract_from_dir(ROOT, method_map, options_map)}


def placeholders(text: str) -> set:
    """{name} and {name:.2f} as (name, format spec): a translation must keep both."""
    return {(name, spec) for _literal, name, spec, _conversion in string.Formatter().parse(text) if name is not None}


@pytest.fixture(scope="module")
def extracted():
    return source_messages()


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalog_holds_every_message_the_code_marks_and_no_other(lang, extracted):
    held = {m.id for m in catalog(lang) if m.id}
    assert not extracted - held, "run `make messages` and translate the new messages"
    assert not held - extracted, "run `make messages`: the catalog holds messages the code no longer has"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(lang):
    for message in catalog(lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert "fuzzy" not in message.flags, message.id
        assert all(strings), f"untranslated: {message.id!r}"
        for text in strings:  # a missing or misspelt {name} would raise as the page is built
            assert placeholders(text) <= placeholders(ids[-1]), (message.id, text)
            assert {p for p in placeholders(ids[0]) if p[0] != "n"} <= placeholders(text), (message.id, text)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalog_is_the_current_one(lang):
    def pairs(messages) -> dict:
        frozen = (lambda x: tuple(x) if isinstance(x, list | tuple) else x)
        return {frozen(m.id): frozen(m.string) for m in messages if m.id}

    with open(i18n.LOCALE_DIR / i18n.LOCALES[lang] / "LC_MESSAGES" / "messages.mo", "rb") as mo:
        assert pairs(read_mo(mo)) == pairs(catalog(lang)), "run `make messages`"


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("name", SECTIONS)
def test_every_formula_is_the_same_in_every_language_in_the_same_order(lang, name):
    english = FORMULA.findall((ui.CONTENT / f"{name}.md").read_text(encoding="utf-8"))
    translated = (ui.CONTENT / lang / f"{name}.md").read_text(encoding="utf-8")
    assert FORMULA.findall(translated) == english
    assert "$" not in FORMULA.sub("", translated), "a $ outside a formula"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_each_language_has_every_section_typeset(lang):
    assert sorted(p.stem for p in (ui.RENDERED / lang).glob("*.html")) == SECTIONS
    assert sorted(p.stem for p in (ui.CONTENT / lang).glob("*.md")) == (SECTIONS if lang in TRANSLATED else [])


def translated_texts(lang: str) -> dict[str, str]:
    """{where: text} of everything translated into `lang`: the seed's text and every message."""
    texts = {f"{name}.md": (ui.CONTENT / lang / f"{name}.md").read_text(encoding="utf-8") for name in SECTIONS}
    for message in catalog(lang):
        if message.id:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            texts[repr(message.id)] = " ".join(strings)
    return texts


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_translated_text_uses_a_term_the_glossary_did_not_choose(lang):
    found = [f"{where}: {other!r} for {term!r}; use {entry['use']!r}"
             for where, text in translated_texts(lang).items() for term, entry in GLOSSARY[lang].items()
             for other in entry["avoid"] if other.lower() in PLACEHOLDER.sub("", text).lower()]
    assert found == []


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("name", SECTIONS)
def test_a_section_that_names_a_term_uses_the_glossary_s_choice(lang, name):
    english = (ui.CONTENT / f"{name}.md").read_text(encoding="utf-8").lower()
    translated = (ui.CONTENT / lang / f"{name}.md").read_text(encoding="utf-8").lower()
    for term, entry in GLOSSARY[lang].items():
        if re.search(rf"\b{re.escape(term)}s?\b", english):
            # a longer term that holds this one says it too: the seed (notebook) is the seed notebook, 原笔记本
            said = [e.get("stem", e["use"]).lower() for t, e in GLOSSARY[lang].items()
                    if t == term or term in t.split()]
            assert any(s in translated for s in said), f"{term!r} is {entry['use']!r}"


@pytest.fixture(scope="module")
def client():
    return create_app().server.test_client()


def page_language_of(layout: dict) -> str:
    return next(c["props"]["data"] for c in layout["props"]["children"] if c["props"].get("id") == LANGUAGE)


@pytest.mark.parametrize(("query", "accept", "lang"), [
    ("", "", "en"), ("?lang=zh-CN", "", "zh-CN"), ("?lang=es", "zh-CN", "es"), ("", "es-MX,es;q=0.9", "es"),
    ("", "zh-TW,en;q=0.5", "zh-CN"), ("", "fr-FR,de", "en"), ("?lang=xx", "es", "es"), ("?lang=ZH-cn", "", "zh-CN"),
    ("", "es_ES", "es"), ("?lang=" + "x" * 5000, "\u0000;q=nan", "en"),
])
def test_a_page_and_its_layout_are_in_the_language_its_url_or_browser_asks_for(client, query, accept, lang):
    for path in ("/", "/class/"):
        client.delete_cookie(i18n.PAGE_COOKIE)
        headers = {"Accept-Language": accept} if accept else {}
        page = client.get(path + query, headers=headers)
        assert page.status_code == 200
        assert f'<html lang="{lang}">' in page.text
        assert "Accept-Language" in page.headers["Vary"]
        layout = client.get(path + "_dash-layout", headers={"Accept-Language": "fr"})  # the page's, not the header's
        assert page_language_of(layout.json) == lang


def test_the_choice_made_in_the_switch_outlasts_the_page_and_a_link_does_not_change_it(client):
    client.set_cookie(i18n.CHOICE_COOKIE, "es")  # as assets/header.js sets it
    assert '<html lang="es">' in client.get("/", headers={"Accept-Language": "zh-CN"}).text
    assert "<title>Explorador de atención multicabeza</title>" in client.get("/").text
    assert '<html lang="zh-CN">' in client.get("/?lang=zh-CN").text  # a shared link, in its sender's language
    assert client.get_cookie(i18n.CHOICE_COOKIE).value == "es"  # and the student's own choice stays
    client.delete_cookie(i18n.CHOICE_COOKIE)


def test_a_layout_fetched_without_its_page_s_cookie_follows_the_browser(client):
    """A browser that keeps no cookie gets the layout of its Accept-Language; the page then says so (<html lang>
    follows the page-language store, header.js pageLanguage) rather than reloading."""
    client.delete_cookie(i18n.PAGE_COOKIE)
    assert page_language_of(client.get("/_dash-layout", headers={"Accept-Language": "es"}).json) == "es"


def test_every_view_answers_in_the_language_its_page_sends(client):
    """Over HTTP, through the wiring that runs a callback in its page's language."""
    answers = {lang: client.post("/_dash-update-component", json=request("scale-text.children", lang=lang))
               for lang in i18n.LANGUAGES}
    texts = {lang: answer.json["response"]["scale-text"]["children"] for lang, answer in answers.items()}
    assert ENGLISH.search(texts["en"]) and CJK.search(texts["zh-CN"]) and "escalados" in texts["es"]


def strings(node) -> list[str]:
    """The words a student can see or hear in a layout or an answer: text, labels, titles, alternatives."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list | tuple):
        return [s for item in node for s in strings(item)]
    if isinstance(node, dict):
        return [s for key, value in node.items() if key not in SILENT
                for s in strings(list(json.loads(value).values()) if key == "data-messages" else value)]
    if hasattr(node, "to_plotly_json"):  # a component, or a Patch of a figure
        plotly_json = node.to_plotly_json()
        return strings(plotly_json.get("props", plotly_json))
    return []


# Props that hold no words: ids, classes, styles, values sent between browser and server, formulas' TeX.
SILENT = {"id", "className", "style", "value", "data", "href", "src", "type", "key", "colorscale", "family",
          "config", "html_for", "htmlFor", "role", "inputClassName", "labelClassName", "labelCheckedClassName",
          "data-graph", "data-session-key", "data-choice-cookie", "scope", "uirevision", "hoverinfo", "mode",
          "aria-labelledby", "aria-controls", "aria-describedby", "content", "filename"}  # a download's file


# English that stays English in every language (issue 37): a paper's title, and the array name of a shape
KEPT = re.compile(r"“Attention is Not Only a Weight”|\bheads(?= \(h, n, d_k\))")


def english_left(texts: list[str]) -> list[str]:
    formula = re.compile(r'<img class="formula"[^>]*>')
    return [t for t in texts if ENGLISH.search(PLACEHOLDER.sub(" ", re.sub(r"<[^>]+>", " ", formula.sub(" ", KEPT.sub(" ", t)))))]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_pages_hold_no_english(lang):
    texts = strings(layout_in(lang)) + strings(class_layout_in(lang))
    assert len(texts) > 200
    assert english_left(texts) == []


def live_answers() -> list:
    """Every view's server callback at the page's defaults, in the language in use; not the controls a callback
    copies from one store to another (PASSED_ON), which hold no words."""
    return [fire(c.function, **default_values(c.key)) for c in view_callbacks()
            if c.key.rsplit(".", 1)[0] not in PASSED_ON]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_live_answer_is_in_the_page_s_language(lang):
    """Every view's server callback at the page's defaults, in a page in `lang`: figures, sentences, tables."""
    from dashboard import trainer

    trainer.training_runs(0)  # the learning lab's default seed, which its views draw once it is ready
    with i18n.use(lang):
        answers = live_answers()
    assert english_left(strings(answers)) == []


@pytest.fixture
def class_mode(tmp_path, monkeypatch):
    """A Flask test client of class mode, with a fresh SQLite store, and its Dash app."""
    from dashboard import create_apps, trainer
    from dashboard.classmode import ids

    trainer.training_runs(0)  # questions on trained weights
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    ids.store.cache_clear()
    app = create_apps()[1]
    yield app.server.test_client(), app
    ids.store.cache_clear()


def in_language(body: dict, lang: str) -> dict:
    """A class-mode request from a page in `lang`."""
    return {**body, "state": [{**p, "value": lang} if p["id"] == LANGUAGE else p for p in body["state"]]}


def test_a_lecturer_in_spanish_and_a_student_in_chinese_each_read_their_own_language(class_mode):
    """The projector shows the lecturer's language; each student's phone, the student's own."""
    from dashboard.classmode import ids
    from tests.class_requests import Bodies, post

    client, app = class_mode
    b = Bodies(app)
    control = post(client, in_language(b.start(), "es"))[1][ids.CONTROL]["data"]
    code, token = control["code"], control["token"]
    projector = [post(client, in_language(b.open(code, token), "es"))[1],
                 post(client, in_language(b.pose(code, token, head=2, query=1), "es"))[1]]
    question = projector[1][ids.QUESTION]["data"]["id"]
    english = post(client, b.open(code, token))[1][ids.PROMPT]["children"]
    student = post(client, in_language(b.join(code), "zh-CN"))[1][ids.STUDENT_ID]["data"]["id"]
    phone = [post(client, in_language(b.poll(code, student), "zh-CN"))[1],
             post(client, in_language(b.answer(code, student, question, 3), "zh-CN"))[1]]
    projector.append(post(client, in_language(b.reveal(code, token, question), "es"))[1])  # with its figure
    phone.append(post(client, in_language(b.poll(code, student, seen=phone[0][ids.SEEN]["data"]), "zh-CN"))[1])
    assert english_left(strings(projector)) == [] and english_left(strings(phone)) == []
    assert CJK.search(str(phone[-1][ids.S_RESULT]["children"]))  # the answer, as the phone reads it
    spanish = projector[1][ids.PROMPT]["children"]
    assert spanish != english and not CJK.search(spanish)
    assert CJK.search(phone[0][ids.S_PROMPT]["children"])


def test_the_password_prompt_is_in_the_browser_s_language():
    guarded = create_app(password="room 101").server.test_client()
    refused = guarded.get("/", headers={"Accept-Language": "zh-CN"})
    assert refused.status_code == 401 and CJK.search(refused.text)


def test_sentences_follow_each_other_as_each_language_writes_them():
    with i18n.use("zh-CN"):
        assert i18n.sentences("第一句。", "", "第二句。") == "第一句。第二句。"
    with i18n.use("es"):
        assert i18n.sentences("Una.", "", "Otra.") == "Una. Otra."


# Chinese typography (issue 37): full-width punctuation inside Chinese text, no space after 。, none of code's ASCII.
ASCII_IN_CHINESE = re.compile(r"[\u4e00-\u9fff）][,;:?!](?![\d.])|[\u4e00-\u9fff）]\.(?![\d.])|[,;:] ?[\u4e00-\u9fff（]|。 ")


def test_chinese_messages_use_full_width_punctuation():
    found = [s for m in catalog("zh-CN") for s in (m.string if isinstance(m.string, tuple) else (m.string,))
             if s and ASCII_IN_CHINESE.search(s)]
    assert found == []


def test_chinese_live_answers_and_lists_use_full_width_punctuation():
    """Every view at the defaults, and lists as each language joins them (i18n.format_list): "头 2、4", never
    "头 2, 4"; Spanish's "y" before the last item."""
    from dashboard import trainer
    from dashboard.explorer import summary

    trainer.training_runs(0)
    with i18n.use("zh-CN"):
        answers = live_answers()
        heads = summary.heads_named([2, 4])
    texts = [re.sub(r"<[^>]+>", " ", t) for t in strings(answers)]
    assert [t for t in texts if ASCII_IN_CHINESE.search(t)] == []
    assert heads == "头 2和4"
    with i18n.use("es"):
        assert i18n.format_list([1, 2, 4]) == "1, 2 y 4" and summary.heads_named([1, 2, 4]) == "cabezas 1, 2 y 4"
    with i18n.use("zh-CN"):
        assert i18n.format_list([1, 2, 4]) == "1、2和4" and i18n.clauses(["甲", "乙"]) == "甲；乙"


# Two Han characters side by side on two lines: a word broken across lines in a cell, a button, a label or a title
# (assets/site/languages.css keeps Chinese words whole there). Each element's text once, the first break it has.
BROKEN_WORDS = """() => {
  const han = /[\\u4e00-\\u9fff]/, found = new Set();
  const box = (node, i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                             return r.getBoundingClientRect(); };
  for (const el of document.querySelectorAll('th, td, caption, button, .btn, label, h1, h2, h3, h4, h5, h6')) {
    if (!el.getClientRects().length) continue;  // not shown
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const t = node.data;
      for (let i = 0; i + 1 < t.length; i++) {
        if (!han.test(t[i]) || !han.test(t[i + 1])) continue;
        const a = box(node, i), b = box(node, i + 1);
        if (a.height && b.height && b.top > a.top + a.height / 2) { found.add(`${t[i]}/${t[i + 1]} in ${el.tagName}: ${el.innerText.slice(0, 30)}`); break; }
      }
    }
  }
  return [...found];
}"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1440, 1920])
def test_no_chinese_word_breaks_across_lines_in_cells_buttons_and_titles(browser, app_url, width):
    """Every tab in Chinese at a phone's, a laptop's and a projector's width: no two-character word split (错/误,
    通/过), measured from the rendered lines."""
    from tests.test_a11y import each_tab, wait_drawn

    context = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{app_url}/?lang=zh-CN&h=4")
        wait_drawn(page, "example")
        broken = {}
        for tab in each_tab(page):
            if found := page.evaluate(BROKEN_WORDS):
                broken[tab] = found
        assert broken == {}
    finally:
        context.close()
