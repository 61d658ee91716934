"""What the explorer's header and class mode's share: the light, dark or auto switch, and the phone's menu button
that opens the rest of a header.

The theme is kept in the browser's localStorage, not in the URL: it belongs to a device (the projector in a dark
room, a student's phone set to dark), and a link that one device shares should not change another's. Both apps
run on one origin, so class mode's pages find the explorer's choice there. assets/theme.js applies it before the
page is drawn; the callbacks are in window.dash_clientside.header (assets/header.js).
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, html

from . import limits
from .i18n import _
from .wiring import Callbacks

THEME = "theme"  # the switch; theme.js sets it again when another tab of the browser chooses
THEME_LABEL = "theme-label"
MENU = "header-menu"  # the part of a header a phone shows behind the menu button
MENU_BUTTON = "header-menu-button"
RUNNING_SESSION = "class-running"  # localStorage: {code, token} of the class session this browser runs


# Each theme's button shows a symbol (U+FE0E asks for the text glyph, not an emoji); its name is the label.
SYMBOLS = {"auto": "\u25d0", "light": "\u2600\ufe0e", "dark": "\u263e"}


def theme_option(value: str, name: str) -> dict:
    """A theme's button: its symbol, and its `name` (translated) for the tooltip and screen readers."""
    return {"label": [html.Span(SYMBOLS[value], className="theme-symbol", title=name, **{"aria-hidden": "true"}),
                      html.Span(name, className="visually-hidden")], "value": value}


def theme_switch() -> html.Div:
    """Three buttons, one radio group: auto (the system's setting), light, dark."""
    return html.Div(
        [
            # Translators: the colour theme (light or dark)
            html.Span(_("theme"), id=THEME_LABEL, className="small"),
            html.Div(dbc.RadioItems(
                id=THEME, options=[theme_option(value, _(name)) for value, name in limits.THEMES.items()],
                value=limits.DEFAULT_THEME, inline=True, className="btn-group", inputClassName="btn-check",
                labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active",
            ), role="radiogroup", **{"aria-labelledby": THEME_LABEL}),
        ],
        className="d-flex align-items-center gap-2 header-theme",
    )


def menu(children, label: str) -> list:
    """The menu button and what it opens: on a phone-width page, `children` wait behind the button; on a wider
    one (Bootstrap's navbar-expand-sm) the button is hidden and they are shown in the header's row."""
    button = html.Button(
        html.Span(className="navbar-toggler-icon"), id=MENU_BUTTON, type="button", className="navbar-toggler",
        title=label, **{"aria-controls": MENU, "aria-expanded": "false", "aria-label": label},
    )
    return [button, dbc.Collapse(children, id=MENU, is_open=False, navbar=True, className="header-menu")]


def wire_menu(callbacks: Callbacks) -> None:
    """The menu button opens and closes the menu, and says which it is (aria-expanded)."""
    callbacks.clientside_callback("toggle", Output(MENU, "is_open"), Output(MENU_BUTTON, "aria-expanded"),
                                  Input(MENU_BUTTON, "n_clicks"), State(MENU, "is_open"), prevent_initial_call=True)
