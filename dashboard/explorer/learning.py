"""Learning: train the seed's layer in front of the student; one head cannot solve the task, two can."""

from __future__ import annotations

import dash_bootstrap_components as dbc
import numpy as np
from dash import Input, Output, State, ctx, dcc, html, no_update

from .. import attention as core
from .. import explain, figures, i18n, limits, margins, trainer, training
from ..figures import Display
from ..figures import learning as fig
from ..figures.equivariance import no_order as message_figure  # a message in place of a figure: no axes
from ..i18n import _, clauses, format_list, sentences
from ..state import RUNS, learned_attention
from ..urls import url_param
from . import surgery
from .controls import MODEL, HeadsView
from .trained import TRAINED, Shown, bad_training_seed, training_message
from .ids import LEARN_READY, LEARN_REQUESTED, LEARN_STEP, URL, section_id
from .ui import graph, text_beside_view
from .wiring import callback, clientside_callback

LEARN_SEED = "learn-seed"
LEARN_TRAIN = "learn-train"
LEARN_POLL = "learn-poll"
LEARN_STATUS = "learn-status"
LEARN_TASK = "learn-task"
LEARN_LOSS = "learn-loss"
LEARN_LOSS_TEXT = "learn-loss-text"
LEARN_PLAY = "learn-play"
LEARN_TIMER = "learn-timer"
LEARN_ATTENTION = "learn-attention"
LEARN_MASS = "learn-mass"
LEARN_ROLES = "learn-roles"
LEARN_COPY = "learn-copy-link"
LEARN_LINK = "learn-share-link"
LEARN_LINK_STATUS = "learn-share-status"
URL_PARAMS = [url_param("train", LEARN_SEED, limits.TRAINING_SEEDS[0], count=len(limits.TRAINING_SEEDS),
                         tab="learning"),
              url_param("step", LEARN_STEP, limits.SNAPSHOT_STEPS[-1], choices=limits.SNAPSHOT_STEPS,
                        tab="learning"),
              *surgery.URL_PARAMS]

MODEL_STORE = MODEL["learning"]  # h and the display, while the tab is shown

LEARNED_ZMAX = 0.3  # one fixed scale across the steps; a head that has learned its cluster puts 1/4 on each token


def layout() -> html.Section:
    first = limits.TRAINING_SEEDS[0]
    trainer_controls = html.Div(
        [
            html.Label(_("training seed"), htmlFor=LEARN_SEED, className="small mb-0"),
            dbc.Input(id=LEARN_SEED, type="number", min=first, max=limits.TRAINING_SEEDS[-1], step=1, value=first,
                      debounce=True, size="sm", className="seed-box"),
            # Translators: a button that trains the layer with h = 1, 2, 4 and 8 attention heads.
            dbc.Button(_("train h = 1, 2, 4, 8"), id=LEARN_TRAIN, color="primary"),
            html.Span(id=LEARN_STATUS, className="small text-body-secondary", role="status"),
            share_link(),
            dcc.Store(id=LEARN_REQUESTED, data=first),
            dcc.Store(id=LEARN_READY, data=first),
            dcc.Interval(id=LEARN_POLL, interval=300, disabled=True),
        ],
        className="d-flex align-items-center gap-2 flex-wrap mb-2",
    )
    steps = limits.SNAPSHOT_STEPS
    player = html.Div(
        [
            # Translators: a button that plays the training steps like a film.
            dbc.Button(_("play"), id=LEARN_PLAY, color="secondary", outline=True, size="sm"),
            html.Div(dcc.Slider(id=LEARN_STEP, min=steps[0], max=steps[-1], step=steps.step, value=steps[-1],
                                updatemode="drag", allow_direct_input=False, marks={s: str(s) for s in steps[::5]}),
                     className="flex-grow-1"),
            dcc.Interval(id=LEARN_TIMER, interval=400, disabled=True),
        ],
        className="d-flex align-items-center gap-2",
    )
    return html.Section(
        [
            MODEL_STORE.store(),
            text_beside_view(["learning"], [trainer_controls, graph(LEARN_TASK)]),
            graph(LEARN_LOSS),
            html.P(id=LEARN_LOSS_TEXT, className="mb-4 live-text", **{"aria-live": "polite"}),
            text_beside_view(["learning_heads"], [
                html.Label(_("training step"), htmlFor=LEARN_STEP, id="learn-step-label", className="small"), player,
                graph(LEARN_ATTENTION), html.P(id=LEARN_ROLES, className="mt-2", **{"aria-live": "polite"}),
                html.Div(id=LEARN_MASS, className="mt-2")]),
            surgery.layout(),
        ],
        id=section_id("learning"),
    )


def share_link() -> html.Div:
    """The model bar's "copy link" is not on this tab: this one copies the same URL, which holds this tab's
    training seed, step and surgery."""
    return html.Div(
        [dbc.Button(_("copy link"), id=LEARN_COPY, size="sm", color="secondary", outline=True),
         dbc.Label(_("link to this view"), html_for=LEARN_LINK, className="visually-hidden"),
         dbc.Input(id=LEARN_LINK, readonly=True, size="sm", className="share-link"),
         html.Span(id=LEARN_LINK_STATUS, className="small", role="status")],
        className="d-flex flex-wrap align-items-center gap-2 export",
    )


def precompute_defaults() -> None:
    """Train the first training seed at start-up (under gunicorn --preload, once for all workers)."""
    trainer.train_here(limits.TRAINING_SEEDS[0])


@i18n.lru_cache(maxsize=limits.DISPLAYS)
def task_figure(display: Display) -> dict:
    return fig.target_mixing_figure(*training.target_mixings(), display)


@i18n.lru_cache(maxsize=len(limits.TRAINING_SEEDS) * limits.DISPLAYS)
def loss_figure(seed: int, display: Display) -> dict:
    curves = {h: (run.losses, run.test_loss) for h, run in trainer.training_runs(seed).items()}
    return fig.loss_curves(curves, training.SINGLE_MIXING_FLOOR, display)


@i18n.lru_cache(maxsize=RUNS * limits.DISPLAYS)
def learned_heads(h: int, seed: int, k: int, display: Display) -> tuple[dict, list]:
    """The learned heads as a figure, and the attention masses as [own, next] lists."""
    A, own, nxt, step = learned_attention(h, seed, k)
    # Translators: a panel's title: an attention head's name ("head 2") at a training step.
    titles = [_("{head}, step {step}").format(head=figures.head_title(i), step=step) for i in range(h)]
    grid = figures.heatmap_grid(A, titles, zmax=LEARNED_ZMAX, display=display)
    return grid, [own.tolist(), nxt.tolist()]


@callback(Output(LEARN_READY, "data"), Output(LEARN_POLL, "disabled"), Output(LEARN_STATUS, "children"),
          inputs=dict(requested=Input(LEARN_REQUESTED, "data"), polls=Input(LEARN_POLL, "n_intervals")),
          prevent_initial_call=True)
def poll_training(requested, polls):
    """Start, or look in on, the training of the seed the student asked for, without waiting: the page polls
    until it is done, and the views draw its runs once this says they are ready."""
    try:
        seed = limits.training_seed(requested)
    except limits.Invalid:
        return no_update, True, bad_training_seed()
    if trainer.training_runs(seed, wait=False) is None:
        return no_update, False, training_message(seed)
    return seed, True, ""


@callback(Output(LEARN_TASK, "figure"), inputs=dict(shared=MODEL_STORE.input), prevent_initial_call=True)
def update_learning_task(shared):
    return task_figure(HeadsView.parse(shared).display)


@callback(Output(LEARN_LOSS, "figure"), Output(LEARN_LOSS_TEXT, "children"),
          inputs=dict(shared=MODEL_STORE.input, trained=TRAINED), prevent_initial_call=True)
def update_learning_loss(shared, trained):
    display, shown = HeadsView.parse(shared).display, Shown.parse(**trained)
    if shown.seed is None:
        return message_figure(shown.message), ""
    return loss_figure(shown.seed, display), loss_text(shown.seed)


def loss_text(seed: int) -> str:
    """The test losses as the curves' titles show them (three decimals), and where h = 1's ended against the
    dashed line: below or above only past margins.LOSS (the class's "Below the line?" decides by the same rule),
    else too close to tell."""
    runs = trainer.training_runs(seed)
    # Translators: a number of heads h and its test loss, "h = 1: 0.354" (Chinese: "h = 1：0.354")
    losses = format_list(_("h = {h}: {loss:.3f}").format(h=h, loss=run.test_loss) for h, run in runs.items())
    line = training.SINGLE_MIXING_FLOOR
    below = margins.beats(runs[1].test_loss, line, margins.LOSS, lower_is_better=True)
    if below is True:
        # Translators: {margin} is a loss, 0.01; the dashed line is the least error of any input-independent mixing
        ended = _("h = 1 ended below the dashed line, at {loss:.3f}, more than {margin} under 3/8 = {line:.3f}, the "
                  "least error of any mixing that does not depend on the input.")
    elif below is False:
        # Translators: {margin} is a loss, 0.01; the dashed line is the least error of any input-independent mixing
        ended = _("h = 1 ended above the dashed line, at {loss:.3f}, more than {margin} over 3/8 = {line:.3f}, the "
                  "least error of any mixing that does not depend on the input.")
    else:
        # Translators: {margin} is a loss, 0.01; the dashed line is the least error of any input-independent mixing
        ended = _("h = 1 ended at {loss:.3f}, within {margin} of the dashed line, 3/8 = {line:.3f}, the least error "
                  "of any mixing that does not depend on the input: too close to tell whether below or above.")
    return sentences(_("Training seed {seed}, test loss (MSE) after {steps} steps: {losses}.").format(
        seed=seed, steps=len(runs[1].losses), losses=losses),
        ended.format(line=line, loss=runs[1].test_loss, margin=margins.LOSS))


@callback(Output(LEARN_ATTENTION, "figure"), Output(LEARN_ROLES, "children"), Output(LEARN_MASS, "children"),
          inputs=dict(shared=MODEL_STORE.input, trained=TRAINED, step=Input(LEARN_STEP, "value")),
          prevent_initial_call=True)
def update_learning_heads(shared, trained, step):
    view, shown, k = HeadsView.parse(shared), Shown.parse(**trained), limits.snapshot(step)
    h, seed = view.h, shown.seed
    if seed is None:
        return message_figure(shown.message), "", ""
    attention, (own, nxt) = learned_heads(h, seed, k, view.display)
    step = int(limits.SNAPSHOT_STEPS[k])
    return attention, roles(own, nxt, learned_attention(h, seed, k)[0], step), mass_table(own, nxt)


def role(head: str, own: float, nxt: float) -> str:
    """A head's role, read from its attention masses by the summary's rule (explain.role_of: more than half a
    row's weight, ahead of the rest by margins.WEIGHT); an even head puts 1/3 on each cluster."""
    # Translators: the attention a head puts on a token's own cluster and on the next cluster.
    masses = _("{own:.2f} own, {next:.2f} next").format(own=own, next=nxt)
    picked = explain.role_of(own, nxt)
    if picked == 2:
        # Translators: {head} is an attention head's name, as A⁽²⁾.
        message = _("{head} has not picked a cluster yet ({masses})")
    elif picked == 0:
        message = _("{head} puts most on its own cluster ({masses})")
    else:
        message = _("{head} puts most on the next cluster ({masses})")
    return message.format(head=head, masses=masses)


def roles(own: list, nxt: list, A: np.ndarray, step: int) -> str:
    """One sentence: what each head does at this step, measured, and how far from even its map is. One head has
    one map for all eight features, so it cannot give features 0–3 one cluster and 4–7 the other."""
    if len(own) == 1:
        heads = _("the one head, {head}, puts {own:.2f} on a token's own cluster and {next:.2f} on the next, and "
                  "mixes all eight features with this one map").format(head=figures.head_label(0), own=own[0],
                                                                       next=nxt[0])
    else:
        heads = clauses(role(figures.head_label(i), o, x) for i, (o, x) in enumerate(zip(own, nxt)))
    # Translators: {heads} is what each attention head does ("A⁽¹⁾ puts most on …; A⁽²⁾ …").
    return _("At step {step}, in this run: {heads}. The largest weight in the maps is {largest:.2f}, against "
             "{even:.2f} for even attention.").format(step=step, heads=heads, largest=A.max(),
                                                      even=1 / core.N_TOKENS)


def mass_table(own: list, nxt: list) -> dbc.Table:
    # Translators: an attention head's name, "head 2".
    rows = [html.Tr([html.Th(_("head {k}").format(k=i + 1)), html.Td(f"{o:.2f}"), html.Td(f"{x:.2f}")])
            for i, (o, x) in enumerate(zip(own, nxt))]
    return dbc.Table(
        [html.Thead(html.Tr([html.Th(_("attention mass")), html.Th(_("own cluster")), html.Th(_("next cluster"))])),
         html.Tbody(rows)],
        size="sm", bordered=False, striped=True, className="mass-table w-auto",
    )


# The box's seed is the one asked for, from a link or typed, and "train" asks again; the server trains it once,
# then keeps it (poll_training checks it).
@callback(Output(LEARN_REQUESTED, "data"),
          inputs=dict(clicks=Input(LEARN_TRAIN, "n_clicks"), seed=Input(LEARN_SEED, "value")), prevent_initial_call=True)
def ask_to_train(clicks, seed):
    return seed


# The link shows in the box, and "copy link" copies it, as the model bar's does.
clientside_callback("shareLink", Output(LEARN_LINK, "value"), Input(URL, "search"))
clientside_callback("copyLink", Output(LEARN_LINK_STATUS, "children"), Input(LEARN_COPY, "n_clicks"),
                    State(LEARN_LINK, "id"), prevent_initial_call=True)

# Play steps the slider forward, one snapshot every tick of the timer, and stops at the end; play at the end
# starts again from step 0.
@callback(output=dict(step=Output(LEARN_STEP, "value"), paused=Output(LEARN_TIMER, "disabled"),
                      label=Output(LEARN_PLAY, "children")),
          inputs=dict(clicks=Input(LEARN_PLAY, "n_clicks"), ticks=Input(LEARN_TIMER, "n_intervals")),
          state=dict(step=State(LEARN_STEP, "value"), paused=State(LEARN_TIMER, "disabled")),
          prevent_initial_call=True)
def play(clicks, ticks, step, paused):
    steps = limits.SNAPSHOT_STEPS
    k = limits.snapshot(step)
    if ctx.triggered_id == LEARN_PLAY and paused is not False:
        # Translators: the learning lab's button that pauses the training steps it plays.
        return dict(step=steps[0] if k == len(steps) - 1 else no_update, paused=False, label=_("pause"))
    if ctx.triggered_id == LEARN_PLAY:
        return dict(step=no_update, paused=True, label=_("play"))
    if k + 1 >= len(steps) - 1:
        return dict(step=steps[-1], paused=True, label=_("play"))
    return dict(step=steps[k + 1], paused=no_update, label=no_update)
