"""The reveal: the class's answers in vote 1 and vote 2 side by side, beside the truth and the figure that
explains it. A table, so that screen readers read the counts; the bars only repeat them."""

from __future__ import annotations

import numpy as np
from dash import html

from ..i18n import _, format_list, ngettext, sentences
from ..tables import bar
from .pictures import why
from .store import schema
from ..questions import option_label

def amount_edges(q: dict) -> tuple[np.ndarray, int]:
    """Bin edges for an amount's answers, and the index of the bin of accepted answers: that bin is exactly the
    truth as shown ± the tolerance (cut at 0 and 1); the others are as wide and reach the row's smallest and
    largest weight ± the tolerance, never below 0 or above 1 (a weight is neither)."""
    t, tol = q["truth"], q["tolerance"]
    low, high = max(0.0, q["lo"] - tol), min(1.0, q["hi"] + tol)
    a, b = max(0.0, t - tol), min(1.0, t + tol)
    steps = 2 * tol * np.arange(1, int(np.ceil((high - low) / (2 * tol))) + 2)  # a few: tolerance >= spread / 10
    left = [e for e in a - steps if e > low + 1e-12]
    right = [e for e in b + steps if e < high - 1e-12]
    edges = np.array(sorted({*([low] if low < a else []), *left, a, b, *right, *([high] if high > b else [])}))
    return edges, int(np.flatnonzero(edges == a)[0])


def amount_rows(q: dict) -> tuple[list[str], list[list[int]], list[bool]]:
    """Bars for an amount's answers: one bar holds exactly the accepted answers (marked), the others are as wide;
    a bar for answers under the lowest edge or over the highest only where a weight can be there."""
    edges, accepted = amount_edges(q)
    labels = [f"{a:.3f}–{b:.3f}" for a, b in zip(edges, edges[1:])]
    under, over = int(edges[0] > 0), int(edges[-1] < 1)
    labels = [_("under {value:.3f}").format(value=edges[0])] * under + labels + \
        [_("over {value:.3f}").format(value=edges[-1])] * over
    shift = under

    def place(v: float) -> int:
        if abs(v - q["truth"]) <= q["tolerance"] + 1e-9:
            return accepted + shift
        k = int(np.searchsorted(edges, v, side="right")) - 1  # -1 under the first edge, len - 1 from the last on
        return min(max(k, -shift), len(edges) - 2 + over) + shift
    counts = [np.bincount([place(v) for v in vote["values"]], minlength=len(labels)).tolist()
              for vote in q["votes"]]
    return labels, counts, [k == accepted + shift for k in range(len(labels))]


def right_count(q: dict, vote: dict) -> int:
    if q["kind"] == "amount":
        return sum(schema.right(q, v) for v in vote["values"])
    return sum(vote["counts"][k] for k in q["accepted"])


def summary(q: dict) -> str:
    votes = q["votes"]
    parts = []
    for k, vote in enumerate(votes, 1):
        right, count = right_count(q, vote), vote["count"]
        if len(votes) > 1:
            # Translators: right as in correct; {percent} is their share of the answers, as "60" in "(60%)"
            text = ngettext("Vote {vote}: {right} of {count} answer right ({percent:.0f}%).",
                            "Vote {vote}: {right} of {count} answers right ({percent:.0f}%).", count) if count else \
                _("Vote {vote}: no answers.")
        else:
            # Translators: right as in correct; {percent} is their share of the answers, as "60" in "(60%)"
            text = ngettext("The class: {right} of {count} answer right ({percent:.0f}%).",
                            "The class: {right} of {count} answers right ({percent:.0f}%).", count) if count else \
                _("The class: no answers.")
        parts.append(text.format(vote=k, right=right, count=count, percent=100 * right / count if count else 0))
    if q["kind"] == "amount":
        parts.append(_("The answer: {answer:.3f} (within ±{tolerance:g} counts).").format(answer=q["truth"],
                                                                                           tolerance=q["tolerance"]))
        medians = [_("vote {vote}: {median:.3f}").format(vote=k, median=np.median(v["values"]))
                   for k, v in enumerate(votes, 1) if v["values"]]
        if medians:
            parts.append(_("Median answer, {medians}.").format(medians=format_list(medians)))
    else:
        answer, accepted = option_label(q["template"], q["truth"]), q["accepted"]
        parts.append(_("The answer: {answer}; {accepted} count.").format(
            answer=answer, accepted=format_list(option_label(q["template"], a) for a in accepted))
            if len(accepted) > 1 else _("The answer: {answer}.").format(answer=answer))
    return sentences(*parts)


def results_view(q: dict) -> html.Div:
    """The class's answers per vote beside the truth."""
    votes = q["votes"]
    if q["kind"] == "amount":
        labels, counts, marked = amount_rows(q)
    else:
        labels = [option_label(q["template"], k) for k in range(q["n"])]
        counts, marked = [v["counts"] for v in votes], [k in q["accepted"] for k in range(q["n"])]
    most = max(max(c) for c in counts) or 1
    head = [html.Th(_("answer"), scope="col")]
    for k in range(1, len(votes) + 1):
        head += [html.Th(_("vote {vote}").format(vote=k), scope="col"),
                 html.Th(html.Span(_("vote {vote} bar").format(vote=k), className="visually-hidden"), scope="col")]
    # Translators: right as in correct: the column that marks the accepted answers
    head.append(html.Th(html.Span(_("right?"), className="visually-hidden"), scope="col"))
    rows = []
    for k, label in enumerate(labels):
        cells = [html.Th(label, scope="row")]
        for c in counts:
            cells += [html.Td(str(c[k])), html.Td(bar(c[k], most, signed=False))]
        # Translators: right as in correct (an arrow points at the answer)
        cells.append(html.Td(_("← right") if marked[k] else ""))
        rows.append(html.Tr(cells, className="truth" if marked[k] else None))
    # the caption is for screen readers: the summary above the table says it
    table = html.Table([html.Caption(_("The class's answers, vote 1 and vote 2") if len(votes) > 1 else
                                     _("The class's answers"), className="visually-hidden"),
                        html.Thead(html.Tr(head)), html.Tbody(rows)],
                       className="table table-sm class-bars" + (" two-votes" if len(votes) > 1 else ""))
    return html.Div([html.P(summary(q), className="class-summary"), table])


def reveal_views(q: dict) -> tuple[html.Div, html.Div]:
    """The reveal in two parts, side by side on a projector: the answers with the numbers behind the truth (a
    table per head or key), and the figure that explains it."""
    parts = why(q)
    numbers = [p for p in parts if isinstance(p, html.Table)]
    return (html.Div([results_view(q), *numbers]),
            html.Div([html.H4(_("Why"), className="h5"), *(p for p in parts if not isinstance(p, html.Table))]))
