"""The student's language: English, Simplified Chinese or Spanish, one per request.

Messages live in Babel's gettext catalogs (dashboard/locale/<locale>/LC_MESSAGES/messages.po, compiled to .mo:
`make messages`); the seed's explanations in per-language Markdown (dashboard/content/<lang>/). Math is never
translated. The language of a callback is its page's (a State every server callback carries, dashboard/wiring.py),
so two pages in two languages on one server, or in one browser, each keep their own.

    _("Heads")                                    # now, in the request's language
    N_("Heads")                                   # marked for the catalog; translated where it is shown
    ngettext("{n} head", "{n} heads", n).format(n=n)
    pgettext("a value vector", "value")           # one English word, two meanings: the context tells them apart
    format_list(["1", "2", "4"])                  # "1, 2, and 4", "1、2和4", "1, 2 y 4": each language's own list

No sentence is assembled in code: a list is joined by format_list (Babel's CLDR patterns), a label with a value
is one message with a placeholder, and parentheses and final punctuation belong to the message. The pseudo-locale
test (tests/test_pseudo_locale.py) serves a generated catalog through `substitute` and fails on any visible text
that no message owns.
"""

from __future__ import annotations

import contextlib
import functools
from contextvars import ContextVar
from pathlib import Path

from babel.lists import format_list as babel_format_list
from babel.support import NullTranslations, Translations

LANGUAGES = ("en", "zh-CN", "es")  # BCP 47 tags, as <html lang> and ?lang= write them
DEFAULT = "en"
LANGUAGE_NAMES = {"en": "English", "zh-CN": "简体中文", "es": "Español"}  # each in its own language, for the switch
LOCALES = {"en": "en", "zh-CN": "zh_CN", "es": "es"}  # Babel's names, the catalogs' folders
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
CHOICE_COOKIE = "mha-language"  # the language this browser chose in the header's switch (assets/header.js)
PAGE_COOKIE = "mha-page-language"  # the language of the page this browser loaded last, for the layout it fetches

_language: ContextVar[str] = ContextVar("language", default=DEFAULT)
# A test's stand-in for every catalog (`substitute`): (translations, list formatter), or None; for a whole test
# server, every thread's (`substitute_everywhere`).
_substitute: ContextVar[tuple | None] = ContextVar("substitute", default=None)
_everywhere: tuple | None = None


def _stand_in() -> tuple | None:
    return _substitute.get() or _everywhere


def language() -> str:
    """The language of the running request."""
    return _language.get()


@contextlib.contextmanager
def use(lang: str):
    """Run a block in `lang` (one of LANGUAGES)."""
    token = _language.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _language.reset(token)


@functools.cache
def catalog(lang: str) -> NullTranslations:
    if lang == DEFAULT:
        return NullTranslations()  # the messages are English
    return Translations.load(LOCALE_DIR, [LOCALES[lang]], domain="messages")


def current() -> NullTranslations:
    """The messages of the running request: its language's catalog, or a test's stand-in (`substitute`)."""
    stand_in = _stand_in()
    return stand_in[0] if stand_in else catalog(language())


@contextlib.contextmanager
def substitute(translations, list_format=None):
    """Tests only: run a block with `translations` (any gettext.NullTranslations) in place of every language's
    catalog, and `list_format(items, style)` in place of Babel's lists; caches (`lru_cache`) are bypassed, so
    nothing the block computes is kept for a real language. tests/test_pseudo_locale.py serves a pseudo-locale so."""
    token = _substitute.set((translations, list_format))
    try:
        yield
    finally:
        _substitute.reset(token)


def substitute_everywhere(translations, list_format=None) -> None:
    """Tests only: `substitute` for every request of this process, before the app is built (the pseudo-locale
    server of tests/test_pseudo_locale.py). Never called by the app."""
    global _everywhere
    _everywhere = (translations, list_format)


def _(message: str) -> str:
    return current().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return current().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` in the sense `context` names (msgctxt), where one English word means two things: "value" a value
    vector v, or "value" a number."""
    return current().pgettext(context, message)


LIST_STYLES = ("standard", "or")  # "a, b, and c" / "a, b, or c", in every language's own words and punctuation


def format_list(items, style: str = "standard") -> str:
    """Items (shown with str) joined as the request's language joins a list (Babel's CLDR patterns): "1, 2, and 4",
    "1、2和4", "1, 2 y 4"; style "or" for alternatives. The only way a list is joined for the page."""
    if style not in LIST_STYLES:
        raise ValueError(f"a list style is one of {LIST_STYLES}, got {style!r}")
    items = [str(item) for item in items]
    stand_in = _stand_in()
    if stand_in and stand_in[1]:
        return stand_in[1](items, style)
    return babel_format_list(items, style=style, locale=LOCALES.get(language(), DEFAULT))


def clauses(parts) -> str:
    """Clauses of one sentence, each whole, one after another: "a; b; c" (in Chinese with its own "；"). The
    separator is the catalog's, one message, so no language gets another's punctuation."""
    parts = [part for part in parts if part]
    # Translators: two clauses of one sentence, the second after the first ("a; b"); Chinese: "{first}；{second}"
    return functools.reduce(lambda first, second: _("{first}; {second}").format(first=first, second=second), parts)


def vector(values, spec: str = "+.3f") -> str:
    """A vector of numbers in math notation, "(+0.120, -0.340)": the same in every language, like the formulas
    (never a list in words: that is format_list)."""
    return "(" + ", ".join(format(float(x), spec) for x in values) + ")"


def translated(table: dict) -> dict:
    """A table's labels (marked N_) in the request's language, by the same keys."""
    return {key: _(label) for key, label in table.items()}


def sentences(*parts: str) -> str:
    """Whole sentences, one after another: a space between them, but none in Chinese, whose full stop (。) is
    the gap."""
    return ("" if language() == "zh-CN" else " ").join(part for part in parts if part)


def N_(message: str) -> str:
    """Marks `message` for the catalog where it is defined, for `_` to translate where it is shown."""
    return message


def parse(value) -> str | None:
    """The language a ?lang= or a cookie names, or None: exactly one of LANGUAGES, in any case."""
    if not isinstance(value, str) or len(value) > 16:
        return None
    return next((lang for lang in LANGUAGES if lang.lower() == value.lower()), None)


def negotiate(accept_languages) -> str:
    """The browser's first choice we have (werkzeug's parsed Accept-Language, best first): any zh to zh-CN,
    any es to es, otherwise English."""
    for tag, _quality in accept_languages:
        primary = tag.replace("_", "-").split("-")[0].lower()
        for lang in LANGUAGES:
            if lang.split("-")[0].lower() == primary:
                return lang
    return DEFAULT


def lru_cache(maxsize: int):
    """functools.lru_cache for a function whose result holds words: a cache of `maxsize` per language, so a page
    in Spanish never gets a figure cached for a page in Chinese, and a class in two languages keeps each one's
    (a cache sized to hold every case still does). cache_info is the request's language's."""
    def decorate(function):
        caches = {lang: functools.lru_cache(maxsize=maxsize)(function) for lang in LANGUAGES}

        @functools.wraps(function)
        def cached(*args, **kwargs):
            if _stand_in():  # a test's stand-in catalog: never cached for a real language
                return function(*args, **kwargs)
            return caches[language()](*args, **kwargs)

        def cache_clear() -> None:
            for each in caches.values():
                each.cache_clear()

        cached.cache_clear = cache_clear
        cached.cache_info = lambda: caches[language()].cache_info()
        return cached
    return decorate
