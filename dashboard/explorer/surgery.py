"""Head surgery in the learning lab: switch a trained head off, give it uniform attention, or swap two heads'
attention, and see the test loss at once. Which head carries which mixing, shown causally."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import dash_bootstrap_components as dbc
from dash import Input, Output, html

from .. import limits, trainer, training
from ..i18n import _, format_list
from ..urls import url_param
from .controls import MODEL, HeadsView
from .trained import TRAINED, Shown
from .ui import alert, head_options
from .wiring import callback

SURGERY_OFF = "surgery-off"
SURGERY_UNIFORM = "surgery-uniform"
SURGERY_SWAP = "surgery-swap"
SURGERY_RESULT = "surgery-result"
NO_SWAP = "none"
MAX_HEADS = max(limits.HEAD_CHOICES)
URL_PARAMS = [
    url_param("off", SURGERY_OFF, [], items=MAX_HEADS, tab="learning"),
    url_param("uniform", SURGERY_UNIFORM, [], items=MAX_HEADS, tab="learning"),
    url_param("swap", SURGERY_SWAP, NO_SWAP, choices=[NO_SWAP] + [f"{a}-{b}" for a, b in
                                                                  combinations(range(1, MAX_HEADS + 1), 2)],
              tab="learning"),
]
MODEL_STORE = MODEL["learning"]
CUTS = {"off": Input(SURGERY_OFF, "value"), "uniform": Input(SURGERY_UNIFORM, "value"),
        "swap": Input(SURGERY_SWAP, "value")}


def layout() -> html.Div:
    heads = head_options(limits.DEFAULT_HEADS, include_all=False)
    return html.Div(
        [
            # Translators: switching trained attention heads off, or changing their attention, to see what each does.
            html.H3(_("Head surgery"), className="h5"),
            html.P(_("Change the trained layer's heads and watch the test loss: a forward pass, no retraining."),
                   className="small"),
            html.Fieldset([html.Legend(_("switch off (head_i = 0)"), className="small mb-0"),
                           dbc.Checklist(id=SURGERY_OFF, options=heads, value=[], inline=True)]),
            html.Fieldset([html.Legend(_("uniform attention (A⁽ⁱ⁾ = 1/n)"), className="small mb-0"),
                           dbc.Checklist(id=SURGERY_UNIFORM, options=heads, value=[], inline=True)]),
            # Translators: followed by a menu of two attention heads, "head 1 ↔ head 2".
            html.Div([dbc.Label(_("swap the attention of"), html_for=SURGERY_SWAP, className="small mb-0"),
                      dbc.Select(id=SURGERY_SWAP, options=swap_options(limits.DEFAULT_HEADS), value=NO_SWAP,
                                 size="sm", className="w-auto")]),
            html.Div(id=SURGERY_RESULT, className="mt-2", **{"aria-live": "polite"}),
        ],
        className="surgery mb-4",
    )


def swap_options(h: int) -> list[dict]:
    # Translators: two attention heads whose attention is swapped.
    pair = _("head {a} ↔ head {b}")
    return [{"label": _("no swap"), "value": NO_SWAP}] + [
        {"label": pair.format(a=a, b=b), "value": f"{a}-{b}"} for a, b in combinations(range(1, h + 1), 2)]


def surgery(off, uniform, swap, h: int) -> training.Surgery | None:
    """The checked interventions as head indices, or None when a value is not one of this h's."""
    heads = range(1, h + 1)
    if not all(isinstance(v, list) and len(v) <= h and all(limits.is_int(k) and k in heads for k in v)
               for v in (off, uniform)):
        return None
    if swap == NO_SWAP:
        pair = None
    elif any(swap == option["value"] for option in swap_options(h)[1:]):
        pair = tuple(int(k) - 1 for k in swap.split("-"))
    else:
        return None
    return training.Surgery(frozenset(k - 1 for k in off), frozenset(k - 1 for k in uniform), pair)


@lru_cache(maxsize=len(limits.TRAINING_SEEDS))
def test_set(seed: int):
    return training.test_set(seed)


@lru_cache(maxsize=256)  # interventions on every h and seed are too many to keep: the latest 256
def surgery_loss(seed: int, h: int, cut: training.Surgery) -> float:
    return training.loss_after_surgery(trainer.training_runs(seed)[h].snapshots[-1], h, *test_set(seed), cut)


@callback(Output(SURGERY_OFF, "options"), Output(SURGERY_UNIFORM, "options"), Output(SURGERY_SWAP, "options"),
          inputs=dict(shared=MODEL_STORE.input), prevent_initial_call=True)
def follow_heads(shared):
    h = HeadsView.parse(shared).h
    heads = head_options(h, include_all=False)
    return heads, heads, swap_options(h)


@callback(Output(SURGERY_RESULT, "children"), inputs=dict(shared=MODEL_STORE.input, trained=TRAINED, cuts=CUTS),
          prevent_initial_call=True)
def update_surgery(shared, trained, cuts):
    h, shown = HeadsView.parse(shared).h, Shown.parse(**trained)
    seed = shown.seed
    if seed is None:
        return html.P(shown.message, className="small")
    cut = surgery(cuts["off"], cuts["uniform"], cuts["swap"], h)
    if cut is None:
        return alert(_("Choose heads 1 to {h}.").format(h=h))
    before = surgery_loss(seed, h, training.Surgery())
    after = surgery_loss(seed, h, cut)
    each_off = [surgery_loss(seed, h, training.Surgery(off=frozenset({i}))) for i in range(h)]
    if cut != training.Surgery():
        # Translators: {after} is the test loss after the surgery, in bold; {times} is after / before.
        change = _("test loss (MSE) {before:.4f} as trained → {after} after this surgery ({times:.1f} times).")
    else:
        change = _("test loss (MSE) {before:.4f} as trained → {after} untouched.")
    ahead, _mark, behind = change.format(before=before, after="\0", times=after / before).partition("\0")
    # Translators: the test loss with one attention head switched off.
    off = format_list(_("head {k} off {loss:.3f}").format(k=i + 1, loss=loss) for i, loss in enumerate(each_off))
    return html.Div([
        html.P([ahead, html.Strong(f"{after:.4f}"), behind], className="mb-1"),
        html.P(_("With one head switched off: {losses}. The dashed line above, 3/8 = {floor:.3f}, is the least error "
                 "of any mixing that does not depend on the input.").format(losses=off,
                                                                          floor=training.SINGLE_MIXING_FLOOR),
               className="small"),
    ])
