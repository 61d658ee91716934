"""Class-mode questions about the explorer's state, with their truth from the core, and their results.

A question is the store's pose() arguments: kind, truth, prompt, h, seed, view, and head i, query r,
key j or the number of options. Students see the prompt and the example (never the truth); after the
reveal the projector shows the class's answers as bars beside the truth, and the drill-down of the weight.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from dash import dcc, html

from .. import attention as core
from .. import explain, figures, limits, trainer, training
from ..figures import example as example_fig
from ..figures import learning as learning_fig
from ..state import Setting, learned_attention, model
from ..tables import bar, explanation

KINDS = {"key": "Which key?", "amount": "How much?", "head": "Which head? (learning lab)",
         "floor": "Below the line? (learning lab)"}
BINS = 10  # a "How much?" histogram's bars, 0.1 wide


def answers(count: int) -> str:
    return f"{count} answer{'s' if count != 1 else ''}"


def option_label(view: str, kind: str, k) -> str:
    """How answer k of a question reads: key k, head k + 1, no/yes, or an amount."""
    if kind == "amount":
        return f"{k:.2f}"
    return ("no", "yes")[k] if view == "learning_floor" else f"head {k + 1}" if kind == "head" else f"key {k}"


def question(kind: str, h, seed, head, query, key, train_seed) -> tuple[dict | None, str]:
    """The store's pose() arguments for a question about this state, with the truth from the core;
    or (None, message)."""
    if kind in ("key", "amount"):
        s = Setting(limits.heads(h), limits.seed(seed))
        cell, message = limits.cell(head, query, key if kind == "amount" else 0, s.h, s.n)
        if cell is None:
            return None, message
        i, r, j = cell
        A = model(s)[1].A
        common = {"h": s.h, "seed": s.seed, "view": "example", "head": i, "query": r}
        if kind == "key":
            return {**common, "kind": "key", "n": s.n, "truth": int(A[i, r].argmax()),
                    "prompt": f"In head {i + 1}, which key will query {r} attend to most?"}, ""
        return {**common, "kind": "amount", "key": j, "truth": float(A[i, r, j]),
                "prompt": f"How large is {figures.head_label(i)}[{r}, {j}], the weight query {r} gives key {j} in head "
                          f"{i + 1}? (0 to 1)"}, ""
    seed = limits.training_seed(train_seed)
    runs = trainer.training_runs(seed, wait=False)
    if runs is None:
        return None, f"Training seed {seed} is training: pose again in a moment."
    if kind == "floor":
        return {"kind": "head", "view": "learning_floor", "n": 2, "h": 1, "seed": seed,
                "truth": int(runs[1].test_loss < training.SINGLE_MIXING_FLOOR),
                "prompt": "Training one head (h = 1): will its test loss end below the dashed line, 3/8, the least "
                          "error of any mixing that does not depend on the input?"}, ""
    h = limits.heads(h)
    if h == 1:
        return None, "Which head? needs h = 2, 4 or 8."
    own = learned_attention(h, seed, len(limits.TRAINING_STEPS) - 1)[1]
    return {"kind": "head", "view": "learning", "n": h, "h": h, "seed": seed, "truth": int(own.argmax()),
            "prompt": f"After training with h = {h} heads: which head carries the own-cluster mixing "
                      "(puts most attention on the query's own cluster)?"}, ""


@lru_cache(maxsize=len(limits.SEEDS))
def question_figure(view: str, seed: int) -> dict:
    """What students see beside a question, never its answer: the tokens, or the learning task."""
    if view == "example":  # the tokens' scatter, the left panel of the worked example's token figure
        ex = core.worked_example(seed, limits.DEFAULT_SIZE)
        fig = example_fig.token_views(ex.X, ex.cluster)
        layout = {k: v for k, v in fig["layout"].items() if k not in ("xaxis2", "yaxis2")}
        layout.update(xaxis={**layout["xaxis"], "domain": [0, 1]}, yaxis={**layout["yaxis"], "domain": [0, 1]},
                      annotations=[{**layout["annotations"][0], "x": 0.5, "y": 1}])
        return {"data": [t for t in fig["data"] if t["type"] == "scatter"], "layout": layout}
    return learning_fig.target_mixing_figure(*training.target_mixings())


def question_example(view: str, seed: int) -> list:
    """The question's figure with its text alternative."""
    text = (f"The {core.N_TOKENS} tokens of seed {seed}, each a point numbered by its index, in the plane of X's first two "
            "principal directions, coloured and shaped by cluster." if view == "example" else
            "The learning task: features 0–3 should mix each token's own cluster, features 4–7 the next "
            "cluster; one attention matrix cannot be both.")
    return [dcc.Graph(figure=question_figure(view, seed), config=figures.GRAPH_CONFIG),
            html.P(text, className="small text-body-secondary")]


def results_view(q: dict) -> html.Div:
    """The class's answers as bars (a table, so screen readers read the counts), the truth, and for an
    attention weight its drill-down."""
    if q["kind"] == "amount":
        counts = np.histogram(q["values"], bins=BINS, range=(0, 1))[0].tolist()
        labels = [f"{k / BINS:.1f}–{(k + 1) / BINS:.1f}" for k in range(BINS)]
        true_bar = min(int(q["truth"] * BINS), BINS - 1)
        middle = f" The class's median: {np.median(q['values']):.2f}." if q["values"] else ""
        summary = f"{answers(q['count'])}. The answer: {q['truth']:.3f}.{middle}"
    else:
        counts, true_bar = q["counts"], q["truth"]
        labels = [option_label(q["view"], q["kind"], k) for k in range(q["n"])]
        summary = (f"{answers(q['count'])}. The answer: {labels[true_bar]}, chosen by {counts[true_bar]} of "
                   f"{q['count']}.")
    most = max(counts) or 1
    rows = [html.Tr([html.Th(label, scope="row"), html.Td(str(c)), html.Td(bar(c, most, signed=False)),
                     html.Td("← the answer" if k == true_bar else "")], className="truth" if k == true_bar else None)
            for k, (label, c) in enumerate(zip(labels, counts))]
    table = html.Table([html.Caption("The class's answers"),
                        html.Thead(html.Tr([html.Th("answer", scope="col"), html.Th("students", scope="col"),
                                            html.Th(html.Span("bar", className="visually-hidden"), scope="col"),
                                            html.Th(html.Span("truth", className="visually-hidden"), scope="col")])),
                        html.Tbody(rows)], className="table table-sm class-bars")
    parts = [html.P(summary, className="class-summary"), table]
    if q["view"] == "example":
        s = Setting(q["h"], q["seed"])
        ex, result = model(s)
        i, r = q["head_index"], q["query_index"]
        j = q["truth"] if q["kind"] == "key" else q["key_index"]
        parts += [html.H4(f"Why: the weight of key {j} for query {r} in head {i + 1}", className="h5"),
                  explanation(explain.cell_path(ex.X, result, i, r, j), i, r, j)]
    return html.Div(parts)
