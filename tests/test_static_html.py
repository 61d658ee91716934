"""The seed's text is Dash's own html components, built from the typeset HTML on the server (ui.markdown): no
custom component, and no HTML for a browser-side parser to misread (dcc.Markdown's JSX parser drew nothing at all of
every section with a display formula). Live panels are plain html components, never raw HTML strings."""

import re
from html import unescape

import pytest
from dash import html
from dash.development.base_component import Component

from dashboard import i18n, trainer
from dashboard.explorer import layout, ui
from tests.dash_requests import default_values, outputs_of, view_callbacks
from tests.util import fire

SECTIONS = sorted(p.stem for p in ui.CONTENT.glob("*.md"))
A_TAG = re.compile(r"<\s*/?\s*[a-zA-Z][^<>]*>")


def words(text: str) -> str:
    """The text without its white space: where the HTML's tags fell between words does not matter here."""
    return "".join(text.split())


def text_of(node) -> list[str]:
    """The text a component shows: its children's strings, in order."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list | tuple):
        return [t for child in node for t in text_of(child)]
    return text_of(getattr(node, "children", None) or [])


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", SECTIONS)
def test_every_seed_section_is_html_components_with_every_word_and_formula(name, lang):
    with i18n.use(lang):
        section = ui.markdown(name)
        source = ui.rendered(name)
    assert isinstance(section, html.Div) and section.className == "prose"
    nodes = list(section._traverse())
    images = [c for c in nodes if isinstance(c, html.Img)]
    assert len(images) == source.count("<svg") and all(i.className == "formula" for i in images)
    assert all(i.src.startswith(ui.FORMULA_PATH) and i.alt and i.style["width"].endswith("em") for i in images)
    assert [t for t in strings(section) if A_TAG.search(t)] == []  # no HTML left as text
    no_formulas = re.sub(r"<svg\b.*?</svg>", " ", source, flags=re.DOTALL)
    assert words(" ".join(text_of(section))) == words(unescape(re.sub(r"<[^>]+>", " ", no_formulas)))


def test_the_layout_holds_each_section():
    sections = [c for c in layout()._traverse() if isinstance(c, html.Div) and getattr(c, "className", "") == "prose"]
    assert len(sections) >= len(SECTIONS)
    assert sum(1 for c in layout()._traverse() if isinstance(c, html.Img) and getattr(c, "className", "") == "formula") > 100


def test_html_left_as_text_would_be_caught():
    assert all(A_TAG.search(s) for s in ("<p>x</p>", "<b>y</b>", "</div>", '<img src="a" />'))


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
            assert not isinstance(value, str) or not A_TAG.search(value), output
            tagged = [s for s in strings(value) if A_TAG.search(s)]
            assert tagged == [], (output, tagged[:1])
            checked += 1
    assert checked >= 25


def test_a_raw_html_answer_would_be_caught():
    assert strings(["<p>x</p>", {"a": "<b>y</b>"}]) == ["<p>x</p>", "<b>y</b>"]
    assert all(A_TAG.search(s) for s in ("<p>x</p>", "<b>y</b>", "</div>", '<img src="a" />'))
    assert not any(A_TAG.search(s) for s in ("1 < 2 > 0", "x<y", "a <-> b", "ρ < 0.5 and > 0.1"))
