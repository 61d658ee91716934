"""The explanation: every section of the seed is there, typeset, and the typeset copy is current."""

import hashlib
import re

import pytest

from dashboard import views
from dashboard.views import common

SECTIONS = sorted(p.stem for p in common.CONTENT.glob("*.md"))


def test_every_seed_heading_is_in_the_content():
    text = "\n".join((common.CONTENT / f"{s}.md").read_text() for s in SECTIONS)
    for heading in ["Multi-Head Attention", "Single-head self-attention", "Block structure", "The multi-head operator",
                    "A family of bilinear forms", "A worked example", "feature-dependent mixings",
                    "Inherited properties"]:
        assert heading in text


@pytest.mark.parametrize("name", SECTIONS)
def test_rendered_copy_matches_its_source(name):
    source = (common.CONTENT / f"{name}.md").read_bytes()
    rendered = (common.RENDERED / f"{name}.html").read_text()
    digest = re.search(r"sha256 ([0-9a-f]{64})", rendered.splitlines()[0]).group(1)
    assert digest == hashlib.sha256(source).hexdigest(), "run tools/build_assets.sh"
    assert "$" not in rendered.split("\n", 1)[1].replace("\\$", ""), "untypeset LaTeX left"
    assert rendered.count("<svg") == len(re.findall(r"\$\$.+?\$\$|\$[^$\n]+?\$", source.decode(), re.S))


def test_layout_uses_every_section():
    from dash import dcc

    shown = [c.children for c in views.make_layout()._traverse() if isinstance(c, dcc.Markdown)]
    for name in SECTIONS:
        assert common.markdown(name).children in shown, name
