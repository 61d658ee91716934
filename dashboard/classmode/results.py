"""The reveal: the class's answers in vote 1 and vote 2 side by side, beside the truth and the figure that
explains it. A table, so that screen readers read the counts; the bars only repeat them."""

from __future__ import annotations

import numpy as np
from dash import html

from ..tables import bar
from .pictures import why
from .store import schema
from .templates import option_label

BINS = 8  # an amount's bars between the row's smallest and largest weight (and one each side of them)


def answers(count: int) -> str:
    return f"{count} answer{'s' if count != 1 else ''}"


def amount_rows(q: dict) -> tuple[list[str], list[list[int]], list[bool]]:
    """Bins that follow the spread of the row the weight is in: from its smallest to its largest weight (widened by
    the tolerance), with one bar for answers below and one for answers above."""
    tol = q["tolerance"]
    edges = np.linspace(q["lo"] - tol, q["hi"] + tol, BINS + 1)
    labels = [f"under {edges[0]:.3f}"] + [f"{a:.3f}–{b:.3f}" for a, b in zip(edges, edges[1:])] + \
        [f"over {edges[-1]:.3f}"]
    # searchsorted: 0 below the first edge, k for the k-th bin, BINS + 1 from the last edge on
    counts = [np.bincount(np.searchsorted(edges, v["values"], side="right"), minlength=BINS + 2).tolist()
              for v in q["votes"]]
    truth = int(np.searchsorted(edges, q["truth"], side="right"))  # 1 .. BINS: the bin holding it
    return labels, counts, [k == truth for k in range(BINS + 2)]


def right_count(q: dict, vote: dict) -> int:
    if q["kind"] == "amount":
        return sum(schema.right(q, v) for v in vote["values"])
    return sum(vote["counts"][k] for k in q["accepted"])


def summary(q: dict) -> str:
    votes = q["votes"]
    parts = []
    for k, vote in enumerate(votes, 1):
        name = f"Vote {k}" if len(votes) > 1 else "The class"
        right = right_count(q, vote)
        share = f" ({100 * right / vote['count']:.0f}%)" if vote["count"] else ""
        parts.append(f"{name}: {right} of {answers(vote['count'])} right{share}.")
    if q["kind"] == "amount":
        truth = f"The answer: {q['truth']:.3f} (within ±{q['tolerance']:g} counts)."
        medians = [f"vote {k}: {np.median(v['values']):.3f}" for k, v in enumerate(votes, 1) if v["values"]]
        truth += f" Median answer, {', '.join(medians)}." if medians else ""
    else:
        accepted = q["accepted"]
        truth = f"The answer: {option_label(q['template'], q['truth'])}"
        if len(accepted) > 1:
            truth += f"; {', '.join(option_label(q['template'], a) for a in accepted)} count"
        truth += "."
    return " ".join(parts + [truth])


def results_view(q: dict) -> html.Div:
    """The class's answers per vote beside the truth, and the figure that explains the truth."""
    votes = q["votes"]
    if q["kind"] == "amount":
        labels, counts, marked = amount_rows(q)
    else:
        labels = [option_label(q["template"], k) for k in range(q["n"])]
        counts, marked = [v["counts"] for v in votes], [k in q["accepted"] for k in range(q["n"])]
    most = max(max(c) for c in counts) or 1
    names = [f"vote {k}" for k in range(1, len(votes) + 1)]
    head = [html.Th("answer", scope="col")]
    for name in names:
        head += [html.Th(name, scope="col"), html.Th(html.Span(f"{name} bar", className="visually-hidden"),
                                                     scope="col")]
    head.append(html.Th(html.Span("right?", className="visually-hidden"), scope="col"))
    rows = []
    for k, label in enumerate(labels):
        cells = [html.Th(label, scope="row")]
        for c in counts:
            cells += [html.Td(str(c[k])), html.Td(bar(c[k], most, signed=False))]
        cells.append(html.Td("← right" if marked[k] else ""))
        rows.append(html.Tr(cells, className="truth" if marked[k] else None))
    table = html.Table([html.Caption("The class's answers" + (", vote 1 and vote 2" if len(votes) > 1 else "")),
                        html.Thead(html.Tr(head)), html.Tbody(rows)],
                       className="table table-sm class-bars" + (" two-votes" if len(votes) > 1 else ""))
    return html.Div([html.P(summary(q), className="class-summary"), table,
                     html.H4("Why", className="h5 mt-3"), *why(q)])
