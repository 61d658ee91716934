"""The bug clinic's words and tables (explorer/clinic.py): each built from numbers the checks computed."""

from __future__ import annotations

import numpy as np
from dash import html

from .. import bugs, checks, figures
from ..attention import MultiHeadResult
from ..state import Setting

CAUGHT = {True: ("caught", "caught"), False: ("missed", "missed"), None: ("cannot tell", "unknown")}


def headline(s: Setting, name: str, right: MultiHeadResult, wrong: MultiHeadResult, causal: bool) -> str:
    """The largest gaps between the layers, in the weights (and which head) and in the output."""
    gaps = np.abs(wrong.A - right.A).max(axis=(-1, -2))  # (h,)
    head, gap_A = int(gaps.argmax()), float(gaps.max())
    gap_out = float(np.abs(wrong.output - right.output).max())
    mask = ", both with a causal mask" if causal else ""
    said = (f"The correct layer beside “{name}” (h = {s.h}, seed {s.seed}, n = {s.n}{mask}): the weights differ by "
            f"up to {gap_A:.3f} (head {head + 1}), the outputs by up to {gap_out:.3f}.")
    if max(gap_A, gap_out) < checks.TOLERANCE:
        return said + " In this setting the mistake changes nothing: both layers compute the same numbers."
    if gap_A < checks.TOLERANCE:
        return said + " Every attention weight is the same: only the output is wrong."
    return said


def passes(v: checks.Verdict) -> html.Td:
    return html.Td([html.Span("passes" if v.passed else "fails", className="fw-semibold"), html.Br(),
                    html.Small(v.detail)], className="pass" if v.passed else "fail")


def caught_cell(caught: bool | None) -> html.Td:
    words, kind = CAUGHT[caught]
    return html.Td(words, className=kind)


def checks_table(found: dict, label: str) -> html.Table | html.P:
    """Each chosen check on the correct layer and the buggy one, and whether it catches the bug."""
    if not found:
        return html.P("Tick a check above to run it on both layers.", className="small")
    rows = [html.Tr([html.Th(checks.CHECKS[name], scope="row"), passes(correct), passes(buggy), caught_cell(caught)])
            for name, (correct, buggy, caught) in found.items()]
    return html.Table([html.Caption("The checks, run on both layers"),
                       html.Thead(html.Tr([html.Th("check", scope="col"), html.Th("correct layer", scope="col"),
                                           html.Th("mystery layer" if label == "mystery" else f"layer {label}",
                                                   scope="col"), html.Th("the bug", scope="col")])),
                       html.Tbody(rows)], className="table table-sm align-middle")


def catch_table(table: dict, which: tuple[str, ...], h: int) -> html.Table | str:
    """Which check catches which bug in this setting: one row a bug, one column a check."""
    if not which:
        return ""
    head = html.Tr([html.Th("bug", scope="col")] + [html.Th(checks.CHECKS[c], scope="col") for c in which])
    rows = [html.Tr([html.Th(bugs.NAMES[key], scope="row")] + [caught_cell(found[c]) for c in which])
            for key, found in table.items()]
    return html.Table([html.Caption(f"Which check catches which bug, computed on this example (h = {h})"),
                       html.Thead(head), html.Tbody(rows)], className="table table-sm align-middle")


def training_note(h: int) -> html.P:
    return html.P(f"Training every layer on the learning lab's task (h = {h}, {checks.LEARNING_STEPS} steps each), "
                  "away from this page's requests: “still learns” joins the tables when they are done.",
                  className="small", role="status")


def code(line: str) -> html.Pre:
    return html.Pre(html.Code(line), className="clinic-code")


def story(bug: bugs.Bug, caught: str, causal: bool) -> html.Div:
    """The bug: the correct line beside the wrong one, what it does, which check catches it, where it happened."""
    parts = [html.H3(bug.name), html.P("The correct line:", className="mb-1"), code(bug.correct),
             html.P("The mistake:", className="mb-1"), code(bug.wrong), html.P(bug.effect)]
    if caught:
        parts.append(html.P(caught))
    parts.append(html.P([html.Strong("Where it happened: "), bug.seen]))
    if causal:
        reading, line = bugs.CAUSAL
        parts += [html.H3("The correct causal mask"), html.P(reading), code(line)]
    return html.Div(parts)


def mystery_note(number: int) -> html.Div:
    return html.Div([html.H3(f"Mystery {number}"),
                     html.P("The bug's name and its story are hidden. Run the checks, compare the heatmaps of the two "
                            "layers and their outputs, then name the bug below the checks' list.")])


def verdict(right: bool | None, why: str) -> html.Div:
    """The answer's verdict; `why` begins with it ("Right: …", "Not that one: …"); None when there is none."""
    return html.Div(why, className={True: "right", False: "wrong", None: ""}[right])


def path_names(i: int, r: int, j: int) -> dict[str, str]:
    """What each step of checks.PATH_STEPS is called, for head i (from 0), query r and key j."""
    sup, A = figures.head_sup(i), figures.head_label(i)
    return {"query": f"q{sup}_{r}, query {r} in head {i + 1}", "key": f"k{sup}_{j}, key {j} in head {i + 1}",
            "scale": "the scale", "logit": f"the scaled logit [{r}, {j}]", "weight": f"the weight {A}[{r}, {j}]",
            "row sum": f"row {r} of {A}, summed over the keys",
            "head row": f"head{str(i + 1).translate(figures.SUBSCRIPT)}'s row {r}", "output row": f"output row {r}"}


# What it means when a step is the first to differ, claiming no more than the path compared: the step, never the
# bug, so mystery mode keeps its secret.
FIRST_DIFFERENCE = {
    "query": "the heads' queries are cut from the projections differently",
    "key": "the heads' keys are cut from the projections differently",
    "scale": "the number in front of Q Kᵀ differs, so every logit is scaled differently",
    "logit": "the query and the key are the same in both layers, but their logit is not: it pairs other vectors",
    "weight": "this logit is the same, but its weight is not: the softmax gives it another share (a weight depends on "
              "the other logits it is taken over, and on the axis it is taken along)",
    "row sum": "this weight is the same, but the row's weights no longer add up to the same total",
    "head row": "this weight and its row's sum are the same, but the head's output for the query is not: other weights "
                "in the row, or the values they average, differ",
    "output row": "this head's output for the query is the same, but the layer's is not: another head's output, or "
                  "the step from the concatenation to the output, differs",
}


def number(value: np.ndarray) -> str:
    return f"{float(value):.3f}" if np.ndim(value) == 0 else "(" + ", ".join(f"{v:+.3f}" for v in value) + ")"


def path(steps: list[checks.PathStep], i: int, r: int, j: int, label: str, anywhere: bool) -> html.Div:
    """The path to A^(i)_rj and output row r in both layers (checks.wrong_number_path), and a sentence on the
    first number that differs; `anywhere`: whether the two layers differ at all in this setting."""
    names = path_names(i, r, j)
    first = next((s for s in steps if s.differs), None)
    way = f"On the way to {figures.head_label(i)}[{r}, {j}] and to output row {r}"
    buggy = "mystery layer" if label == "mystery" else f"layer {label}"
    if first is None:
        said = (f"{way}, every number is the same in both layers: at this cell the bug changes nothing. Try another."
                if anywhere else f"{way}, every number is the same in both layers: in this setting the bug changes "
                                 "nothing at all.")
    else:
        said = (f"{way}, the first number that differs is {names[first.step]}: {number(first.correct)} in the "
                f"correct layer, {number(first.buggy)} in the {buggy}. Every number before it is the same: "
                f"{FIRST_DIFFERENCE[first.step]}.")
    rows = [html.Tr([html.Th(names[s.step], scope="row"), html.Td(number(s.correct)), html.Td(number(s.buggy)),
                     html.Td("differs" if s.differs else "same", className="fail" if s.differs else "pass")],
                    className="selected" if s is first else None) for s in steps]
    table = html.Table([html.Caption(f"The numbers on the way to head {i + 1}'s weight [{r}, {j}] and output row {r}, "
                                     "in the order the layer computes them"),
                        html.Thead(html.Tr([html.Th("number", scope="col"), html.Th("correct layer", scope="col"),
                                            html.Th(buggy, scope="col"), html.Th("in both", scope="col")])),
                        html.Tbody(rows)], className="table table-sm align-middle drill-table")
    return html.Div([html.P(said, className="live-text"), table])
