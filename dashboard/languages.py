"""What both apps' pages carry for their language (dashboard/i18n.py): the switch in the header, the store the
server callbacks read the page's language from, and the words the browser's own scripts show.

Choosing a language keeps it in this browser (a cookie) and reloads the page with ?lang= (the rest of its URL
kept), so the whole page, its layout and every later answer are in that language (assets/header.js,
chooseLanguage).
"""

from __future__ import annotations

import functools
import json

import dash_bootstrap_components as dbc
from dash import Input, State, html

from . import i18n
from .i18n import N_, _
from .server import layout_language
from .wiring import LANGUAGE, Callbacks, language_store

LANGUAGE_CHOICE = "language-choice"
BROWSER_MESSAGES = "browser-messages"
# What assets/*.js write on the page, {name} filled in there (window.pageMessage, assets/shared.js).
MESSAGES = {
    "copied": N_("link copied"),
    "pressCopy": N_("press Ctrl+C to copy"),
    "selectedCopy": N_("selected: press Ctrl+C to copy"),
    "seedRange": N_("Seeds run {min} to {max}."),
    "seedRangeStill": N_("Seeds run {min} to {max}: the page still shows seed {seed}."),
    # Translators: a figure's button that shows it alone, full screen, and then leaves that view.
    "present": N_("present"),
    "leave": N_("leave (Esc)"),
    # Translators: a figure's text alternative for screen readers, e.g. "head 2: 12 × 12, values 0.01 to 0.40,
    # largest at query r 3, key j 5"
    "figureReading": N_("{name}: {rows} × {cols}, values {min} to {max}, largest at {rowName} {row}, {colName} {col}"),
    "figureEnd": N_("{readings}."),
    # the readings of a figure's panels, one after another (i18n.clauses): the catalog's own message
    "clauses": N_("{first}; {second}"),
    "panel": N_("panel {k}"),
    "row": N_("row"),
    "column": N_("column"),
    "queryR": N_("query r"),
    "keyJ": N_("key j"),
    "classMode": N_("class mode"),
    "classSession": N_("class session {code}"),
    "badCode": N_("A join code is 6 letters and digits, such as ABC234."),
    "timeUp": N_("Time is up: this vote is closed."),
    "timeLeft": N_("{time} left to vote"),
}


def switch() -> html.Div:
    """The languages, each named in itself, so a student finds their own on a page they cannot read; the label
    is for screen readers (the choice shown names a language already), which keeps the header one row wide."""
    return html.Div([
        dbc.Label(_("Language"), html_for=LANGUAGE_CHOICE, className="visually-hidden"),
        dbc.Select(id=LANGUAGE_CHOICE,
                   options=[{"label": name, "value": lang} for lang, name in i18n.LANGUAGE_NAMES.items()],
                   value=i18n.language(), size="sm", className="language-choice"),
    ], className="d-flex align-items-center")


def page_parts() -> list:
    """The page's language for its callbacks, and the browser's messages in it."""
    messages = {key: _(message) for key, message in MESSAGES.items()}
    return [language_store(i18n.language()),
            html.Div(id=BROWSER_MESSAGES, hidden=True, **{"data-messages": json.dumps(messages, ensure_ascii=False),
                                                          "data-choice-cookie": i18n.CHOICE_COOKIE})]


def in_each_language(layout):
    """`layout` as a function of the language, each built once (in i18n.use)."""
    @functools.cache
    def layout_in(lang: str):
        with i18n.use(lang):
            return layout()
    return layout_in


def serve(app, layout_in) -> None:
    """Each page gets the layout in its language (server.layout_language); all are built now: under gunicorn
    --preload, once, before the workers fork."""
    app.layout = lambda: layout_in(layout_language())
    for lang in i18n.LANGUAGES:
        layout_in(lang)


def wire(callbacks: Callbacks) -> None:
    """A new choice is kept in this browser and reloads the page in that language; <html lang> is the language of
    the layout the page got (as its URL asked, unless the browser kept no cookie)."""
    callbacks.clientside_callback("chooseLanguage", Input(LANGUAGE_CHOICE, "value"), State(LANGUAGE, "data"))
    callbacks.clientside_callback("pageLanguage", Input(LANGUAGE, "data"))
