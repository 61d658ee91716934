"""The explanation: every section of the seed is there, typeset, and the typeset copy is current."""

import hashlib
import re
import xml.dom.minidom

import pytest

from dashboard import create_app, explorer, i18n
from dashboard.explorer import ui

SECTIONS = sorted(p.stem for p in ui.CONTENT.glob("*.md"))


@pytest.fixture(scope="module")
def client():
    return create_app().server.test_client()


def css_name(name: str) -> str:
    """React's style name as CSS writes it: verticalAlign -> vertical-align."""
    return re.sub("([A-Z])", lambda m: "-" + m.group(1).lower(), name)


class FormulaImages:
    """A section's formula images as the page holds them (html.Img components, ui.markdown): their attributes
    by the names HTML gives them."""

    def __init__(self, name):
        from dash import html

        images = [c for c in ui.markdown(name)._traverse() if isinstance(c, html.Img)]
        self.found = [{"class": i.className, "src": i.src, "alt": i.alt,
                       "style": "; ".join(f"{css_name(k)}: {v}" for k, v in i.style.items())}
                      for i in images if i.className == "formula"]


def test_every_seed_heading_is_in_the_content():
    text = "\n".join((ui.CONTENT / f"{s}.md").read_text() for s in SECTIONS)
    for heading in ["Multi-Head Attention", "Single-head self-attention", "Block structure", "The multi-head operator",
                    "A family of bilinear forms", "A worked example", "feature-dependent mixings",
                    "Inherited properties"]:
        assert heading in text


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", SECTIONS)
def test_rendered_copy_matches_its_source(name, lang):
    source = (ui.CONTENT / ("" if lang == i18n.DEFAULT else lang) / f"{name}.md").read_bytes()
    rendered = (ui.RENDERED / lang / f"{name}.html").read_text()
    digest = re.search(r"sha256 ([0-9a-f]{64})", rendered.splitlines()[0]).group(1)
    assert digest == hashlib.sha256(source).hexdigest(), "run `make content`"
    assert "$" not in rendered.split("\n", 1)[1].replace("\\$", ""), "untypeset LaTeX left"
    assert rendered.count("<svg") == len(re.findall(r"\$\$.+?\$\$|\$[^$\n]+?\$", source.decode(), re.S))


# a count of tokens, heads or tokens per cluster stated as a fact: "$n = 12$", "h = 4", "clusters of four"; "with
# $h = 8$ …" is a condition, not a fact
A_FIXED_SIZE = re.compile(r"(?<![Ww]ith )(?<![Ww]ith \$)(?<!/)\b[nh] = \d+"
                          r"|clusters of (?:two|three|four|five|six|eight|\d+)|\b\d+ tokens\b")


@pytest.mark.parametrize("name", SECTIONS)
def test_the_prose_states_no_size_the_controls_change(name):
    """The controls change n and h, so a sentence that gives them a value says whose it is (the seed's): the
    worked example once said "n = 12 … three clusters of four" at every size."""
    sentences = re.split(r"(?<=[.;:])\s+", (ui.CONTENT / f"{name}.md").read_text())
    for sentence in sentences:
        if A_FIXED_SIZE.search(sentence):
            assert "seed's" in sentence, sentence


def test_layout_uses_every_section():
    shown = [c for view in explorer.VIEWS for c in view.layout()._traverse()]
    for name in SECTIONS:
        assert ui.markdown(name) in shown, name


def test_formulas_are_images_with_their_tex_as_alt_text():
    images = FormulaImages("multi_head").found
    rendered = (ui.RENDERED / "en" / "multi_head.html").read_text()
    assert len(images) == rendered.count("<svg") > 0
    assert images[0]["alt"].startswith("A^{(i)}") and images[0]["src"].startswith(ui.FORMULA_PATH)
    matrices = [i["alt"] for i in FormulaImages("block_structure").found if "bmatrix" in i["alt"]]
    assert matrices and all(" & " in alt and "&amp;" not in alt for alt in matrices)


@pytest.mark.parametrize("name", SECTIONS)
def test_every_formula_image_is_served_as_well_formed_svg(name, client):
    """Each image's file is there, cached for good (its name is its content's), and well-formed XML: a browser
    draws a broken-image icon for an SVG that is not (a raw '&' in bmatrix TeX once made one)."""
    for image in FormulaImages(name).found:
        response = client.get(image["src"])
        assert response.status_code == 200 and response.mimetype == "image/svg+xml"
        assert "immutable" in response.headers["Cache-Control"]
        xml.dom.minidom.parseString(response.data)
        assert image["src"] == f"{ui.FORMULA_PATH}{ui.formula_key(response.data)}.svg"


def test_an_unknown_formula_is_not_found(client):
    assert client.get(f"{ui.FORMULA_PATH}{'0' * 20}.svg").status_code == 404
    assert client.get(f"{ui.FORMULA_PATH}{'%ed%a0%80' * 100}.svg").status_code == 404


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_line_that_keeps_a_formula_with_its_punctuation_holds_one_formula(lang):
    """ui.TRAILING keeps an inline formula and the punctuation after it on one line (.formula-run, no wrap). A run
    that reached from one formula to a later one held a whole sentence on one line, over the column beside it (the
    worked example at 1440 px: "A⁽ⁱ⁾_rj is the weight head i places on row j of X when forming the output at row r.")."""
    with i18n.use(lang):
        matches = [m for name in SECTIONS for m in ui.TRAILING.finditer(ui.rendered(name))]
    assert len(matches) > 20 and all(m.group(1).count("<svg") == 1 for m in matches)
