"""Per-head summaries beside the per-head heatmaps: how sharp each head is, its largest weight, and how much
a token attends to its own cluster, with a one-line reading that is also the table's caption."""

from __future__ import annotations

import numpy as np
from dash import Output, html

from .. import attention as core
from .. import explain, figures
from ..i18n import _, ngettext
from ..state import model
from .ui import StaticHtml, to_html
from .wiring import callback
from .worked import WORKED_TEXT

SUMMARY = "head-summary"


def layout() -> StaticHtml:
    return StaticHtml(id=SUMMARY, className="head-summary mb-3")


@callback(Output(SUMMARY, "html"), WORKED_TEXT.input, prevent_initial_call=True)
def update_summary(controls):
    s = WORKED_TEXT.read(controls).setting
    ex, r = model(s)
    return to_html(summary_table(explain.head_summaries(r.A, ex.cluster), s.n))


def as_shown(value: float, digits: int = 2) -> float:
    """A number as the page prints it: claims about the numbers compare these, so that they say what the student
    can check (0.3341 is shown as 0.33, which is not more than the uniform 0.33)."""
    return float(f"{value:.{digits}f}")


def heads_named(heads: list[int]) -> str:
    """'head 2' or 'heads 1, 3'."""
    # Translators: attention heads, e.g. "heads 1, 3"
    return ngettext("head {heads}", "heads {heads}", len(heads)).format(heads=", ".join(map(str, heads)))


def reading(summary: explain.HeadSummary, n: int) -> str:
    """One line on the table: the sharpest heads, and which heads favour their own cluster."""
    bits, own = [as_shown(e) for e in summary.entropy], [as_shown(o) for o in summary.own_cluster]
    uniform_own = as_shown(1 / core.N_CLUSTERS)  # a third of the tokens are in a token's own cluster
    if len(bits) == 1:
        return _("The one head's rows carry {bits:.2f} bits on average, against log₂ {n} = {uniform:.2f} for uniform "
                 "attention; it puts {own:.2f} on a token's own cluster, against the uniform {uniform_own:.2f}."
                 ).format(bits=bits[0], n=n, uniform=np.log2(n), own=own[0], uniform_own=uniform_own)
    sharpest = [i + 1 for i, b in enumerate(bits) if b == min(bits)]
    favour = [i + 1 for i, o in enumerate(own) if o > uniform_own]
    # Translators: attention heads; log₂ n bits is the entropy of a uniform row
    first = ngettext("Head {heads} is the sharpest ({bits:.2f} bits a row, against log₂ {n} = {uniform:.2f} for "
                     "uniform attention)",
                     "Heads {heads} are the sharpest ({bits:.2f} bits a row, against log₂ {n} = {uniform:.2f} for "
                     "uniform attention)", len(sharpest)).format(heads=", ".join(map(str, sharpest)), bits=min(bits),
                                                                 n=n, uniform=np.log2(n))
    if favour:
        favoured = ngettext("head {heads} puts more than the uniform {uniform_own:.2f} on a token's own cluster",
                            "heads {heads} put more than the uniform {uniform_own:.2f} on a token's own cluster",
                            len(favour)).format(heads=", ".join(map(str, favour)), uniform_own=uniform_own)
    else:
        favoured = _("no head puts more than the uniform {uniform_own:.2f} on a token's own cluster").format(
            uniform_own=uniform_own)
    # Translators: two clauses of one sentence: the sharpest heads; the heads that favour their own cluster
    return _("{sharpest}; {favoured}.").format(sharpest=first, favoured=favoured)


def summary_table(summary: explain.HeadSummary, n: int) -> html.Table:
    rows = [html.Tr([html.Th(figures.head_title(i), scope="row"), html.Td(f"{e:.2f}"), html.Td(f"{m:.3f}"),
                     html.Td(f"{o:.2f}")])
            for i, (e, m, o) in enumerate(zip(summary.entropy, summary.largest, summary.own_cluster))]
    return html.Table(
        [html.Caption(reading(summary, n)),
         # Translators: an attention head
         html.Thead(html.Tr([html.Th(_("head"), scope="col"),
                             html.Th(_("entropy, bits (uniform {uniform:.2f})").format(uniform=np.log2(n)),
                                     scope="col"),
                             html.Th(_("largest weight (uniform {uniform:.3f})").format(uniform=1 / n), scope="col"),
                             html.Th(_("on own cluster (uniform 0.33)"), scope="col")])),
         html.Tbody(rows)],
        className="table table-sm table-striped summary-table w-auto",
    )
