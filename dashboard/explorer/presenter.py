"""The presenter view: any figure alone, filling the screen, in lecture mode, and the keys that drive a lecture.

Each figure's frame has a "present" button; P presents the figure nearest the middle of the screen, and P or
Esc leaves. 1, 2, 4 and 8 choose h; ← and → step through the heads (the selected head, which the drill-down
and the outlines follow), or through the training steps on the learning tab. assets/explorer.js registers one
key handler (explorer.init); this module lists the keys on the page and gives the browser the ids they drive.
"""

from __future__ import annotations

from dash import html

from ..i18n import N_, _
from .ids import HEADS, LECTURE, SEL_HEAD, TAB

PRESENT_CLASS = "present-button"  # a figure frame's button; explorer.js finds them by class
SHORTCUTS = [  # (keys, what they do): the page lists them, explorer.js implements them
    ("1 2 4 8", N_("choose h, the number of heads")),
    ("← →", N_("the previous or next head (the learning tab: the previous or next training step)")),
    ("P", N_("show the figure in the middle of the screen alone, full screen; P again to leave")),
    ("Esc", N_("leave the full-screen figure")),
]


def present_button(graph_id: str) -> html.Button:
    # Translators: a button that shows one figure alone, full screen, for a lecture
    return html.Button(_("present"), className=f"btn btn-sm btn-outline-secondary {PRESENT_CLASS}",
                       title=_("show this figure alone, full screen (P)"), **{"data-graph": graph_id,
                                                                             "aria-pressed": "false"})


def shortcuts() -> html.Details:
    """The keyboard shortcuts, listed where a lecturer finds them."""
    return html.Details(
        [html.Summary(_("keyboard shortcuts")),
         html.Dl([item for keys, what in SHORTCUTS for item in (html.Dt(html.Kbd(keys)), html.Dd(_(what)))],
                 className="shortcut-list mb-0")],
        className="shortcuts small", id="shortcuts")


def client_config() -> dict:
    """The ids the keys drive, for explorer.init."""
    return {"heads": HEADS, "head": SEL_HEAD, "lecture": LECTURE, "tab": TAB, "present": PRESENT_CLASS}
