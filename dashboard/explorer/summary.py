"""Per-head summaries beside the per-head heatmaps: how sharp each head is, its largest weight, and how much
a token attends to its own cluster, with a one-line reading that is also the table's caption."""

from __future__ import annotations

import numpy as np
from dash import Input, Output, html

from .. import attention as core
from .. import explain, figures, margins
from ..i18n import _, format_list, ngettext, sentences
from ..state import model
from .controls import ModelView
from .ids import MODEL_LATER
from .wiring import callback

SUMMARY = "head-summary"


def layout() -> html.Div:
    return html.Div(id=SUMMARY, className="head-summary mb-3")


@callback(Output(SUMMARY, "children"), inputs=dict(shared=Input(MODEL_LATER, "data")), prevent_initial_call=True)
def update_summary(shared):
    s = ModelView.parse(shared).setting
    ex, r = model(s)
    return summary_table(explain.head_summaries(r.A, ex.cluster), s.n, trained=s.weights == "trained")


def as_shown(value: float, digits: int = 2) -> float:
    """A number as the page prints it: claims about the numbers compare these, so that they say what the student
    can check (0.3341 is shown as 0.33, which is not more than the uniform 0.33)."""
    return float(f"{value:.{digits}f}")


def heads_named(heads: list[int]) -> str:
    """'head 2' or 'heads 1 and 3', the list as the language joins one (i18n.format_list)."""
    # Translators: attention heads, e.g. "heads 1 and 3"; {heads} is a list the language's own way ("1、3")
    return ngettext("head {heads}", "heads {heads}", len(heads)).format(heads=format_list(heads))


def sharpest_text(summary: explain.HeadSummary, n: int) -> str:
    """The sharpest head, named only when it beats the next by more than margins.BITS; else every head that close
    to the sharpest, in their own order, too close to tell."""
    bits = summary.entropy
    c = margins.compare(bits, margins.BITS, lower_is_better=True)
    if c.clear:
        # Translators: attention heads; log₂ n bits is the entropy of a uniform row
        return _("Head {head} is the sharpest ({bits:.2f} bits a row, against {other:.2f} for the next, head "
                 "{runner}, and log₂ {n} = {uniform:.2f} for uniform attention)").format(
                     head=c.best + 1, bits=bits[c.best], other=bits[c.runner_up], runner=c.runner_up + 1, n=n,
                     uniform=np.log2(n))
    # Translators: attention heads ({heads}: "heads 1, 3 and 4"); log₂ n bits is the entropy of a uniform row
    return _("No head is clearly the sharpest: {heads} are within {margin} bits of the lowest entropy, {bits:.3f} "
             "bits a row (log₂ {n} = {uniform:.2f} for uniform attention)").format(
                 heads=heads_named(sorted(k + 1 for k in c.close)), margin=margins.BITS, bits=bits[c.best], n=n,
                 uniform=np.log2(n))


def roles_text(summary: explain.HeadSummary) -> str:
    """What each trained head does, from its own- and next-cluster mass (explain.head_roles)."""
    roles = explain.head_roles(summary)
    groups = [[i + 1 for i, role in enumerate(roles) if role == k] for k in range(len(explain.ROLES))]
    # Translators: the roles of trained attention heads: {own}, {next}, {mixed} are lists of heads or "none"
    return _("Trained, the heads take roles: own cluster (more than half a row's weight on it): {own}; next "
             "cluster: {next}; mixed: {mixed}.").format(
                 **{name: format_list(heads) if heads else _("none")
                    for name, heads in zip(("own", "next", "mixed"), groups)})


def reading(summary: explain.HeadSummary, n: int, trained: bool = False) -> str:
    """One line on the table: the sharpest head (past the margin), which heads favour their own cluster, and for
    trained weights each head's role."""
    uniform_own = as_shown(1 / core.N_CLUSTERS)  # a third of the tokens are in a token's own cluster
    if len(summary.entropy) == 1:
        return _("The one head's rows carry {bits:.2f} bits on average, against log₂ {n} = {uniform:.2f} for uniform "
                 "attention; it puts {own:.2f} on a token's own cluster, against the uniform {uniform_own:.2f}."
                 ).format(bits=summary.entropy[0], n=n, uniform=np.log2(n), own=summary.own_cluster[0],
                          uniform_own=uniform_own)
    favour = [i + 1 for i, o in enumerate(summary.own_cluster) if margins.beats(o, 1 / core.N_CLUSTERS,
                                                                                margins.WEIGHT)]
    if favour:
        # Translators: {margin} is an attention weight, 0.02: the heads beat the uniform share by more than it
        favoured = ngettext("head {heads} puts more than the uniform {uniform_own:.2f} on a token's own cluster, by "
                            "more than {margin}",
                            "heads {heads} put more than the uniform {uniform_own:.2f} on a token's own cluster, by "
                            "more than {margin}",
                            len(favour)).format(heads=format_list(favour), uniform_own=uniform_own,
                                                margin=margins.WEIGHT)
    else:
        favoured = _("no head puts more than the uniform {uniform_own:.2f} on a token's own cluster by more than "
                     "{margin}").format(uniform_own=uniform_own, margin=margins.WEIGHT)
    # Translators: two clauses of one sentence: the sharpest heads; the heads that favour their own cluster
    first = _("{sharpest}; {favoured}.").format(sharpest=sharpest_text(summary, n), favoured=favoured)
    return sentences(first, roles_text(summary)) if trained else first


def summary_table(summary: explain.HeadSummary, n: int, trained: bool = False) -> html.Table:
    rows = [html.Tr([html.Th(figures.head_title(i), scope="row"), html.Td(f"{e:.2f}"), html.Td(f"{m:.3f}"),
                     html.Td(f"{o:.2f}")])
            for i, (e, m, o) in enumerate(zip(summary.entropy, summary.largest, summary.own_cluster))]
    return html.Table(
        [html.Caption(reading(summary, n, trained)),
         # Translators: an attention head
         html.Thead(html.Tr([html.Th(_("head"), scope="col"),
                             html.Th(_("entropy, bits (uniform {uniform:.2f})").format(uniform=np.log2(n)),
                                     scope="col"),
                             html.Th(_("largest weight (uniform {uniform:.3f})").format(uniform=1 / n), scope="col"),
                             html.Th(_("on own cluster (uniform 0.33)"), scope="col")])),
         html.Tbody(rows)],
        className="table table-sm table-striped summary-table w-auto",
    )
