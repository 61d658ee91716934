"""Per-head summaries beside the per-head heatmaps: how sharp each head is, its largest weight, and how much
a token attends to its own cluster, with a one-line reading that is also the table's caption."""

from __future__ import annotations

import numpy as np
from dash import Output, html

from .. import attention as core
from .. import explain
from ..state import model
from .ui import StaticHtml, to_html
from .wiring import callback
from .worked import WORKED

SUMMARY = "head-summary"


def layout() -> StaticHtml:
    return StaticHtml(id=SUMMARY, className="head-summary mb-3")


@callback(Output(SUMMARY, "html"), WORKED.input, prevent_initial_call=True)
def update_summary(controls):
    s = WORKED.read(controls).setting
    ex, r = model(s)
    return to_html(summary_table(explain.head_summaries(r.A, ex.cluster), s.n))


def as_shown(value: float, digits: int = 2) -> float:
    """A number as the page prints it: claims about the numbers compare these, so that they say what the student
    can check (0.3341 is shown as 0.33, which is not more than the uniform 0.33)."""
    return float(f"{value:.{digits}f}")


def heads_named(heads: list[int]) -> str:
    return f"head{'s' if len(heads) > 1 else ''} {', '.join(map(str, heads))}"


def reading(summary: explain.HeadSummary, n: int) -> str:
    """One line on the table: the sharpest heads, and which heads favour their own cluster."""
    bits, own = [as_shown(e) for e in summary.entropy], [as_shown(o) for o in summary.own_cluster]
    uniform_bits = f"against log₂ {n} = {np.log2(n):.2f} for uniform attention"
    uniform_own = as_shown(1 / core.N_CLUSTERS)  # a third of the tokens are in a token's own cluster
    if len(bits) == 1:
        return (f"The one head's rows carry {bits[0]:.2f} bits on average, {uniform_bits}; it puts {own[0]:.2f} on "
                f"a token's own cluster, against the uniform {uniform_own:.2f}.")
    sharpest = [i + 1 for i, b in enumerate(bits) if b == min(bits)]
    favour = [i + 1 for i, o in enumerate(own) if o > uniform_own]
    says = "s" if len(favour) == 1 else ""
    favoured = (f"{heads_named(favour)} put{says} more than the uniform {uniform_own:.2f} on a token's own cluster"
                if favour else f"no head puts more than the uniform {uniform_own:.2f} on a token's own cluster")
    return (f"{heads_named(sharpest).capitalize()} {'is' if len(sharpest) == 1 else 'are'} the sharpest "
            f"({min(bits):.2f} bits a row, {uniform_bits}); {favoured}.")


def summary_table(summary: explain.HeadSummary, n: int) -> html.Table:
    rows = [html.Tr([html.Th(f"head {i + 1}", scope="row"), html.Td(f"{e:.2f}"), html.Td(f"{m:.3f}"),
                     html.Td(f"{o:.2f}")])
            for i, (e, m, o) in enumerate(zip(summary.entropy, summary.largest, summary.own_cluster))]
    return html.Table(
        [html.Caption(reading(summary, n)),
         html.Thead(html.Tr([html.Th("head", scope="col"),
                             html.Th(f"entropy, bits (uniform {np.log2(n):.2f})", scope="col"),
                             html.Th(f"largest weight (uniform {1 / n:.3f})", scope="col"),
                             html.Th("on own cluster (uniform 0.33)", scope="col")])),
         html.Tbody(rows)],
        className="table table-sm table-striped summary-table w-auto",
    )
