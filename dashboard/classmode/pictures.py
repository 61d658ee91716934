"""Class mode's figures, built with dashboard/figures, each with its text alternative: what students see beside
a question (never its answer), and at the reveal the explorer's figure that explains the truth: the head's
heatmap with the cell outlined, every head's heatmap beside their entropies or masses, the row before and after
τ doubles, the layer's influence with the answer outlined, or the loss curve with the dashed line."""

from __future__ import annotations

import numpy as np
from dash import dcc, html

from .. import attention as core
from .. import bugs, checks, explain, figures, i18n, trainer, training
from ..figures import clinic as clinic_fig
from ..figures import example as example_fig
from ..figures import influence as influence_fig
from ..figures import learning as learning_fig
from ..i18n import _
from ..state import Setting, bug_layers, learned_attention, model, tokens
from ..tables import bar
from ..questions import LAST, entropy_bits

PROJECTOR = figures.Display(lecture=True)  # the reveal's Why, across the projector
ON_STAGE = figures.Display(lecture=True, half=True)  # the question's figure on the projector, beside the question
TWO_A_ROW = figures.Display(narrow=True)  # for a student's phone


def setting(q: dict) -> Setting:
    """The stored setting of a question on the worked example (checked when it was posed)."""
    return Setting(q["h"], q["seed"], q["size"], q["scale"], q["tau"], q["weights"])


def graph(figure: dict, text: str) -> list:
    return [dcc.Graph(figure=figure, config=figures.graph_config()),
            html.P(text, className="small text-body-secondary")]


@i18n.lru_cache(maxsize=64)
def _tokens_figure(weights: str, seed: int, size: int, display: figures.Display) -> dict:
    X, cluster = tokens(weights, seed, size)
    fig = example_fig.token_views(X, cluster, display, centres=True)
    layout = {k: v for k, v in fig["layout"].items() if k not in ("xaxis2", "yaxis2")}
    y = example_fig.centres_plane(X, cluster)[:, 1]  # the points' heights, as token_views plots them
    span = float(np.ptp(y)) or 1.0
    # room above the top point for its number (drawn above it), which would otherwise run into the title
    y_range = [float(y.min()) - 0.08 * span, float(y.max()) + 0.16 * span]
    layout.update(xaxis={**layout["xaxis"], "domain": [0, 1]},
                  yaxis={**layout["yaxis"], "domain": [0, 1], "range": y_range},
                  annotations=[{**layout["annotations"][0], "x": 0.5, "y": 1}])
    return {"data": [t for t in fig["data"] if t["type"] == "scatter"], "layout": layout}


def question_example(q: dict, display: figures.Display = TWO_A_ROW) -> list:
    """What students see beside a question, on a phone (TWO_A_ROW) and on the projector's stage (ON_STAGE): what
    they need to reason, never the answer. The layer with the bug (its attention and the checks' verdicts, never its
    name); the trained heads' attention (which head?); the start of the training curve with the line (below the
    line?); every head's attention (sharpest?); the head's attention with the query's row outlined (τ doubles?);
    each key's weight and value length in every head (which key matters most?); the tokens of the example (which
    key? how much?)."""
    template = q["template"]
    if template == "bug":
        return buggy_layer(setting(q), q["bug"], display)
    if template == "role":
        A = learned_attention(q["h"], q["seed"], LAST)[0]
        return graph(example_fig.attention_heatmaps(A, display),
                     _("The {h} trained heads' attention on one input of the task: rows are queries, columns keys, "
                       "tokens 0–3, 4–7 and 8–11 are the three clusters.").format(h=q["h"]))
    if template == "floor":
        return training_start(q["seed"], display)
    if template in ("sharpest", "entropy", "influence"):
        s = setting(q)
        ex, result = model(s)
        if template == "sharpest":
            return graph(example_fig.attention_heatmaps(result.A, display),
                         # the colours run dark to light on a light page and the other way on a dark one: no colour
                         _("Every head's attention, rows are queries and columns keys: a sharp head puts a row's "
                           "weight on a few cells. Uniform rows have log2 {n} = {bits:.2f} bits.").format(
                             n=s.n, bits=np.log2(s.n)))
        if template == "entropy":
            i, r = q["head_index"], q["query_index"]
            fig = figures.heatmap_grid([result.A[i]], [figures.head_title(i)], max_cols=1, display=display)
            fig["layout"]["shapes"] = [row_outline(0, r, s.n)]
            return graph(fig, _("Head {head}'s attention now, query {query}'s row outlined: rows are queries, columns "
                                "keys.").format(head=i + 1, query=r))
        return [weights_and_lengths(explain.influence(result, ex.W_O), result.A, q["query_index"])]
    if q["weights"] == "trained":
        text = _("The {n} tokens of an input of the learning lab's task, each a point numbered by its index, in the "
                 "plane through the three clusters' centres, coloured and shaped by cluster.")
    else:
        text = _("The {n} tokens of seed {seed}, each a point numbered by its index, in the plane through the three "
                 "clusters' centres, coloured and shaped by cluster.")
    # a phone gets the desktop's layout: the narrow one puts the legend where _tokens_figure's one plane has points
    tokens_display = figures.DESKTOP if display.narrow else display
    return graph(_tokens_figure(q["weights"], q["seed"], q["size"], tokens_display),
                 text.format(n=3 * q["size"], seed=q["seed"]))


def weights_and_lengths(infl: explain.Influence, A: np.ndarray, r: int) -> html.Div:
    """Per key (rows) and head (columns): the weight query r gives the key, over the length ‖v_j W_O‖ of what the
    key's value adds through W_O. What key j adds to output r is the sum over the heads of weight times that
    vector; the lengths bound it. Not N itself: that is the answer."""
    h, n = A.shape[0], A.shape[-1]
    head = [html.Th(_("key"), scope="col")] + [html.Th(str(i + 1), scope="col") for i in range(h)]
    rows = [html.Tr([html.Th(str(j), scope="row")] + [
        html.Td([f"{A[i, r, j]:.2f}", html.Br(), html.Span(f"{infl.value_size[i, j]:.2f}", className="length")])
        for i in range(h)]) for j in range(n)]
    caption = _("Query {r}'s row: for each key, in each head (columns 1 to {h}), its weight (top) and the length "
                "of its value through W_O (below).").format(r=r, h=h)
    return html.Div(html.Table([html.Caption(caption), html.Thead(html.Tr(head)), html.Tbody(rows)],
                               className="table table-sm class-lengths"), className="class-lengths-box")


def training_start(seed: int, display: figures.Display) -> list:
    """The first quarter of one head's training curve with the dashed line at 3/8; where it ends is the answer."""
    run = trainer.training_runs(seed)[1]
    steps = len(run.losses) // 4
    fig = learning_fig.loss_curves({1: (run.losses[:steps], float("nan"))}, training.SINGLE_MIXING_FLOOR, display)
    for note in fig["layout"]["annotations"]:  # the panel's title: no test loss, the run has not ended
        if note["text"].startswith("<b>h = 1</b>"):
            note["text"] = "<b>h = 1</b>"
    around_the_line(fig, run.losses[:steps], display)
    return graph(fig, _("The training loss of one head (h = 1), step by step, on a log scale, for its first {steps} "
                        "of {total} steps; the dashed line at 3/8 = 0.375.").format(steps=steps, total=len(run.losses)))


def around_the_line(fig: dict, losses: np.ndarray, display: figures.Display) -> None:
    """One head's loss curve on a log axis from a little under the lower of the curve and the line at 3/8 to a little
    over the curve, and on the projector taller: the learning tab's axis (0.005 to 1.6, for curves that reach 0.01)
    drew a loss of 0.354 2 px under the line at 0.375 on the projector, where the question is which side it ends."""
    floor = training.SINGLE_MIXING_FLOOR
    if display.lecture:
        fig["layout"]["height"] = 480
    # below the lowest a band as deep as a tick label, so that the lowest tick clears the step axis' "0"
    lo, hi = min(float(np.min(losses)), floor) / 1.3, max(float(np.max(losses)), floor) * 1.15
    ticks = [t for t in (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3) if lo <= t <= hi]
    fig["layout"]["yaxis"].update(range=[float(np.log10(lo)), float(np.log10(hi))], tickvals=ticks,
                                  ticktext=[f"{t:g}" for t in ticks])


@i18n.lru_cache(maxsize=64)
def buggy_layer(s: Setting, bug_key: str, display: figures.Display) -> list:
    layers = bug_layers(s, bug_key, causal=False)
    ex, wrong, zmax = layers.ex, layers.buggy, layers.zmax
    found = checks.verdicts(ex, bugs.BUGS_BY_KEY[bug_key])
    rows = [html.Tr([html.Th(_(checks.CHECKS[name]), scope="row"), html.Td(_("passes") if v.passed else _("fails")),
                     html.Td(v.detail)]) for name, v in found.items()]
    columns = (_("check"), _("verdict"), _("what it found"))
    table = html.Table([html.Caption(_("The checks, run on this layer")),
                        html.Thead(html.Tr([html.Th(c, scope="col") for c in columns])),
                        html.Tbody(rows)], className="table table-sm")
    if display.half:  # beside the question on the projector, the panels are titled by head alone: four titles
        # "head 1, this layer" a row would run into each other at its size, and the sentence below names the layer
        fig = figures.heatmap_grid(wrong.A, [figures.head_title(i) for i in range(len(wrong.A))], zmax=zmax,
                                   display=display)
    else:
        fig = clinic_fig.layer_heatmaps(wrong.A, _("this layer"), zmax, display)
    return graph(fig,
                 _("The attention of the layer with the bug, head by head, on the scale of the correct layer's "
                   "(largest weight {zmax:.2f}).").format(zmax=zmax)) + [table]


def row_outline(p: int, r: int, n: int) -> dict:
    return {**figures.cell_outline(p, r, 0), "x0": -0.5, "x1": n - 0.5}


def number_table(caption: str, names: list[str], values, unit: str, marked: list[int], kind: str) -> html.Table:
    """Per head (or key), a number with its bar; the accepted ones marked. The words come translated."""
    largest = max(float(np.max(values)), 1e-9)
    # the answers' table beside it marks the right answers with the same words (results.results_view)
    return html.Table(
        [html.Caption(caption), html.Thead(html.Tr([html.Th(kind, scope="col"), html.Th(unit, scope="col"),
                                                    html.Th(html.Span(_("bar"), className="visually-hidden"),
                                                            scope="col"),
                                                    html.Th(html.Span(_("right?"), className="visually-hidden"),
                                                            scope="col")])),
         html.Tbody([html.Tr([html.Th(name, scope="row"), html.Td(f"{v:.3f}"), html.Td(bar(v, largest, signed=False)),
                              html.Td(_("← right") if k in marked else "")], className="truth" if k in marked else None)
                     for k, (name, v) in enumerate(zip(names, values))])],
        className="table table-sm class-bars")


# At the reveal the stage shows the Why figure, and the question's figure only where the Why is to be held beside
# it: the buggy layer under the correct one. Every other question's figure is in its Why again, larger (every head's
# attention, the row beside τ doubled, the whole training curve), or is what the Why explains (the tokens, the
# weights and lengths), and under it would run past a 1080 px projector's fold.
KEPT_AT_REVEAL = frozenset({"bug"})


def why(q: dict) -> list:
    """The figure that explains a revealed question's truth, with its text alternative."""
    template = q["template"]
    if template == "floor":
        run = trainer.training_runs(q["seed"])[1]
        fig = learning_fig.loss_curves({1: (run.losses, run.test_loss)}, training.SINGLE_MIXING_FLOOR, PROJECTOR)
        around_the_line(fig, np.append(run.losses, run.test_loss), PROJECTOR)
        # where it ends, the answer: the test loss as a point after the last step (the panel's title gives it: text
        # beside the point would run into the line's label)
        fig["data"].append({"type": "scatter", "mode": "markers", "x": [len(run.losses)], "y": [run.test_loss],
                            "text": [_("test MSE {loss:.3f}").format(loss=run.test_loss)], "hoverinfo": "text",
                            "marker": {"size": 14, "color": "#D55E00", "symbol": "diamond"}, "cliponaxis": False})
        if run.test_loss < training.SINGLE_MIXING_FLOOR:
            text = _("The training loss of one head (h = 1), step by step, on a log scale: its test loss ends at "
                     "{loss:.3f}, below the dashed line at 3/8 = 0.375, the loss of the best fixed mixing.")
        else:
            text = _("The training loss of one head (h = 1), step by step, on a log scale: its test loss ends at "
                     "{loss:.3f}, above the dashed line at 3/8 = 0.375, the loss of the best fixed mixing.")
        return graph(fig, text.format(loss=run.test_loss))
    if template == "role":
        A, own, nxt, step = learned_attention(q["h"], q["seed"], LAST)
        names = [figures.head_title(i) for i in range(q["h"])]
        titles = [_("{head}, step {step}").format(head=figures.head_title(i), step=step) for i in range(q["h"])]
        fig = figures.heatmap_grid(A, titles, display=PROJECTOR)
        # the next cluster of cluster c is (c + 1) mod 3 (training.py): the last cluster's is the first
        return graph(fig, _("The {h} trained heads' attention on one input: the own-cluster mixing is the block "
                            "diagonal; the next-cluster mixing sits one block to the right, and for the last "
                            "cluster's queries in the first block.").format(h=q["h"])) + [
            number_table(_("Attention on the query's own cluster, mean over 100 inputs"), names, own,
                         _("own cluster"), q["accepted"],
                         # Translators: the column of attention heads
                         _("head"))]
    s = setting(q)
    ex, result = model(s)
    A, n = result.A, s.n
    if template == "sharpest":
        mean = explain.head_summaries(A, ex.cluster).entropy
        names = [figures.head_title(i) for i in range(s.h)]
        fig = example_fig.attention_heatmaps(A, PROJECTOR)
        return graph(fig, _("Every head's attention; a sharp head puts a row's weight on a few cells. Uniform rows "
                            "have log2 {n} = {bits:.2f} bits.").format(n=n, bits=np.log2(n))) + [
            number_table(_("Mean entropy of a row, in bits (lower is sharper)"), names, mean, _("bits"),
                         q["accepted"],
                         # Translators: the column of attention heads
                         _("head"))]
    if template == "bug":
        bug = bugs.BUGS_BY_KEY[q["bug"]]
        layers = bug_layers(s, q["bug"], causal=False)
        ex, right, zmax = layers.ex, layers.correct, layers.zmax
        # Translators: the correct layer's heatmaps are titled "head 1, correct"
        return graph(clinic_fig.layer_heatmaps(right.A, _("correct"), zmax, PROJECTOR),
                     _("The correct layer's attention, to hold beside the buggy one. The bug: {name}. {effect} "
                       "{caught}").format(name=_(bug.name), effect=_(bug.effect),
                                          caught=checks.caught_by(checks.side_by_side(ex, bug))))
    if template == "influence":
        r, infl = q["query_index"], explain.influence(result, ex.W_O)
        fig = influence_fig.layer_influence(infl.layer, infl.leave_one_out, infl.grad_input, PROJECTOR)
        fig["layout"]["shapes"] = influence_fig.layer_outlines(r, q["truth"])
        j = q["truth"]
        return graph(fig, _("What each key adds to each output, three ways, output {r} and key {j} outlined: the "
                            "layer's N[{r}, {j}] = {value:.3f}, the largest of the row. A weight counts only as much "
                            "as its value vector through W_O.").format(r=r, j=j, value=infl.layer[r, j])) + [
            number_table(_("N[{r}, j]: what key j adds to output {r}, through every head").format(r=r),
                         [_("key {number}").format(number=k) for k in range(n)], infl.layer[r], "N", q["accepted"],
                         # Translators: the column of attention keys (tokens attended to)
                         _("key"))]
    i, r = q["head_index"], q["query_index"]
    if template == "entropy":
        doubled = np.stack([A[i], core.softmax(result.logits[i] / 2)])
        before, after = (entropy_bits(doubled[k, r]) for k in (0, 1))
        head = figures.head_title(i)
        titles = [_("{head} now").format(head=head), _("{head}, τ doubled").format(head=head)]
        fig = figures.heatmap_grid(doubled, titles, max_cols=2, display=PROJECTOR)
        fig["layout"]["shapes"] = [row_outline(p, r, n) for p in (0, 1)]
        return graph(fig, _("Head {head} now and with τ doubled, query {query}'s row outlined: its entropy goes from "
                            "{before:.3f} to {after:.3f} bits. Dividing the logits by more flattens every row.").format(
                                head=i + 1, query=r, before=before, after=after))
    j = q["truth"] if template == "key" else q["key_index"]
    fig = figures.heatmap_grid([A[i]], [figures.head_title(i)], max_cols=1, display=PROJECTOR, panel_px=420)
    fig["layout"]["shapes"] = [figures.cell_outline(0, r, j)]
    return graph(fig, _("Head {head}'s attention, query {query}'s row from left to right, the cell of key {key} "
                        "outlined: {value:.3f}; the row runs from {lo:.3f} to {hi:.3f}.").format(
                            head=i + 1, query=r, key=j, value=A[i, r, j], lo=A[i, r].min(), hi=A[i, r].max()))
