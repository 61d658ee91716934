"""Pieces every view uses: the seed's text, graphs, and head buttons."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from html import escape, unescape
from html.parser import HTMLParser
from pathlib import Path

import dash_bootstrap_components as dbc
from dash import Output, ctx, dcc, html, no_update

from .. import figures, i18n, limits
from ..i18n import _
from .slides import frame_buttons
from ..attention import HEAD_CHOICES

CONTENT = Path(__file__).resolve().parent.parent / "content"  # English here, each translation in CONTENT/<lang>
# The same text as HTML, its LaTeX typeset to SVG by tools/build_assets.sh, so the page loads no MathJax:
# RENDERED/<lang>/<name>.html.
RENDERED = CONTENT / "rendered"


SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
# An inline formula and the punctuation after it, kept on one line (.formula-run, app.css): no line starts with ",".
# One formula: its SVG never runs past its own </svg> (a lazy .*? would, to the next formula followed by punctuation,
# and keep a whole sentence on one line, over the column beside it).
TRAILING = re.compile(r'(<span class="math-inline"><svg\b(?:(?!</svg>).)*</svg></span>)([,.;:!?)，。；：！？）、]+)',
                      re.DOTALL)
EM_PER_EX = 0.5  # MathJax typesets with 1 ex = 0.5 em (tools/assets/render-math.js); browsers' own ex differ
SVG_ATTR = re.compile(r'\b(width|height|style|aria-label)="([^"]*)"')


@i18n.lru_cache(maxsize=16)
def markdown(name: str) -> html.Div:
    """A section of the seed's text, typeset at build time (no MathJax in the browser), as Dash's html components.
    The page's one h1 is the header's: a section's h1 becomes an h2. (Not dcc.Markdown with its HTML: its JSX
    parser drew nothing at all of a section with a display formula, in every language.)"""
    text = rendered(name).replace("<h1>", "<h2>").replace("</h1>", "</h2>")
    text = TRAILING.sub(r'<span class="formula-run">\1\2</span>', text)
    return html.Div(components(SVG.sub(lambda m: formula(m.group(0)), text)), className="prose")


class _Components(HTMLParser):
    """The app's own HTML (the seed's typeset text) as html.* components."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = [[]]  # the children being gathered, one list per open element

    def handle_starttag(self, tag, attrs):
        kind = getattr(html, tag.capitalize())
        props = {HTML_PROPS.get(k, k): (style(v) if k == "style" else v) for k, v in attrs}
        props = {k: v for k, v in props.items() if k in kind().available_properties}
        if tag in VOID:
            self.stack[-1].append(kind(**props))
        else:
            self.stack.append([])
            self.stack[-2].append((kind, props))

    def handle_startendtag(self, tag, attrs):  # <img … />: no end tag to wait for
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        children = self.stack.pop()
        kind, props = self.stack[-1].pop()
        self.stack[-1].append(kind(children, **props))

    def handle_data(self, data):
        self.stack[-1].append(data)


HTML_PROPS = {"class": "className", "for": "htmlFor", "colspan": "colSpan", "rowspan": "rowSpan"}
VOID = {"img", "br", "hr", "wbr"}


def components(text: str) -> list:
    parser = _Components()
    parser.feed(text)
    parser.close()
    return parser.stack[0]


def style(text: str) -> dict:
    """A style attribute as React's object: "vertical-align: -1em" -> {"verticalAlign": "-1em"}."""
    pairs = [part.split(":", 1) for part in text.split(";") if ":" in part]
    return {re.sub(r"-(\w)", lambda m: m.group(1).upper(), k.strip()): v.strip() for k, v in pairs}


def rendered(name: str, lang: str | None = None) -> str:
    """A section in `lang` (by default the request's language), below the build's note."""
    path = RENDERED / (lang or i18n.language()) / f"{name}.html"
    return path.read_text(encoding="utf-8").split("\n", 1)[1]


def formula(svg: str) -> str:
    """A typeset formula as an <img> of its own file (FORMULA_PATH), its TeX the alt text. A file rather than a
    data: URI: the page's layout was 620 KB of base64 the browser parsed on every load, and a file is cached,
    fetched only when its tab is shown (loading="lazy"), and sized before it arrives (no layout shift)."""
    attrs, image = svg_file(svg)
    lift = attrs.get("style", "").removeprefix("vertical-align:").strip(" ;") or "0ex"
    # sized in em, which Chromium and Firefox draw alike (Firefox's ex is 13 % smaller); closed (<img … />), as
    # dcc.Markdown's parser (JSX) needs
    return (f'<img class="formula" src="{FORMULA_PATH}{formula_key(image)}.svg" '
            f'alt="{escape(unescape(attrs["aria-label"].strip()))}" loading="lazy" decoding="async" '
            f'style="width: {em(attrs["width"])}; height: {em(attrs["height"])}; vertical-align: {em(lift)}" />')


def em(length: str) -> str:
    """A MathJax length in ex as em."""
    return f"{float(length.removesuffix('ex')) * EM_PER_EX:.3f}em"


FORMULA_PATH = "/formulas/"  # + a key of the SVG's content, so a file never changes (served as immutable)


def svg_file(svg: str) -> tuple[dict, bytes]:
    """A typeset SVG's attributes, and the SVG as its own file: the TeX moves to the alt text, since left in
    the file its raw "&" would make the image invalid XML."""
    attrs = dict(SVG_ATTR.findall(svg[:svg.index(">")]))
    return attrs, svg.replace(f' aria-label="{attrs["aria-label"]}"', "", 1).encode()


def formula_key(image: bytes) -> str:
    return hashlib.sha256(image).hexdigest()[:20]


@cache
def formula_files() -> dict[str, bytes]:
    """{key: SVG} for every formula of the seed's text: what FORMULA_PATH serves, the same in every worker."""
    files = {}
    for path in sorted(RENDERED.glob("*/*.html")):
        for svg in SVG.findall(rendered(path.stem, path.parent.name)):
            image = svg_file(svg)[1]
            files[formula_key(image)] = image
    return files


def alert(message: str) -> html.P:
    """What is wrong with a choice the student made (a cell, the heads to cut), where its answer would be."""
    return html.P(message, className="text-danger small", role="alert")


def live_html(panel_id: str, className: str = "") -> html.Div:
    """A panel a callback fills (its `children`), read out by screen readers when it changes."""
    return html.Div(id=panel_id, className=className, **{"aria-live": "polite"})


def graph(graph_id: str, figure: dict | None = None, waits: bool = False, **kwargs) -> html.Div:
    """A figure in its frame, with the buttons that present it alone, full screen, and save it as a slide
    (slides.py). A graph that `waits` draws only near the screen: its frame holds its near button (near_button)."""
    return html.Div([*([near_button(graph_id)] if waits else []), frame_buttons(graph_id),
                     dcc.Graph(id=graph_id, figure=figure or {"data": [], "layout": figures.base_layout()},
                               config=figures.graph_config(), **kwargs)], className="figure-frame")


def cell_inputs(ids: tuple[str, str, str], cell: tuple[int, int, int]) -> html.Div:
    """Three number boxes for a cell A^(i)_rj: head i from 1, query r and key j from 0 (ids and values in that
    order); the server checks the cell against the setting (limits.cell)."""
    # Translators: a cell A^(i)_rj of the attention weights: attention head i, query r, key j.
    labels, lows = (_("head i"), _("query r"), _("key j")), (1, 0, 0)
    highs = (max(HEAD_CHOICES),) + (limits.MAX_TOKENS - 1,) * 2
    return html.Div([html.Div([dbc.Label(label, html_for=i, className="small mb-0"),
                               dbc.Input(id=i, type="number", min=low, max=high, step=1, value=value, size="sm",
                                         className="cell-input")])
                     for i, label, low, high, value in zip(ids, labels, lows, highs, cell)],
                    className="d-flex gap-2 mb-2")


NEAR = "near"  # a graph's hidden button: {"type": NEAR, "graph": the graph's id}


def near_button(graph_id: str) -> html.Button:
    """A button assets/explorer.js presses while it is enabled and its graph is within a screen of the view.
    Enabled means the graph waits for a figure: the graph's callback answers a change of the model with no figure
    and enables the button (waiting), and draws when the button is pressed (drawn), so a figure far from the
    screen costs nothing until the student scrolls to it. Hidden from the eye (assets/site/presenter.css), the Tab
    key and screen readers."""
    return html.Button(id=near_id(graph_id), className="near", tabIndex="-1",
                       **{"aria-hidden": "true"})


def near_id(graph_id: str) -> dict:
    return {"type": NEAR, "graph": graph_id}


def near_outputs(graph_id: str) -> dict[str, Output]:
    """The near button's props a waiting graph's callback sets: `drawn` (disabled: the graph shows the current
    setting) and `waits_for` (the setting it waits for: a new one re-arms the button even if it was enabled)."""
    return dict(drawn=Output(near_id(graph_id), "disabled"), waits_for=Output(near_id(graph_id), "value"))


def came_near(graph_id: str) -> bool:
    """Whether the running callback fired because the graph's near button was pressed."""
    return near_id(graph_id) in ctx.triggered_prop_ids.values()


def waiting(shared: dict) -> dict:
    """near_outputs while the graph waits to come near with the setting `shared` (its tab's store)."""
    return dict(drawn=False, waits_for=json.dumps(shared, sort_keys=True, separators=(",", ":")))


DRAWN = dict(drawn=True, waits_for=no_update)  # near_outputs once the graph has drawn the current setting
NEAR_KEPT = dict(drawn=no_update, waits_for=no_update)  # near_outputs of an answer that leaves the near button as it is


def text_beside_view(texts: list[str], view) -> dbc.Row:
    """The seed's explanation on the left, the view it describes on the right (stacked on a phone)."""
    return dbc.Row(
        [dbc.Col([markdown(t) for t in texts], lg=5, className="explain"), dbc.Col(view, lg=7, className="view")],
        className="g-4 mb-4 align-items-start",
    )


def head_options(h: int, include_all: bool) -> list[dict]:
    """The head buttons' options for h heads."""
    # Translators: a button that picks one attention head.
    heads = [{"label": _("head {k}").format(k=k), "value": k} for k in range(1, h + 1)]
    # Translators: a button that picks every attention head at once.
    return [{"label": _("all"), "value": limits.ALL_HEADS}] + heads if include_all else heads


def follow_h(h: int, chosen, include_all: bool) -> tuple[list[dict], object]:
    """A head chooser's options for h heads, and its value: the chosen head, or the first button if h has none."""
    options = head_options(h, include_all)
    return options, (no_update if any(o["value"] == chosen for o in options) else options[0]["value"])


def head_buttons(button_id: str, label: str, include_all: bool, focuses: str | None = None) -> html.Div:
    """A radio group of buttons ['all',] 'head 1' … 'head h'; the browser sets the options to match h. With
    `focuses`, a graph's id, a button brings that graph's plane of its head forward (explorer.js focusPlanes)."""
    options = head_options(limits.DEFAULT_HEADS, include_all)
    return html.Div(
        [html.Span(label, className="me-2 small text-body-secondary"),
         dbc.RadioItems(id=button_id, options=options, value=options[0]["value"], inline=True,
                        className="btn-group flex-wrap", inputClassName="btn-check",
                        labelClassName="btn btn-sm btn-outline-primary", labelCheckedClassName="active")],
        className="d-flex align-items-center flex-wrap gap-1 mb-2", **({"data-focuses": focuses} if focuses else {}),
    )
