"""Panels sent as one element's HTML (ui.to_html): escaped, plain HTML only, and the same text and structure as
the components they were built from."""

import dash_bootstrap_components as dbc
import numpy as np
import pytest
from dash import html

from dashboard import explain, state, tables
from dashboard.explorer.ui import to_html
from tests.util import from_html, texts


def test_text_and_attributes_are_escaped():
    built = to_html(html.P(['<script>alert(1)</script> & "x"', html.Span("a", title='" onmouseover="x')],
                           className="c", style={"borderTop": "1px"}))
    assert built == ('<p class="c" style="border-top: 1px">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;'
                     '<span title="&quot; onmouseover=&quot;x">a</span></p>')


@pytest.mark.parametrize("component", [
    dbc.Button("go"), html.Div(dbc.Input(id="x")), html.Button("go"), html.Script("alert(1)"),
    html.Div("a", n_clicks=0), html.Div(**{'data-x="1" onmouseover="alert(1)': "y"}),
    html.Div(style={"width": 10}),
])
def test_a_component_that_acts_or_that_html_cannot_carry_is_refused(component):
    with pytest.raises(TypeError):
        to_html(component)


def test_values_render_as_react_renders_them():
    """numpy's numbers print; a boolean child is nothing; a False attribute is left out, a True one bare."""
    assert to_html(html.Td([np.int64(3), " ", np.float32(0.5), True, False, None])) == "<td>3 0.5</td>"
    assert to_html(html.Details("x", open=False)) == "<details>x</details>"
    assert to_html(html.Details("x", open=True, hidden=False)) == "<details open>x</details>"


def test_the_drilldown_reads_the_same_as_its_components():
    ex, result = state.model(state.Setting(4, 0))
    panel = tables.explanation(explain.cell_path(ex.X, result, 1, 3, 0), 1, 3, 0)
    again = from_html(to_html(panel))
    assert texts(again) == texts(panel) and len(texts(panel)) > 50
    kinds = lambda tree: [type(c).__name__ for c in tree._traverse() if not isinstance(c, str)]  # noqa: E731
    assert kinds(again) == kinds(panel)
