"""The influence view's words and tables, built from the core's numbers (dashboard/explain.py): the sentence
that names the key whose rank moves most from weight to influence, the keys of one query under every measure,
the heads' effects, and the drill-down's path from a weight to its influence."""

from __future__ import annotations

import numpy as np
from dash import html

from .. import explain, figures
from ..figures.influence import influence_label
from .summary import as_shown, heads_named


def ordinal(k: int) -> str:
    k = int(k)
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def rho_text(rho: float) -> str:
    return "undefined (every key ties)" if np.isnan(rho) else f"{rho:+.2f}"


def top_key(ranks: np.ndarray) -> int:
    """The lowest key ranked 1st."""
    return int(np.flatnonzero(ranks == 1)[0])


def disagreement_text(q: explain.QueryRanking) -> str:
    """The key whose rank moves most between A^(i)_r. and N^(i)_r., and why: N = A × ‖v W_O‖."""
    i, r, j = q.head, q.query, q.mover
    n = q.values.shape[1]
    w_rank, n_rank = int(q.ranks[0, j]), int(q.ranks[1, j])
    A, N = figures.head_label(i), influence_label(i)
    agree = (f"Spearman's ρ between the two rankings: {rho_text(q.rho[0])}; the top keys "
             + ("match" if q.top_match[0] else
                f"differ (key {top_key(q.ranks[0])} by weight, key {top_key(q.ranks[1])} by influence)") + ".")
    if w_rank == n_rank:
        return (f"In head {i + 1}, for query {r}, every one of the {n} keys keeps its rank from weight to "
                f"influence. " + agree)
    weight, size, infl = q.values[0, j], q.value_size[j], q.values[1, j]
    others = q.value_size[q.passed]
    down = n_rank > w_rank
    keys = (f"the one key {'that passes it' if down else 'it passes'}, key {int(q.passed[0])}, has a "
            f"{'longer' if down else 'shorter'} one ({others[0]:.3f})") if len(others) == 1 else \
           (f"each of the {len(others)} keys {'that pass it' if down else 'it passes'} has a "
            f"{'longer' if down else 'shorter'} one ({others.min():.3f} to {others.max():.3f})")
    sup = figures.head_sup(i)
    return (f"In head {i + 1}, for query {r}, key {j} moves most: {ordinal(w_rank)} of {n} by weight "
            f"({A}[{r}, {j}] = {weight:.3f}) but {ordinal(n_rank)} by influence "
            f"({N}[{r}, {j}] = {weight:.3f} × {size:.3f} = {infl:.3f}). Its value through W_O is "
            f"{'short' if down else 'long'}, ‖v{sup}_{j} W_O{sup}‖ = {size:.3f}, and {keys}. " + agree)


def ranking_table(q: explain.QueryRanking, selected_key: int) -> html.Table:
    """Query r's keys under every measure, each value with its rank; the foot: how each pair agrees."""
    i, r = q.head, q.query
    header = [f"{figures.head_label(i)}[{r}, j]", f"{influence_label(i)}[{r}, j]", "mean A[r, j]", "N[r, j]",
              "leave j out", "grad × input"]
    body = []
    for j in range(q.values.shape[1]):
        marks = "selected" if j == selected_key else None
        name = [str(j)] + ([html.Span(" ↕", **{"aria-hidden": "true"}),
                            html.Span(" (moves most)", className="visually-hidden")] if j == q.mover else [])
        shown = [html.Td(f"{v:.3f} ({k})") for v, k in zip(q.values[:, j], q.ranks[:, j])]
        cells = [html.Th(name, scope="row"), *shown[:2], html.Td(f"{q.value_size[j]:.3f}"), *shown[2:]]
        body.append(html.Tr(cells, className=marks))
    rho = {pair: (q.rho[k], q.top_match[k]) for k, pair in enumerate(explain.PAIRS)}
    against = [None, rho[(0, 1)], None, rho[(2, 3)], rho[(2, 4)], rho[(2, 5)]]

    def foot(label, show):
        return html.Tr([html.Th(label, scope="row"), html.Td("—"), html.Td(show(against[1])), html.Td(""),
                        html.Td("—"), *(html.Td(show(a)) for a in against[3:])])
    return html.Table(
        [html.Caption(f"Query {r}: every key under each measure, rank in brackets (1 = largest); "
                      f"‖v W_O‖ is head {i + 1}'s. The foot compares each measure with the weight beside it "
                      f"(head {i + 1}'s for {influence_label(i)}, the mean over heads for the layer's)."),
         html.Thead(html.Tr([html.Th("key j", scope="col"), *(html.Th(t, scope="col") for t in header[:2]),
                             html.Th(f"‖v_j W_O{figures.head_sup(i)}‖", scope="col"),
                             *(html.Th(t, scope="col") for t in header[2:])])),
         html.Tbody(body),
         html.Tfoot([foot("Spearman's ρ", lambda a: rho_text(a[0])),
                     foot("same top key", lambda a: "yes" if a[1] else "no")])],
        className="table table-sm drill-table influence-ranking")


def head_text(entropy: np.ndarray, effect: explain.HeadEffect) -> str:
    """The sharpest heads (as shown: the summary beside it names the same) against the one whose removal
    changes the outputs most."""
    off, total = effect.switched_off.mean(-1), effect.total.mean(-1)  # (h,): mean over the outputs
    h = len(off)
    if h == 1:
        return (f"With one head, switching it off takes away the whole output: an output moves by {off[0]:.3f} "
                f"on average, while its keys' pieces add up to {total[0]:.3f} before they cancel. Its rows "
                f"carry {entropy[0]:.2f} bits.")
    bits, m = [as_shown(e) for e in entropy], int(np.argmax(off))
    sharpest = [i for i, b in enumerate(bits) if b == min(bits)]
    if len(sharpest) > 1:
        moves = " and ".join(f"{off[i]:.3f}" for i in sharpest)
        return (f"{heads_named([i + 1 for i in sharpest]).capitalize()} are the sharpest ({min(bits):.2f} bits a "
                f"row); switching each off moves an output by {moves} on average"
                + (f"; head {m + 1} matters most ({off[m]:.3f}, with {bits[m]:.2f} bits a row)." if m not in
                   sharpest else f": head {m + 1}, one of them, is also the one that matters most."))
    s = sharpest[0]
    place = 1 + int((off > off[s]).sum())
    return (f"Head {s + 1} is the sharpest ({entropy[s]:.2f} bits a row), and switching it off moves an output "
            f"by {off[s]:.3f} on average, the {ordinal(place)} largest change of the {h} heads"
            + (f"; head {m + 1} matters most ({off[m]:.3f}, with {entropy[m]:.2f} bits a row)." if m != s else
               ": here the sharpest head is also the one that matters most."))


def head_table(entropy: np.ndarray, effect: explain.HeadEffect, n: int) -> html.Table:
    off, total = effect.switched_off.mean(-1), effect.total.mean(-1)
    rows = [html.Tr([html.Th(f"head {i + 1}", scope="row"), html.Td(f"{e:.2f}"), html.Td(f"{t:.3f}"),
                     html.Td(f"{o:.3f}"), html.Td(f"{o / t:.0%}" if t > 0 else "—")])
            for i, (e, t, o) in enumerate(zip(entropy, total, off))]
    return html.Table(
        [html.Caption(f"Each head, averaged over the {n} outputs: its entropy (uniform attention: "
                      f"{np.log2(n):.2f} bits), its total influence Σⱼ N⁽ⁱ⁾, the change ‖Δ output‖ when it is "
                      "switched off, and how much of the total that is (the rest cancels)"),
         html.Thead(html.Tr([html.Th("head", scope="col"), html.Th("bits", scope="col"),
                             html.Th("Σⱼ N", scope="col"), html.Th("off", scope="col"), html.Th("kept", scope="col")])),
         html.Tbody(rows)],
        className="table table-sm drill-table influence-heads-table w-auto")


def cell_table(c: explain.CellInfluence, i: int, r: int, j: int) -> html.Div:
    """The drill-down's path from the weight A^(i)_rj to what key j adds to output r through head i."""
    s = figures.head_sup(i)
    vector = lambda v: "(" + ", ".join(f"{x:+.3f}" for x in v) + ")"  # noqa: E731
    rows = [("weight", f"A{s}[{r}, {j}]", f"{c.weight:.3f}", f"{ordinal(c.weight_rank)} of {c.n}"),
            ("value", f"v{s}_{j}", vector(c.value), ""),
            ("into the output", f"v{s}_{j} W_O{s}", vector(c.value_out), ""),
            ("its length", f"‖v{s}_{j} W_O{s}‖", f"{c.size:.3f}", ""),
            ("influence", f"N{s}[{r}, {j}] = weight × length", f"{c.weight:.3f} × {c.size:.3f} = {c.influence:.3f}",
             f"{ordinal(c.influence_rank)} of {c.n}")]
    return html.Div([
        html.Table(
            [html.Caption(f"What key {j} adds to output {r} through head {i + 1}: A{s}[{r}, {j}] v{s}_{j} W_O{s}"),
             html.Thead(html.Tr([html.Th("step", scope="col"), html.Th("quantity", scope="col"),
                                 html.Th("value", scope="col"), html.Th(f"rank in row {r}", scope="col")])),
             html.Tbody([html.Tr([html.Th(step, scope="row"), html.Td(name), html.Td(value, className="font-monospace"),
                                  html.Td(place)]) for step, name, value, place in rows])],
            className="table table-sm drill-table influence-path"),
    ], className="mt-3")
