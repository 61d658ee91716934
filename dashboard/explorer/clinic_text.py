"""The bug clinic's words and tables (explorer/clinic.py): each built from numbers the checks computed."""

from __future__ import annotations

import numpy as np
from dash import html

from .. import bugs, checks, figures
from ..attention import MultiHeadResult
from ..i18n import N_, _, sentences, vector
from ..state import Setting

# Translators: what a check does with a bug: "caught", "missed" or "cannot tell" (a cell of a table)
CAUGHT = {True: (N_("caught"), "caught"), False: (N_("missed"), "missed"), None: (N_("cannot tell"), "unknown")}
# the buggy layer's column, by clinic_gates.shown's label
LAYER_NAMES = {"mystery": N_("mystery layer"), "with the bug": N_("layer with the bug")}


def headline(s: Setting, name: str, right: MultiHeadResult, wrong: MultiHeadResult, causal: bool) -> str:
    """The largest gaps between the layers, in the weights (and which head) and in the output."""
    gaps = np.abs(wrong.A - right.A).max(axis=(-1, -2))  # (h,)
    head, gap_A = int(gaps.argmax()), float(gaps.max())
    gap_out = float(np.abs(wrong.output - right.output).max())
    if causal:
        said = _("The correct layer beside “{name}” (h = {h}, seed {seed}, n = {n}, both with a causal mask): the "
                 "weights differ by up to {gap_A:.3f} (head {head}), the outputs by up to {gap_out:.3f}.")
    else:
        said = _("The correct layer beside “{name}” (h = {h}, seed {seed}, n = {n}): the weights differ by up to "
                 "{gap_A:.3f} (head {head}), the outputs by up to {gap_out:.3f}.")
    said = said.format(name=name, h=s.h, seed=s.seed, n=s.n, gap_A=gap_A, head=head + 1, gap_out=gap_out)
    if max(gap_A, gap_out) < checks.TOLERANCE:
        return sentences(said, _("In this setting the mistake changes nothing: both layers compute the same numbers."))
    if gap_A < checks.TOLERANCE:
        return sentences(said, _("Every attention weight is the same: only the output is wrong."))
    return said


def mystery_headline(s: Setting, causal: bool) -> str:
    """Mystery mode's headline: the setting and the mask as the causal switch has it, and no gap between the
    layers (the largest gaps identify a bug at a given setting, so a class could look them up)."""
    if causal:
        return _("The correct layer beside the mystery layer (h = {h}, seed {seed}, n = {n}, both with a causal "
                 "mask): compare their heatmaps and run the checks.").format(h=s.h, seed=s.seed, n=s.n)
    return _("The correct layer beside the mystery layer (h = {h}, seed {seed}, n = {n}): compare their heatmaps "
             "and run the checks.").format(h=s.h, seed=s.seed, n=s.n)


def passes(v: checks.Verdict) -> html.Td:
    return html.Td([html.Span(_("passes") if v.passed else _("fails"), className="fw-semibold"), html.Br(),
                    html.Small(v.detail)], className="pass" if v.passed else "fail")


def caught_cell(caught: bool | None) -> html.Td:
    words, kind = CAUGHT[caught]
    return html.Td(_(words), className=kind)


def checks_table(found: dict, label: str) -> html.Table | html.P:
    """Each chosen check on the correct layer and the buggy one, and whether it catches the bug."""
    if not found:
        return html.P(_("Tick a check above to run it on both layers."), className="small")
    rows = [html.Tr([html.Th(_(checks.CHECKS[name]), scope="row"), passes(correct), passes(buggy),
                     caught_cell(caught)]) for name, (correct, buggy, caught) in found.items()]
    return html.Table([html.Caption(_("The checks, run on both layers")),
                       html.Thead(html.Tr([html.Th(_("check"), scope="col"), html.Th(_("correct layer"), scope="col"),
                                           html.Th(_(LAYER_NAMES[label]), scope="col"),
                                           html.Th(_("the bug"), scope="col")])),
                       html.Tbody(rows)], className="table table-sm align-middle")


def catch_table(table: dict, which: tuple[str, ...], h: int) -> html.Table | str:
    """Which check catches which bug in this setting: one row a bug, one column a check."""
    if not which:
        return ""
    head = html.Tr([html.Th(_("bug"), scope="col")] + [html.Th(_(checks.CHECKS[c]), scope="col") for c in which])
    rows = [html.Tr([html.Th(_(bugs.BUG_NAMES[key]), scope="row")] + [caught_cell(found[c]) for c in which])
            for key, found in table.items()]
    return html.Table([html.Caption(_("Which check catches which bug, computed on this example (h = {h})")
                                    .format(h=h)),
                       html.Thead(head), html.Tbody(rows)], className="table table-sm align-middle")


def training_note(h: int) -> html.P:
    return html.P(_("Training every layer on the learning lab's task (h = {h}, {steps} steps each), away from this "
                    "page's requests: “still learns” joins the tables when they are done.")
                  .format(h=h, steps=checks.LEARNING_STEPS),
                  className="small", role="status")


def code(line: str) -> html.Pre:
    return html.Pre(html.Code(line), className="clinic-code")


def story(bug: bugs.Bug, caught: str, causal: bool) -> html.Div:
    """The bug: the correct line beside the wrong one, what it does, which check catches it, where it happened."""
    parts = [html.H3(_(bug.name)), html.P(_("The correct line:"), className="mb-1"), code(_(bug.correct)),
             html.P(_("The mistake:"), className="mb-1"), code(_(bug.wrong)), html.P(_(bug.effect))]
    if caught:
        parts.append(html.P(caught))
    parts.append(html.P([html.Strong(_("Where it happened:") + " "), _(bug.seen)]))
    if causal:
        reading, line = bugs.CAUSAL_NOTE
        parts += [html.H3(_("The correct causal mask")), html.P(_(reading)), code(line)]
    return html.Div(parts)


def mystery_note(number: int) -> html.Div:
    return html.Div([html.H3(_("Mystery {number}").format(number=number)),
                     html.P(_("The bug's name and its story are hidden. Run the checks, compare the heatmaps of the "
                              "two layers and their outputs, then name the bug below the checks' list."))])


def verdict(right: bool | None, why: str) -> html.Div:
    """The answer's verdict; `why` begins with it ("Right: …", "Not that one: …"); None when there is none."""
    return html.Div(why, className={True: "right", False: "wrong", None: ""}[right])


def path_names(i: int, r: int, j: int) -> dict[str, str]:
    """What each step of checks.PATH_STEPS is called, for head i (from 0), query r and key j."""
    sup, A, head = figures.head_sup(i), figures.head_label(i), i + 1
    # Translators: q⁽¹⁾_3, the query vector of token 3 in attention head 1
    return {"query": _("q{sup}_{r}, query {r} in head {head}").format(sup=sup, r=r, head=head),
            # Translators: k⁽¹⁾_3, the key vector of token 3 in attention head 1
            "key": _("k{sup}_{j}, key {j} in head {head}").format(sup=sup, j=j, head=head),
            "scale": _("the scale"), "logit": _("the scaled logit [{r}, {j}]").format(r=r, j=j),
            "weight": _("the weight {A}[{r}, {j}]").format(A=A, r=r, j=j),
            "row sum": _("row {r} of {A}, summed over the keys").format(r=r, A=A),
            # Translators: head₁'s row 3: attention head 1's output for query 3
            "head row": _("head{index}'s row {r}").format(index=str(head).translate(figures.SUBSCRIPT), r=r),
            "output row": _("output row {r}").format(r=r)}


# What it means when a step is the first to differ, claiming no more than the path compared: the step, never the
# bug, so mystery mode keeps its secret.
FIRST_DIFFERENCE = {  # translated where shown
    "query": N_("the heads' queries are cut from the projections differently"),
    "key": N_("the heads' keys are cut from the projections differently"),
    "scale": N_("the number in front of Q Kᵀ differs, so every logit is scaled differently"),
    "logit": N_("the query and the key are the same in both layers, but their logit is not: it pairs other vectors"),
    "weight": N_("this logit is the same, but its weight is not: the softmax gives it another share (a weight "
                 "depends on the other logits it is taken over, and on the axis it is taken along)"),
    "row sum": N_("this weight is the same, but the row's weights no longer add up to the same total"),
    "head row": N_("this weight and its row's sum are the same, but the head's output for the query is not: other "
                   "weights in the row, or the values they average, differ"),
    "output row": N_("this head's output for the query is the same, but the layer's is not: another head's output, "
                     "or the step from the concatenation to the output, differs"),
}


def number(value: np.ndarray) -> str:
    return f"{float(value):.3f}" if np.ndim(value) == 0 else vector(value)


def path(steps: list[checks.PathStep], i: int, r: int, j: int, label: str, anywhere: bool) -> html.Div:
    """The path to A^(i)_rj and output row r in both layers (checks.wrong_number_path), and a sentence on the
    first number that differs; `anywhere`: whether the two layers differ at all in this setting."""
    names = path_names(i, r, j)
    first = next((s for s in steps if s.differs), None)
    A, buggy = figures.head_label(i), _(LAYER_NAMES[label])
    if first is None and anywhere:
        said = _("On the way to {A}[{r}, {j}] and to output row {r}, every number is the same in both layers: at this "
                 "cell the bug changes nothing. Try another.").format(A=A, r=r, j=j)
    elif first is None:
        said = _("On the way to {A}[{r}, {j}] and to output row {r}, every number is the same in both layers: in this "
                 "setting the bug changes nothing at all.").format(A=A, r=r, j=j)
    else:
        # Translators: {layer} is "mystery layer" or "layer with the bug"; {meaning} says what the difference means
        said = _("On the way to {A}[{r}, {j}] and to output row {r}, the first number that differs is {name}: "
                 "{correct} in the correct layer, {buggy} in the {layer}. Every number before it is the same: "
                 "{meaning}.").format(A=A, r=r, j=j, name=names[first.step], correct=number(first.correct),
                                      buggy=number(first.buggy), layer=buggy,
                                      meaning=_(FIRST_DIFFERENCE[first.step]))
    rows = [html.Tr([html.Th(names[s.step], scope="row"), html.Td(number(s.correct)), html.Td(number(s.buggy)),
                     html.Td(_("differs") if s.differs else _("same"), className="fail" if s.differs else "pass")],
                    className="selected" if s is first else None) for s in steps]
    # Translators: head 1's attention weight [3, 1]: query 3, key 1
    caption = _("The numbers on the way to head {head}'s weight [{r}, {j}] and output row {r}, in the order the "
                "layer computes them").format(head=i + 1, r=r, j=j)
    table = html.Table([html.Caption(caption),
                        html.Thead(html.Tr([html.Th(_("number"), scope="col"), html.Th(_("correct layer"), scope="col"),
                                            html.Th(buggy, scope="col"), html.Th(_("in both"), scope="col")])),
                        html.Tbody(rows)], className="table table-sm align-middle drill-table")
    return html.Div([html.P(said, className="live-text"), table])
