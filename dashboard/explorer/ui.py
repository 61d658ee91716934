"""Pieces every view uses: the seed's text, graphs, and head buttons."""

from __future__ import annotations

import base64
import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import dash_bootstrap_components as dbc
from dash import dcc, html

from .. import figures, limits
from .presenter import present_button
from ..attention import HEAD_CHOICES

CONTENT = Path(__file__).resolve().parent.parent / "content"
# The same text as HTML, its LaTeX typeset to SVG by tools/build_assets.sh, so the page loads no MathJax.
RENDERED = CONTENT / "rendered"


SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
SVG_ATTR = re.compile(r'\b(width|height|style|aria-label)="([^"]*)"')


@cache
def markdown(name: str) -> html.Div:
    """A section of the seed's text, as Dash components built once from our own build output (never user
    input), so the browser needs no Markdown parser. Each formula is its typeset SVG as an image, its TeX
    the alt text. The page's one h1 is the header's: a section's h1 becomes an h2."""
    text = (RENDERED / f"{name}.html").read_text(encoding="utf-8")
    formulas = SVG.findall(text)
    builder = _Builder([formula(svg) for svg in formulas])
    builder.feed(SVG.sub(lambda m: f'<img data-formula="{formulas.index(m.group(0))}">', text))
    return html.Div(builder.root, className="prose")


def formula(svg: str) -> html.Img:
    attrs = dict(SVG_ATTR.findall(svg[:svg.index(">")]))
    lift = attrs.get("style", "").removeprefix("vertical-align:").strip(" ;") or "0"
    # the TeX moves to the alt text; left in the SVG, its raw "&" would make the image invalid XML
    svg = svg.replace(f' aria-label="{attrs["aria-label"]}"', "", 1)
    return html.Img(src="data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii"),
                    alt=attrs["aria-label"].strip(), className="formula",
                    style={"height": attrs["height"], "verticalAlign": lift})


class _Builder(HTMLParser):
    """HTML -> nested Dash html components: the tags marked writes (p, h1-h3, em, strong, ul, ...)."""

    VOID = frozenset({"img", "br", "hr"})

    def __init__(self, formulas: list):
        super().__init__(convert_charrefs=True)
        self.formulas, self.root, self.stack = formulas, [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self._add(self.formulas[int(attrs["data-formula"])])
            return
        tag = "h2" if tag == "h1" else tag
        props = {"className": attrs["class"]} if "class" in attrs else {}
        if "href" in attrs:
            props["href"] = attrs["href"]
        node = getattr(html, tag.capitalize())(children=[], **props)
        self._add(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        if tag not in self.VOID:
            self.stack.pop()

    def handle_data(self, data):
        if data.strip() or (self.stack and data):
            self._add(data)

    def _add(self, node):
        (self.stack[-1].children if self.stack else self.root).append(node)


def graph(graph_id: str, figure: dict | None = None, **kwargs) -> html.Div:
    """A figure in its frame, with the button that presents it alone, full screen (presenter.py)."""
    return html.Div([present_button(graph_id),
                     dcc.Graph(id=graph_id, figure=figure or {"data": [], "layout": figures.base_layout()},
                               config=figures.GRAPH_CONFIG, **kwargs)], className="figure-frame")


def text_beside_view(texts: list[str], view) -> dbc.Row:
    """The seed's explanation on the left, the view it describes on the right (stacked on a phone)."""
    return dbc.Row(
        [dbc.Col([markdown(t) for t in texts], lg=5, className="explain"), dbc.Col(view, lg=7, className="view")],
        className="g-4 mb-4 align-items-start",
    )


def head_options(h: int, include_all: bool) -> list[dict]:
    """The head buttons' options for h heads: the one source, also of the browser's (config "headOptions")."""
    heads = [{"label": f"head {k}", "value": k} for k in range(1, h + 1)]
    return [{"label": "all", "value": limits.ALL_HEADS}] + heads if include_all else heads


def head_options_config() -> dict:
    """Every h's head options, with and without "all", for explorer.headOptions."""
    return {kind: {h: head_options(h, kind == "withAll") for h in HEAD_CHOICES} for kind in ("withAll", "heads")}


def head_buttons(button_id: str, label: str, include_all: bool) -> html.Div:
    """A radio group of buttons ['all',] 'head 1' … 'head h'; the browser sets the options to match h."""
    options = head_options(limits.DEFAULT_HEADS, include_all)
    return html.Div(
        [html.Span(label, className="me-2 small text-body-secondary"),
         dbc.RadioItems(id=button_id, options=options, value=options[0]["value"], inline=True,
                        className="btn-group flex-wrap", inputClassName="btn-check",
                        labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active")],
        className="d-flex align-items-center flex-wrap gap-1 mb-2",
    )
