"""The header: h and the seed drive every view, the tab picks the view; the theme, lecture mode and class mode;
and the page's URL and width.

On a phone-width page the header keeps one row of h and the seed, and one of the tabs (at most 12% of a
390 x 844 screen); the theme, lecture mode and the link to class mode wait behind the menu button.
"""

from __future__ import annotations

import dash_bootstrap_components as dbc
from dash import Input, Output, State, html

from .. import languages, limits, prefs
from ..attention import HEAD_CHOICES
from ..i18n import N_, _
from ..wiring import Callbacks
from .ids import CONFIG, DISPLAY, HEADS, LECTURE, SEED, TAB, WIDTH_CHANGED
from .wiring import clientside_callback

SEED_MESSAGE = "seed-message"  # why a typed seed was refused
SEED_DEBOUNCE_MS = 500  # a typed seed applies this long after the last key (dbc.Input's debounce), Enter included
# Shorter labels, so that the header is one row on a 390 px phone and on a laptop or projector up to 2200 px wide,
# in every language and with a classic scrollbar (assets/site/header.css, "compact"); screen readers keep the whole
# label. Wider, the whole labels show.
SHORT_TAB_LABELS = {"example": N_("Example"), "mixing": N_("Mixing"), "clinic": N_("Bugs")}

# The header's own clientside callbacks: window.dash_clientside.header (assets/header.js).
CALLBACKS = Callbacks("header")
CLASS_LINK = "class-link"


def tab_label(tab: str, label: str):
    if tab not in SHORT_TAB_LABELS:
        return _(label)
    return [html.Span(_(label), className="compact-hidden"),
            html.Span(_(SHORT_TAB_LABELS[tab]), className="compact-only", **{"aria-hidden": "true"})]


def layout() -> dbc.Navbar:
    """Always in view, at the top of the page."""
    return dbc.Navbar(
        dbc.Container(
            [
                html.H1(_("Multi-head attention"), className="navbar-brand me-2 mb-0 header-brand"),
                html.Div(
                    [
                        # Native controls: a button group and a number box, both reached and set from the keyboard.
                        # Translators: the number h of attention heads, chosen by the buttons beside it.
                        html.Span([html.Span([_("heads"), " h"], className="compact-hidden"),
                                   html.Span("h", className="compact-only", **{"aria-hidden": "true"})],
                                  id="heads-label", className="small"),
                        html.Div(dbc.RadioItems(
                            id=HEADS, options=[{"label": str(h), "value": h} for h in HEAD_CHOICES],
                            value=limits.DEFAULT_HEADS, inline=True, className="btn-group", inputClassName="btn-check",
                            labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active",
                        ), role="radiogroup", **{"aria-labelledby": "heads-label"}),
                        # Translators: the random seed of the worked example's tokens and weights.
                        html.Label([html.Span(_("example seed"), className="compact-hidden"),
                                    html.Span(_("seed"), className="compact-only", **{"aria-hidden": "true"})],
                                   htmlFor=SEED,
                                   className="small mb-0 ms-1"),
                        dbc.Input(id=SEED, type="number", min=limits.SEEDS[0], max=limits.SEEDS[-1], step=1,
                                  value=limits.DEFAULT_SEED, debounce=SEED_DEBOUNCE_MS, size="sm",
                                  className="seed-box"),
                        html.Div(id=SEED_MESSAGE, className="seed-message small", role="status"),
                    ],
                    className="header-model d-flex align-items-center gap-2", role="group",
                    **{"aria-label": _("example")},
                ),
                *prefs.menu(
                    [
                        prefs.theme_switch(),
                        dbc.Switch(id=LECTURE, label=_("lecture mode"), value=False, className="mb-0 small"),
                        html.A(_("class mode"), id=CLASS_LINK, href="/class", className="small",
                               title=_("ask the room a question"), **{"data-session-key": prefs.RUNNING_SESSION,
                                  "data-code-pattern": "^" + limits.CODE.pattern + "$"}),
                        languages.switch(),
                    ],
                    label=_("theme, lecture mode, class mode, language"),
                ),
                dbc.RadioItems(
                    id=TAB, options=[{"label": tab_label(k, v), "value": k} for k, v in limits.TABS.items()],
                    value=limits.DEFAULT_TAB, className="btn-group tabbar", inputClassName="btn-check",
                    labelClassName="btn btn-outline-primary", labelCheckedClassName="active",
                ),
            ],
            fluid=True,
            className="gap-2 flex-wrap",
        ),
        expand="sm",  # below Bootstrap's sm breakpoint (limits.NARROW_WIDTH), the menu button shows
        sticky="top",
        color="body",  # follows the light or dark theme, as the text colours do
        dark=False,
        className="controls border-bottom",
    )


# How figures are drawn: fewer panels a row on a phone-width page, larger in lecture mode.
clientside_callback("display", Output(DISPLAY, "data"), Input(LECTURE, "value"), Input(WIDTH_CHANGED, "n_clicks"),
                    State(CONFIG, "data"))

prefs.wire_menu(CALLBACKS)
languages.wire(CALLBACKS)
# The theme switch starts at the browser's stored choice and stores a new one; lecture mode is copied to the
# browser for class mode's pages (the explorer's own is in its URL).
CALLBACKS.clientside_callback("explorerPrefs", Output(prefs.THEME, "value"), Input(prefs.THEME, "value"),
                              Input(LECTURE, "value"), State(prefs.THEME, "id"))
# The link to class mode names a session this browser runs, so the lecturer returns to it, not to a new one.
CALLBACKS.clientside_callback("classLink", Output(CLASS_LINK, "children"), Input(CLASS_LINK, "id"))
# A seed outside limits.SEEDS is refused by every view (limits.Invalid): the box says so.
CALLBACKS.clientside_callback("seedCheck", Output(SEED, "invalid"), Output(SEED_MESSAGE, "children"),
                              Input(SEED, "value"), State(SEED, "min"), State(SEED, "max"), State(SEED, "id"),
                              State(SEED_MESSAGE, "id"))
