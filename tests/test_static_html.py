"""Static HTML is a supported component: the seed's text is dcc.Markdown with dangerously_allow_html (build-time
content only), and its HTML is what dcc.Markdown's JSX parser can read; live panels are plain html components,
never raw HTML strings."""

import re
from html.parser import HTMLParser

import pytest
from dash import dcc
from dash.development.base_component import Component

from dashboard import i18n, trainer
from dashboard.explorer import layout, ui
from tests.dash_requests import default_values, outputs_of, view_callbacks
from tests.util import fire

SECTIONS = sorted(p.stem for p in ui.CONTENT.glob("*.md"))
# elements with no end tag: in JSX each must close itself (<img ... />), or dcc.Markdown renders nothing at all
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
A_TAG = re.compile(r"<\s*/?\s*[a-zA-Z][^<>]*>")


class Voids(HTMLParser):
    """Every void element of an HTML text, and whether it closes itself (HTMLParser calls handle_startendtag
    only for <x ... />)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.open, self.closed = [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            self.open.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        if tag in VOID:
            self.closed.append((tag, attrs))


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", SECTIONS)
def test_every_seed_section_is_a_markdown_of_html_with_closed_images(name, lang):
    with i18n.use(lang):
        section = ui.markdown(name)
    assert isinstance(section, dcc.Markdown) and section.dangerously_allow_html is True
    voids = Voids(section.children)
    assert voids.open == [], f"{len(voids.open)} unclosed, first {voids.open[:1]}"
    images = [attrs for tag, attrs in voids.closed if tag == "img"]
    assert len(images) == section.children.count("<img") and len(images) == len(voids.closed)
    assert all(("class", "formula") in attrs and dict(attrs)["src"].startswith(ui.FORMULA_PATH) for attrs in images)


def test_the_sections_hold_formulas_and_the_layout_holds_each_as_markdown():
    counts = {name: ui.markdown(name).children.count("<img") for name in SECTIONS}
    assert sum(counts.values()) > 100 and counts["multi_head"] > 0  # the check above has images to check
    markdowns = [c for c in layout()._traverse() if isinstance(c, dcc.Markdown)]
    assert {ui.markdown(name).children for name in SECTIONS} <= {m.children for m in markdowns}
    assert all(m.dangerously_allow_html is True for m in markdowns)


def test_an_unclosed_image_is_caught():
    """The check above, against the failure it guards: an <img> as HTML writes it, which JSX cannot parse."""
    voids = Voids('<p>a <img class="formula" src="/formulas/x.svg" alt="x"> b</p>')
    assert [tag for tag, _ in voids.open] == ["img"] and voids.closed == []


def strings(value) -> list[str]:
    """Every string a callback's answer puts on the page: in a component's props and children, lists, dicts."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Component):
        props = value.to_plotly_json()["props"]
        return [s for key, v in props.items() if key not in ("id", "style") for s in strings(v)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    return []


@pytest.fixture(scope="module")
def trained():
    trainer.training_runs(0)  # the learning tab draws its runs only for a trained seed (0, the page's default)


def test_no_live_callback_answers_raw_html(trained):
    """Every view callback at the page's defaults: no output is an `html` prop or a Markdown, and no text it sends
    to a `children` holds a tag (which React would show as text). Figures may use Plotly's own <b> and <br>."""
    checked = 0
    for c in view_callbacks():
        outputs = outputs_of(c.key)
        answer = fire(c.function, **default_values(c.key))
        answers = answer if len(outputs) > 1 else (answer,)
        assert len(answers) == len(outputs), c.key
        for output, value in zip(outputs, answers):
            prop = output.rsplit(".", 1)[1].split("@")[0]
            assert prop not in ("html", "dangerously_allow_html"), output
            if prop == "figure":
                continue
            assert not isinstance(value, dcc.Markdown), output
            tagged = [s for s in strings(value) if A_TAG.search(s)]
            assert tagged == [], (output, tagged[:1])
            checked += 1
    assert checked >= 25


def test_a_raw_html_answer_would_be_caught():
    assert strings(["<p>x</p>", {"a": "<b>y</b>"}]) == ["<p>x</p>", "<b>y</b>"]
    assert all(A_TAG.search(s) for s in ("<p>x</p>", "<b>y</b>", "</div>", '<img src="a" />'))
    assert not any(A_TAG.search(s) for s in ("1 < 2 > 0", "x<y", "a <-> b", "ρ < 0.5 and > 0.1"))
