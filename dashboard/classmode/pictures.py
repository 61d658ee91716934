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
from .templates import LAB, LAST, entropy_bits

PROJECTOR = figures.Display(lecture=True)
TWO_A_ROW = figures.Display(narrow=True)  # for a student's phone, and the stage's narrow column on the projector


def setting(q: dict) -> Setting:
    """The stored setting of a question on the worked example (checked when it was posed)."""
    return Setting(q["h"], q["seed"], q["size"], q["scale"], q["tau"], q["weights"])


def graph(figure: dict, text: str) -> list:
    return [dcc.Graph(figure=figure, config=figures.graph_config()),
            html.P(text, className="small text-body-secondary")]


@i18n.lru_cache(maxsize=64)
def _tokens_figure(weights: str, seed: int, size: int) -> dict:
    X, cluster = tokens(weights, seed, size)
    fig = example_fig.token_views(X, cluster)
    layout = {k: v for k, v in fig["layout"].items() if k not in ("xaxis2", "yaxis2")}
    layout.update(xaxis={**layout["xaxis"], "domain": [0, 1]}, yaxis={**layout["yaxis"], "domain": [0, 1]},
                  annotations=[{**layout["annotations"][0], "x": 0.5, "y": 1}])
    return {"data": [t for t in fig["data"] if t["type"] == "scatter"], "layout": layout}


def question_example(q: dict) -> list:
    """What students see beside a question: the tokens of its example, the learning task, or the layer with the
    bug (its attention and the checks' verdicts, never its name)."""
    if q["template"] == "bug":
        return buggy_layer(setting(q), q["bug"])
    if q["template"] in LAB:
        return graph(learning_fig.target_mixing_figure(*training.target_mixings()),
                     _("The learning task: features 0–3 should mix each token's own cluster, features 4–7 the next "
                       "cluster; one attention matrix cannot be both."))
    if q["weights"] == "trained":
        text = _("The {n} tokens of an input of the learning lab's task, each a point numbered by its index, in the "
                 "plane of X's first two principal directions, coloured and shaped by cluster.")
    else:
        text = _("The {n} tokens of seed {seed}, each a point numbered by its index, in the plane of X's first two "
                 "principal directions, coloured and shaped by cluster.")
    return graph(_tokens_figure(q["weights"], q["seed"], q["size"]), text.format(n=3 * q["size"], seed=q["seed"]))


@i18n.lru_cache(maxsize=64)
def buggy_layer(s: Setting, bug_key: str) -> list:
    layers = bug_layers(s, bug_key, causal=False)
    ex, wrong, zmax = layers.ex, layers.buggy, layers.zmax
    found = checks.verdicts(ex, bugs.BY_KEY[bug_key])
    rows = [html.Tr([html.Th(_(checks.CHECKS[name]), scope="row"), html.Td(_("passes") if v.passed else _("fails")),
                     html.Td(v.detail)]) for name, v in found.items()]
    columns = (_("check"), _("verdict"), _("what it found"))
    table = html.Table([html.Caption(_("The checks, run on this layer")),
                        html.Thead(html.Tr([html.Th(c, scope="col") for c in columns])),
                        html.Tbody(rows)], className="table table-sm")
    return graph(clinic_fig.layer_heatmaps(wrong.A, _("this layer"), zmax, TWO_A_ROW),
                 _("The attention of the layer with the bug, head by head, on the scale of the correct layer's "
                   "(largest weight {zmax:.2f}).").format(zmax=zmax)) + [table]


def row_outline(p: int, r: int, n: int) -> dict:
    return {**figures.cell_outline(p, r, 0), "x0": -0.5, "x1": n - 0.5}


def number_table(caption: str, names: list[str], values, unit: str, marked: list[int], kind: str) -> html.Table:
    """Per head (or key), a number with its bar; the accepted ones marked. The words come translated."""
    largest = max(float(np.max(values)), 1e-9)
    # Translators: an answer that counts as right
    counts = _("counts")
    return html.Table(
        [html.Caption(caption), html.Thead(html.Tr([html.Th(kind, scope="col"), html.Th(unit, scope="col"),
                                                    html.Th(html.Span(_("bar"), className="visually-hidden"),
                                                            scope="col"),
                                                    html.Th(html.Span(counts, className="visually-hidden"),
                                                            scope="col")])),
         html.Tbody([html.Tr([html.Th(name, scope="row"), html.Td(f"{v:.3f}"), html.Td(bar(v, largest, signed=False)),
                              html.Td(counts if k in marked else "")], className="truth" if k in marked else None)
                     for k, (name, v) in enumerate(zip(names, values))])],
        className="table table-sm class-bars")


def why(q: dict) -> list:
    """The figure that explains a revealed question's truth, with its text alternative."""
    template = q["template"]
    if template == "floor":
        run = trainer.training_runs(q["seed"])[1]
        fig = learning_fig.loss_curves({1: (run.losses, run.test_loss)}, training.SINGLE_MIXING_FLOOR, PROJECTOR)
        if run.test_loss < 3 / 8:
            text = _("The training loss of one head (h = 1), step by step, on a log scale: its test loss ends at "
                     "{loss:.3f}, below the dashed line at 3/8 = 0.375, the loss of the best fixed mixing.")
        else:
            text = _("The training loss of one head (h = 1), step by step, on a log scale: its test loss ends at "
                     "{loss:.3f}, above the dashed line at 3/8 = 0.375, the loss of the best fixed mixing.")
        return graph(fig, text.format(loss=run.test_loss))
    if template == "role":
        A, own, nxt, step = learned_attention(q["h"], q["seed"], LAST)
        names = [figures.head_label(i) for i in range(q["h"])]
        titles = [_("{head}, step {step}").format(head=figures.head_title(i), step=step) for i in range(q["h"])]
        fig = figures.heatmap_grid(A, titles, display=PROJECTOR)
        return graph(fig, _("The {h} trained heads' attention on one input: the own-cluster mixing is the block "
                            "diagonal; the next-cluster mixing sits one block to the right.").format(h=q["h"])) + [
            number_table(_("Attention on the query's own cluster, mean over 100 inputs"), names, own,
                         _("own cluster"), q["accepted"],
                         # Translators: the column of attention heads
                         _("head"))]
    s = setting(q)
    ex, result = model(s)
    A, n = result.A, s.n
    if template == "sharpest":
        mean = explain.head_summaries(A, ex.cluster).entropy
        names = [figures.head_label(i) for i in range(s.h)]
        fig = example_fig.attention_heatmaps(A, PROJECTOR)
        return graph(fig, _("Every head's attention; a sharp head has few dark cells a row. Uniform rows have "
                            "log2 {n} = {bits:.2f} bits.").format(n=n, bits=np.log2(n))) + [
            number_table(_("Mean entropy of a row, in bits (lower is sharper)"), names, mean, _("bits"),
                         q["accepted"],
                         # Translators: the column of attention heads
                         _("head"))]
    if template == "bug":
        bug = bugs.BY_KEY[q["bug"]]
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
