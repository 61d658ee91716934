"""What both apps' pages carry for their language (dashboard/i18n.py): the switch in the header, the store the
server callbacks read the page's language from, and the words the browser's own scripts show.

Choosing a language reloads the page with ?lang= (the rest of its URL kept), so the whole page, its layout and
every later answer are in that language (assets/header.js, chooseLanguage).
"""

from __future__ import annotations

import json

import dash_bootstrap_components as dbc
from dash import Input, State, html

from . import i18n
from .i18n import N_, _
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
    # Translators: the learning lab's button that plays or pauses the training steps.
    "play": N_("play"),
    "pause": N_("pause"),
    "classMode": N_("class mode"),
    "classSession": N_("class session {code}"),
    "badCode": N_("A join code is 6 letters and digits, such as ABC234."),
    "timeUp": N_("Time is up: this vote is closed."),
    "timeLeft": N_("{time} left to vote"),
}


def switch() -> html.Div:
    """The languages, each named in itself, so a student finds their own on a page they cannot read."""
    return html.Div([
        dbc.Label(_("Language"), html_for=LANGUAGE_CHOICE, className="small mb-0"),
        dbc.Select(id=LANGUAGE_CHOICE, options=[{"label": name, "value": lang} for lang, name in i18n.NAMES.items()],
                   value=i18n.language(), size="sm", className="language-choice"),
    ], className="d-flex align-items-center gap-2")


def page_parts() -> list:
    """The page's language for its callbacks, and the browser's messages in it."""
    messages = {key: _(message) for key, message in MESSAGES.items()}
    return [language_store(i18n.language()),
            html.Div(id=BROWSER_MESSAGES, hidden=True, **{"data-messages": json.dumps(messages, ensure_ascii=False)})]


def wire(callbacks: Callbacks) -> None:
    """A new choice reloads the page in that language."""
    callbacks.clientside_callback("chooseLanguage", Input(LANGUAGE_CHOICE, "value"), State(LANGUAGE, "data"))
