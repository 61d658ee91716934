"""Per-head summaries beside the per-head heatmaps: how sharp each head is, its largest weight, and how much
a token attends to its own cluster, with a one-line reading that is also the table's caption."""

from __future__ import annotations

import dash_bootstrap_components as dbc
import numpy as np
from dash import Output, html

from .. import attention as core
from .. import explain
from ..state import model
from .wiring import callback
from .worked import WORKED

SUMMARY = "head-summary"


def layout() -> html.Div:
    return html.Div(id=SUMMARY, className="head-summary mb-3")


@callback(Output(SUMMARY, "children"), WORKED.input, prevent_initial_call=True)
def update_summary(controls):
    s = WORKED.read(controls).setting
    ex, r = model(s)
    return summary_table(explain.head_summaries(r.A, ex.cluster), s.n)


def reading(summary: explain.HeadSummary, n: int) -> str:
    """One line on the table: the sharpest head, and which heads favour their own cluster."""
    sharpest = int(np.argmin(summary.entropy))
    uniform_own = 1 / core.N_CLUSTERS
    favour = [i + 1 for i, own in enumerate(summary.own_cluster) if own > uniform_own]
    own = ("no head puts more than the uniform 1/3 on a token's own cluster" if not favour else
           f"head{'s' if len(favour) > 1 else ''} {', '.join(map(str, favour))} put"
           f"{'' if len(favour) > 1 else 's'} more than the uniform 1/3 on a token's own cluster")
    return (f"Head {sharpest + 1} is the sharpest ({summary.entropy[sharpest]:.2f} bits a row, against "
            f"log₂ {n} = {np.log2(n):.2f} for uniform attention); {own}.")


def summary_table(summary: explain.HeadSummary, n: int) -> dbc.Table:
    rows = [html.Tr([html.Th(f"head {i + 1}", scope="row"), html.Td(f"{e:.2f}"), html.Td(f"{m:.3f}"),
                     html.Td(f"{o:.2f}")])
            for i, (e, m, o) in enumerate(zip(summary.entropy, summary.largest, summary.own_cluster))]
    return dbc.Table(
        [html.Caption(reading(summary, n)),
         html.Thead(html.Tr([html.Th("head", scope="col"),
                             html.Th(f"entropy, bits (uniform {np.log2(n):.2f})", scope="col"),
                             html.Th(f"largest weight (uniform {1 / n:.3f})", scope="col"),
                             html.Th("on own cluster (uniform 0.33)", scope="col")])),
         html.Tbody(rows)],
        size="sm", striped=True, className="summary-table w-auto",
    )
