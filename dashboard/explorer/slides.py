"""A figure as a slide: each figure frame's PNG and SVG buttons save its figure 1920 px wide, in the page's theme
(light or dark: figures/slide.py gives the colours dark mode's filters draw), its fonts and its language.

The browser draws the image (Plotly.downloadImage in assets/explorer.js, `slide`), from a copy of the figure it
shows with the theme's colours put in (rules.js, slideFigure), so the slide is what the student sees, with no
round trip and no image made on the server. Plotly's own camera button, which saved the light colours only, is
left out of the toolbar (figures.GRAPH_CONFIG).
"""

from __future__ import annotations

from dash import ALL, Input, State, html

from ..i18n import N_, _
from .ids import CONFIG
from .presenter import present_button
from .wiring import clientside_callback

SLIDE = "slide"  # a frame's save button: {"type": SLIDE, "graph": its graph's id, "format": "png" or "svg"}
# Translators: a button's label: the figure saved as a PNG image or an SVG drawing (the formats' names)
FORMATS = {"png": N_("PNG"), "svg": N_("SVG")}


def frame_buttons(graph_id: str) -> html.Div:
    """A figure frame's buttons, top left: present it (presenter.py), and save it as a slide, PNG or SVG."""
    # Translators: a button's name and description, beginning with its label (PNG or SVG, as FORMATS below)
    titles = {"png": _("PNG: save this figure as a slide, an image 1920 px wide, as the page shows it"),
              "svg": _("SVG: save this figure as a slide, a drawing 1920 px wide, as the page shows it")}
    return html.Div([present_button(graph_id),
                     *[html.Button(_(label), id={"type": SLIDE, "graph": graph_id, "format": fmt},
                                   className="btn btn-sm btn-outline-secondary slide-button", title=titles[fmt],
                                   **{"aria-label": titles[fmt]}) for fmt, label in FORMATS.items()]],
                    className="frame-buttons")


clientside_callback("slide", Input({"type": SLIDE, "graph": ALL, "format": ALL}, "n_clicks"), State(CONFIG, "data"),
                    prevent_initial_call=True)
