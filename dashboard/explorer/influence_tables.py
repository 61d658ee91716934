"""The influence view's words and tables, built from the core's numbers (dashboard/explain.py): the sentence
that names the key whose rank moves most from weight to influence, the keys of one query under every measure,
the heads' effects, and the drill-down's path from a weight to its influence."""

from __future__ import annotations

import numpy as np
from dash import html

from .. import explain, figures, margins
from ..figures.influence import influence_label
from ..i18n import _, format_list, pgettext, sentences, vector
from .summary import heads_named


def rank_text(k: int, values: np.ndarray, margin: float, n: int) -> str:
    """The rank of values[k] in its row as a whole message: "rank 3 of 12", or, when other keys sit within `margin`
    of it, the ranks it could hold and that they are too close to tell (margins.py)."""
    best, worst = margins.rank_range(values, k, margin)
    if best == worst:
        # Translators: a key's rank in a row of attention keys, 1 the largest: "rank 3 of 12"
        return _("rank {rank} of {n}").format(rank=best, n=n)
    # Translators: a key's rank when other keys are within the margin of it: "ranks 2 to 5 of 12, too close to tell"
    return _("ranks {best} to {worst} of {n}, too close to tell").format(best=best, worst=worst, n=n)


def rho_text(rho: float) -> str:
    # Translators: Spearman's rank correlation is undefined when every attention key has the same value.
    return _("undefined (every key ties)") if np.isnan(rho) else f"{rho:+.2f}"


def top_key(ranks: np.ndarray) -> int:
    """The lowest key ranked 1st."""
    return int(np.flatnonzero(ranks == 1)[0])


def rank_ranges(q: explain.QueryRanking, j: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The ranks key j may hold by weight and by influence: a rank only past its margin (margins.WEIGHT;
    margins.SHARE of the row's influence), within it the ranks it could hold, too close to tell."""
    return (margins.rank_range(q.values[0], j, margins.WEIGHT),
            margins.rank_range(q.values[1], j, margins.SHARE * float(q.values[1].sum())))


def moving_key(q: explain.QueryRanking) -> int:
    """The key whose rank moves most (q.mover) when its ranks by weight and by influence are apart past the
    margins, else -1: the one decision the sentence and the table's mark both say."""
    j = q.mover
    if j < 0:
        return -1
    (w_best, w_worst), (n_best, n_worst) = rank_ranges(q, j)
    return -1 if w_best <= n_worst and n_best <= w_worst else j


def disagreement_text(q: explain.QueryRanking) -> str:
    """The key whose rank moves most between A^(i)_r. and N^(i)_r., and why: N = A × ‖v W_O‖."""
    i, r, j = q.head, q.query, q.mover
    n = q.values.shape[1]
    w_rank, n_rank = (int(q.ranks[0, j]), int(q.ranks[1, j])) if j >= 0 else (0, 0)
    A, N = figures.head_label(i), influence_label(i)
    # Translators: two rankings of the attention keys, by attention weight and by influence.
    tops_clear = (margins.compare(q.values[0], margins.WEIGHT).clear
                  and margins.compare(q.values[1], margins.SHARE * float(q.values[1].sum())).clear)
    if not tops_clear:  # a top key is named only past its margin
        agree = _("Spearman's ρ between the two rankings: {rho}; the top key by weight or by influence is too close "
                  "to the next to tell.")
    elif q.top_match[0]:
        agree = _("Spearman's ρ between the two rankings: {rho}; the top keys match.")
    else:
        agree = _("Spearman's ρ between the two rankings: {rho}; the top keys differ (key {by_weight} by weight, key "
                  "{by_influence} by influence).")
    agree = agree.format(rho=rho_text(q.rho[0]), by_weight=top_key(q.ranks[0]), by_influence=top_key(q.ranks[1]))
    if w_rank == n_rank:
        # Translators: attention head {head}, query {r}; "keys" are attention keys; {share} as "5%"
        return sentences(_("In head {head}, for query {r}, every key that carries at least {share:.0%} of the row's "
                           "influence keeps its rank from weight to influence.").format(
                               head=i + 1, r=r, share=margins.SHARE), agree)
    weight, size, infl = q.values[0, j], q.value_size[j], q.values[1, j]
    others = q.value_size[q.passed]
    sup = figures.head_sup(i)
    weight_said = f"{A}[{r}, {j}] = {weight:.3f}"
    influence_said = f"{N}[{r}, {j}] = {weight:.3f} × {size:.3f} = {infl:.3f}"
    (w_best, w_worst), (n_best, n_worst) = rank_ranges(q, j)
    # Translators: {weight} is a formula, as A⁽¹⁾[2, 5] = 0.300; a rank among the {n} attention keys, 1 the largest
    by_weight = (_("rank {rank} of {n} by weight ({weight})") if w_best == w_worst else
                 _("ranks {best} to {worst} of {n} by weight ({weight}), too close to tell")).format(
                     rank=w_best, best=w_best, worst=w_worst, n=n, weight=weight_said)
    # Translators: {influence} is a formula, as N⁽¹⁾[2, 5] = 0.300 × 0.812 = 0.244
    by_influence = (_("rank {rank} by influence ({influence})") if n_best == n_worst else
                    _("ranks {best} to {worst} by influence ({influence}), too close to tell")).format(
                        rank=n_best, best=n_best, worst=n_worst, influence=influence_said)
    if moving_key(q) < 0:  # the ranks it may hold by weight and by influence overlap
        # Translators: as the message below, for a key whose move is within the margins: {by_weight} and
        # {by_influence} are its ranges of ranks, as the messages above say them
        return sentences(_("In head {head}, for query {r}, among the keys that carry at least {share:.0%} of the "
                           "row's influence, key {j} changes rank most, but its ranks by weight and by influence "
                           "overlap within the margins: {by_weight}; {by_influence}.").format(
                               share=margins.SHARE, head=i + 1, r=r, j=j, by_weight=by_weight,
                               by_influence=by_influence), agree)
    # Translators: {share} as "5%": the keys that carry at least that share of the row's influence ΣⱼN; {by_weight}
    # and {by_influence} are the key's two ranks, as the messages above say them
    moves = _("In head {head}, for query {r}, among the keys that carry at least {share:.0%} of the row's influence, "
              "key {j} moves most: {by_weight} but {by_influence}.").format(
                  share=margins.SHARE, head=i + 1, r=r, j=j, by_weight=by_weight, by_influence=by_influence)
    # Translators: {size} is a formula, ‖v⁽¹⁾_5 W_O⁽¹⁾‖ = 0.812: the length of an attention key's value; "it" is
    # that key.
    if n_rank > w_rank and len(others) == 1:
        why = _("Its value through W_O is short, {size}, and the one key that passes it, key {k}, has a longer one "
                "({other:.3f}).")
    elif n_rank > w_rank:
        why = _("Its value through W_O is short, {size}, and each of the {count} keys that pass it has a longer one "
                "({low:.3f} to {high:.3f}).")
    elif len(others) == 1:
        why = _("Its value through W_O is long, {size}, and the one key it passes, key {k}, has a shorter one "
                "({other:.3f}).")
    else:
        why = _("Its value through W_O is long, {size}, and each of the {count} keys it passes has a shorter one "
                "({low:.3f} to {high:.3f}).")
    why = why.format(size=f"‖v{sup}_{j} W_O{sup}‖ = {size:.3f}", k=int(q.passed[0]), other=others[0],
                     count=len(others), low=others.min(), high=others.max())
    return sentences(moves, why, agree)


def ranking_table(q: explain.QueryRanking, selected_key: int) -> html.Table:
    """Query r's keys under every measure, each value with its rank; the foot: how each pair agrees."""
    i, r = q.head, q.query
    # Translators: table columns: the mean attention weight over the heads, leaving attention key j out, and the
    # gradient times the input.
    header = [f"{figures.head_label(i)}[{r}, j]", f"{influence_label(i)}[{r}, j]", _("mean A[r, j]"), "N[r, j]",
              _("leave j out"), _("grad × input")]
    body, mover = [], moving_key(q)
    for j in range(q.values.shape[1]):
        marks = "selected" if j == selected_key else None
        name = [str(j)] + ([html.Span(" ↕", **{"aria-hidden": "true"}),
                            html.Span(" " + _("(moves most)"), className="visually-hidden")]
                           if j == mover else [])
        shown = [html.Td(f"{v:.3f} ({k})") for v, k in zip(q.values[:, j], q.ranks[:, j])]
        cells = [html.Th(name, scope="row"), *shown[:2], html.Td(f"{q.value_size[j]:.3f}"), *shown[2:]]
        body.append(html.Tr(cells, className=marks))
    rho = {pair: (q.rho[k], q.top_match[k]) for k, pair in enumerate(explain.PAIRS)}
    against = [None, rho[(0, 1)], None, rho[(2, 3)], rho[(2, 4)], rho[(2, 5)]]

    def foot(label, show):
        return html.Tr([html.Th(label, scope="row"), html.Td("—"), html.Td(show(against[1])), html.Td(""),
                        html.Td("—"), *(html.Td(show(a)) for a in against[3:])])
    return html.Table(
        # Translators: a table's caption: attention query {r}, its keys, attention head {head}.
        [html.Caption(_("Query {r}: every key under each measure, rank in brackets (1 = largest); ‖v W_O‖ is head "
                        "{head}'s. The foot compares each measure with the weight beside it (head {head}'s for {N}, "
                        "the mean over heads for the layer's).").format(r=r, head=i + 1, N=influence_label(i))),
         # Translators: an attention key j.
         html.Thead(html.Tr([html.Th(_("key j"), scope="col"), *(html.Th(t, scope="col") for t in header[:2]),
                             html.Th(f"‖v_j W_O{figures.head_sup(i)}‖", scope="col"),
                             *(html.Th(t, scope="col") for t in header[2:])])),
         html.Tbody(body),
         html.Tfoot([foot(_("Spearman's ρ"), lambda a: rho_text(a[0])),
                     # Translators: whether two measures rank the same attention key first.
                     foot(_("same top key"),
                          # Translators: the answers in the row "same top key".
                          lambda a: _("yes") if a[1] else _("no"))])],
        className="table table-sm drill-table influence-ranking")


def head_text(entropy: np.ndarray, effect: explain.HeadEffect) -> str:
    """The sharpest heads (as shown: the summary beside it names the same) against the one whose removal
    changes the outputs most."""
    off, total = effect.switched_off.mean(-1), effect.total.mean(-1)  # (h,): mean over the outputs
    h = len(off)
    if h == 1:
        # Translators: one attention head; its rows' entropy in bits.
        return _("With one head, switching it off takes away the whole output: an output moves by {off:.3f} on "
                 "average, while its keys' pieces add up to {total:.3f} before they cancel. Its rows carry "
                 "{bits:.2f} bits.").format(off=off[0], total=total[0], bits=entropy[0])
    # The sharpest by margins.BITS, as the summary beside it; "matters most" by margins.SHARE of the largest change.
    sharp = margins.compare(entropy, margins.BITS, lower_is_better=True)
    most = margins.compare(off, margins.SHARE * float(off.max()))
    s, m = sharp.best, most.best
    if sharp.clear:
        # Translators: attention head {s}; its rows' entropy in bits; the mean change of an output when it is off
        first = _("Head {s} is the sharpest ({bits:.2f} bits a row); switching it off moves an output by {off:.3f} on "
                  "average.").format(s=s + 1, bits=entropy[s], off=off[s])
    else:
        close = sorted(sharp.close)
        # Translators: {heads} names attention heads, as "heads 1, 2, and 4"; {bits}: "2.41, 2.42, and 2.44"
        first = _("No head is clearly the sharpest: {heads} carry {bits} bits a row, within {margin} bits of each "
                  "other.").format(heads=heads_named([k + 1 for k in close]), margin=margins.BITS,
                                   bits=format_list([f"{entropy[k]:.2f}" for k in close]))
    if most.clear and sharp.clear and m == s:
        # Translators: {share} as "5%": no other attention head's change comes that close to the largest
        second = _("Here the sharpest head is also the one that matters most: no other head's change comes within "
                   "{share:.0%} of it.").format(share=margins.SHARE)
    elif most.clear:
        second = _("Head {m} matters most ({m_off:.3f} on average, with {m_bits:.2f} bits a row): no other head's "
                   "change comes within {share:.0%} of it.").format(m=m + 1, m_off=off[m], m_bits=entropy[m],
                                                                   share=margins.SHARE)
    else:
        close = sorted(most.close)
        # Translators: {heads} names attention heads; {moves}: "0.120 and 0.124"; {share} as "5%"
        second = _("No head clearly matters most: switching off {heads} moves an output by {moves} on average, "
                   "within {share:.0%} of the largest.").format(heads=heads_named([k + 1 for k in close]),
                                                               moves=format_list([f"{off[k]:.3f}" for k in close]),
                                                               share=margins.SHARE)
    return sentences(first, second)


def head_table(entropy: np.ndarray, effect: explain.HeadEffect, n: int) -> html.Table:
    off, total = effect.switched_off.mean(-1), effect.total.mean(-1)
    # Translators: an attention head's name, "head 2".
    rows = [html.Tr([html.Th(_("head {k}").format(k=i + 1), scope="row"), html.Td(f"{e:.2f}"), html.Td(f"{t:.3f}"),
                     html.Td(f"{o:.3f}"), html.Td(f"{o / t:.0%}" if t > 0 else "—")])
            for i, (e, t, o) in enumerate(zip(entropy, total, off))]
    return html.Table(
        [html.Caption(_("Each head, averaged over the {n} outputs: its entropy (uniform attention: {uniform:.2f} "
                        "bits), its total influence Σⱼ N⁽ⁱ⁾, the change ‖Δ output‖ when it is switched off, and how "
                        "much of the total that is (the rest cancels)").format(n=n, uniform=np.log2(n))),
         # Translators: columns: an attention head, its entropy in bits, the change when it is switched off, and
         # the share of its total influence that is kept.
         html.Thead(html.Tr([html.Th(_("head"), scope="col"), html.Th(_("bits"), scope="col"),
                             html.Th("Σⱼ N", scope="col"), html.Th(_("off"), scope="col"),
                             html.Th(_("kept"), scope="col")])),
         html.Tbody(rows)],
        className="table table-sm drill-table influence-heads-table w-auto")


def cell_table(c: explain.CellInfluence, i: int, r: int, j: int, weights: np.ndarray,
               influences: np.ndarray) -> html.Div:
    """The drill-down's path from the weight A^(i)_rj to what key j adds to output r through head i; `weights` and
    `influences` are row r's A^(i)_r. and N^(i)_r., for the ranks (too close to tell within the margins)."""
    s = figures.head_sup(i)
    weight_rank = rank_text(j, weights, margins.WEIGHT, c.n)
    influence_rank = rank_text(j, influences, margins.SHARE * float(np.sum(influences)), c.n)
    # Translators: the steps from an attention weight to its influence: the weight, the key's value (its vector),
    # that value written into the output, its length, and the influence = weight × length.
    rows = [(_("weight"), f"A{s}[{r}, {j}]", f"{c.weight:.3f}", weight_rank),
            # Translators: attention's value vector v (not a number)
            (pgettext("a value vector", "value"), f"v{s}_{j}", vector(c.value), ""),
            (_("into the output"), f"v{s}_{j} W_O{s}", vector(c.value_out), ""),
            (_("its length"), f"‖v{s}_{j} W_O{s}‖", f"{c.size:.3f}", ""),
            (_("influence"), _("{N} = weight × length").format(N=f"N{s}[{r}, {j}]"),
             f"{c.weight:.3f} × {c.size:.3f} = {c.influence:.3f}", influence_rank)]
    return html.Div([
        html.Table(
            # Translators: attention key {j}, output (query) {r}, attention head {head}; {formula} is math.
            [html.Caption(_("What key {j} adds to output {r} through head {head}: {formula}").format(
                j=j, r=r, head=i + 1, formula=f"A{s}[{r}, {j}] v{s}_{j} W_O{s}")),
             # Translators: columns: a step of the path, the quantity's formula, its number,
             # and its rank in row {r} of the matrix.
             html.Thead(html.Tr([html.Th(_("step"), scope="col"), html.Th(_("quantity"), scope="col"),
                                 html.Th(_("value"), scope="col"),
                                 html.Th(_("rank in row {r}").format(r=r), scope="col")])),
             html.Tbody([html.Tr([html.Th(step, scope="row"), html.Td(name), html.Td(value, className="font-monospace"),
                                  html.Td(place)]) for step, name, value, place in rows])],
            className="table table-sm drill-table influence-path"),
    ], className="mt-3")


def head_effect_intro() -> str:
    """The paragraph above the heads' table (explorer/influence.py): Σⱼ N is an upper bound, not what a head moves."""
    return _("Each head's total influence on output r, Σⱼ N⁽ⁱ⁾_rj, is an upper bound on what it moves there: the "
             "sum of the lengths of its keys' pieces. Switching the head off (head_i = 0, as in the learning lab's "
             "surgery) changes output r by ‖(head_i W_O⁽ⁱ⁾)_r‖, the length of their sum, which is smaller where the "
             "pieces point different ways and cancel. A head can attend sharply, with a low entropy, and still "
             "matter little.")


def agreement_table(q: explain.QueryRanking) -> html.Table:
    """The layer's three measures against each other for query r: Spearman's ρ of each pair and the key each
    names first (or "too close to tell" when its top key does not beat the next by margins.SHARE of the row)."""
    a = explain.agreement(q)
    # Translators: the layer's three influence measures: N, leaving attention key j out, gradient times input
    names = ["N[r, j]", _("leave j out"), _("grad × input")]
    values = q.values[list(explain.LAYER_MEASURES)]

    def top(k: int) -> str:
        if a.clear[k]:
            return _("key {key}").format(key=int(a.top[k]))
        # Translators: {key} leads the measure, but not by the stated margin {share} (as "5%")
        return _("key {key}, too close to tell (within {share:.0%} of the row)").format(key=int(a.top[k]),
                                                                                      share=margins.SHARE)
    rows = [html.Tr([html.Th(name, scope="row"), *(html.Td(rho_text(a.rho[k, m])) for m in range(3)),
                     html.Td(top(k)), html.Td(f"{values[k, a.top[k]] / values[k].sum():.0%}")])
            for k, name in enumerate(names)]
    # Translators: a table's caption: three ways to measure a key's influence answer three different questions
    caption = _("Query {r}: the layer's three measures against each other. They answer different questions (how "
                "long a key's piece is, what removing it changes, how the output moves with it), not one truth: "
                "Spearman's ρ of each pair, and the key each ranks first with its share of the row.").format(
                    r=q.query)
    head = [html.Th(_("measure"), scope="col"), *(html.Th(name, scope="col") for name in names),
            html.Th(_("top key"), scope="col"), html.Th(_("its share"), scope="col")]
    return html.Table([html.Caption(caption), html.Thead(html.Tr(head)), html.Tbody(rows)],
                      className="table table-sm drill-table influence-agreement")
