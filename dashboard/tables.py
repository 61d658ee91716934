"""HTML built from the core's numbers that the explorer and class mode both show: the drill-down of one
attention weight (the explorer's "Where does this weight come from?", class mode's reveal) and its bars. The drill-down
says whether the weight is large at all (size_verdict, by the margin rule against 1/n)."""

from __future__ import annotations

import numpy as np
from dash import html

from . import explain, figures, margins
from .i18n import _, ngettext, vector


def bar(value: float, largest: float, signed: bool = True) -> html.Div:
    """A bar as long as |value| / largest. Signed: right of the middle and blue when positive, left and red when
    negative. The numbers stand beside it, so screen readers skip it."""
    width = (50 if signed else 100) * abs(value) / largest if largest > 0 else 0
    side = {"left": "50%" if signed else "0"} if value >= 0 else {"right": "50%"}
    return html.Div(html.Div(className="bar " + ("pos" if value >= 0 else "neg"),
                             style={**side, "width": f"{width:.1f}%"}),
                    className="bar-track" + (" signed" if signed else ""), **{"aria-hidden": "true"})


def explanation(path: explain.CellPath, i: int, r: int, j: int) -> html.Div:
    """The drill-down as tables a screen reader reads as they stand; the bars only repeat the numbers."""
    head, A, sup = figures.head_label(i), path.weights, figures.head_sup(i)
    d_k = len(path.q)
    big = float(np.abs(path.products).max())
    coordinates = html.Table(
        # Translators: {logit} is a formula such as B_1(x_0, x_1); a head is an attention head
        [html.Caption(ngettext("The logit {logit} = q·k, coordinate by coordinate, in head {head}'s {d_k} dimension",
                               "The logit {logit} = q·k, coordinate by coordinate, in head {head}'s {d_k} dimensions",
                               d_k).format(logit=_logit(i, r, j), head=i + 1, d_k=d_k)),
         html.Thead(html.Tr([html.Th("c", scope="col"), html.Th(f"q{sup}_{r}[c]", scope="col"),
                             html.Th(f"k{sup}_{j}[c]", scope="col"), html.Th(_("product"), scope="col"),
                             html.Th(_("pushes the weight"), scope="col")])),
         html.Tbody([html.Tr([html.Th(str(c), scope="row"), html.Td(f"{q:+.3f}"), html.Td(f"{k:+.3f}"),
                              html.Td(f"{p:+.3f}"), html.Td([bar(p, big), html.Span(_("up") if p >= 0 else _("down"),
                                                                                     className="visually-hidden")])])
                     for c, (q, k, p) in enumerate(zip(path.q, path.k, path.products))])],
        className="table table-sm drill-table")
    row_max = float(A.max())
    softmax_row = html.Table(
        [html.Caption(_("Row {r} of {head}: the softmax turns the scaled logits into weights that share 1 between "
                        "the {n} keys").format(r=r, head=head, n=len(A))),
         # Translators: "key" is attention's key (a token), not a keyboard's
         html.Thead(html.Tr([html.Th(_("key"), scope="col"), html.Th(_("scaled logit"), scope="col"),
                             html.Th(_("weight"), scope="col"),
                             html.Th(html.Span(_("bar"), className="visually-hidden"), scope="col")])),
         html.Tbody([html.Tr([html.Th(str(key), scope="row"), html.Td(f"{logit:+.3f}"), html.Td(f"{a:.3f}"),
                              html.Td(bar(a, row_max, signed=False))], className="selected" if key == j else None)
                     for key, (logit, a) in enumerate(zip(path.logits, A))])],
        className="table table-sm drill-table softmax-row")
    # the rank by the margin rule on the row's weights (the softmax keeps the logits' order): named only past it
    best, worst = margins.rank_range(A, j, margins.WEIGHT)
    if best == worst == 1:
        summary = _("The logit {logit} = q·k = {score:+.3f}; times the scale {scale:.3f} it gives the scaled logit "
                    "{scaled:+.3f}, the softmax's input and the largest of row {r}'s {n}, its weight more than "
                    "{margin} above every other. The softmax turns the row into weights that add up to 1: "
                    "{weight_name}[{r}, {j}] = {weight:.3f}, against 1/{n} = {uniform:.3f} if every key got the same.")
    elif best == worst:
        # Translators: {rank} is a number, 1 the largest (a rank, not an ordinal word)
        summary = _("The logit {logit} = q·k = {score:+.3f}; times the scale {scale:.3f} it gives the scaled logit "
                    "{scaled:+.3f}, the softmax's input, at rank {rank} among row {r}'s {n} (from the largest), its "
                    "weight more than {margin} away from the weights ranked next to it. The softmax turns the row into "
                    "weights that add up to 1: {weight_name}[{r}, {j}] = {weight:.3f}, against 1/{n} = {uniform:.3f} "
                    "if every key got the same.")
    else:
        # Translators: {best} and {worst} are ranks, 1 the largest: the ranks a key may hold when others are too close
        summary = _("The logit {logit} = q·k = {score:+.3f}; times the scale {scale:.3f} it gives the scaled logit "
                    "{scaled:+.3f}, the softmax's input, at ranks {best} to {worst} among row {r}'s {n} (from the "
                    "largest): its weight is within {margin} of another key's, too close to tell. The softmax turns "
                    "the row into weights that add up to 1: {weight_name}[{r}, {j}] = {weight:.3f}, against 1/{n} = "
                    "{uniform:.3f} if every key got the same.")
    summary = summary.format(logit=_logit(i, r, j), score=path.score, scale=path.scale, scaled=path.logits[j],
                             rank=best, best=best, worst=worst, margin=margins.WEIGHT, r=r, n=len(A),
                             weight_name=head, j=j, weight=A[j], uniform=1 / len(A))
    return html.Div(
        [html.P(summary, className="drill-summary"),
         html.P(size_verdict(float(A[j]), len(A)), className="drill-verdict"),
         html.P([html.Strong(_("tokens: ")), f"x_{r} = {_vector(path.x_r)}, x_{j} = {_vector(path.x_j)}"],
                className="small font-monospace"),
         html.Div([html.Div(coordinates, className="col-md-6"), html.Div(softmax_row, className="col-md-6")],
                  className="row g-3")],
    )


def size_verdict(weight: float, n: int) -> str:
    """Whether the weight is large, by the margin rule against 1/n, what every key gets when all are alike: large
    only when it beats 1/n by more than margins.WEIGHT."""
    verdict = margins.beats(weight, 1 / n, margins.WEIGHT)
    if verdict:
        text = _("This weight is large: {weight:.3f}, more than {margin} above 1/{n} = {uniform:.3f}, what each key "
                 "would get if every key got the same.")
    elif verdict is None:
        text = _("This weight is not large: {weight:.3f} is within {margin} of 1/{n} = {uniform:.3f}, what each key "
                 "would get if every key got the same.")
    else:
        text = _("This weight is not large: {weight:.3f}, more than {margin} below 1/{n} = {uniform:.3f}, what each "
                 "key would get if every key got the same. What follows shows why it is small.")
    return text.format(weight=weight, margin=margins.WEIGHT, n=n, uniform=1 / n)


def _logit(i: int, r: int, j: int) -> str:
    """The seed's name for the unscaled q·k of head i (from 0), query r and key j."""
    return f"B_{i + 1}(x_{r}, x_{j})"


def _vector(v: np.ndarray) -> str:
    return vector(v, "+.2f")
