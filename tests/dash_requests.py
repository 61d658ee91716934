"""Build the JSON bodies the Dash renderer posts to /_dash-update-component, for tests and benchmarks.

The views' server callbacks read gates (dashboard/explorer/gate.py): stores the browser fills with the
controls' values by name, while the gate's tab is shown and only when they changed. So a body's inputs are the
gates' dicts, and its changedPropIds name the gates that passed new values."""

from dash import Input, Output, State
from dash._utils import create_callback_id  # Dash's own key of a callback, as its renderer sends it

from dashboard import limits
from dashboard.wiring import LANGUAGE
from dashboard.explorer import (clinic, clinic_path, drilldown, example, forms, forward, learning, mixing, model_bar,
                                summary, surgery)
from dashboard.explorer import equivariance as eq
from dashboard.explorer.gate import GATES, Gate
from dashboard.explorer.ids import HEATMAPS, LEARN_READY
from dashboard.explorer.model_bar import SCALE_GATE
from dashboard.explorer.wiring import CALLBACKS
from dashboard.explorer.worked import DRILL_CELL, WORKED, WORKED_CELL, WORKED_TEXT

GATE_BY_ID = {g.id: g for g in GATES}

HEATMAP_OUTPUTS = [(HEATMAPS, "figure"), (example.WORKED_TEXT, "children")]
MIXING_OUTPUTS = [(mixing.MIX_SINGLE, "figure"), (mixing.MIX_MULTI, "figure"), (mixing.FEATURE_MIX, "figure")]
EQ_OUTPUTS = [(eq.EQ_INPUTS, "figure"), (eq.EQ_ATTENTION, "figure"), (eq.EQ_CHECK, "children"),
              (eq.PERM, "invalid"), (eq.PERM_FEEDBACK, "children")]
FORMS_OUTPUTS = [(forms.FORMS, "figure"), (forms.LOGITS, "figure"), (forms.FORMS_TEXT, "children")]
FORWARD_OUTPUTS = [(forward.FORWARD, "figure"), (forward.FORWARD_TEXT, "children")]
LEARN_HEADS_OUTPUTS = [(learning.LEARN_ATTENTION, "figure"), (learning.LEARN_ROLES, "children"),
                       (learning.LEARN_MASS, "children")]
SCALE_TEXT_OUTPUTS = [(model_bar.SCALE_TEXT, "children"), Output(model_bar.SCALE_TEXT, "hidden", allow_duplicate=True)]
SURGERY_OPTIONS = [(surgery.SURGERY_OFF, "options"), (surgery.SURGERY_UNIFORM, "options"),
                   (surgery.SURGERY_SWAP, "options")]


def body(outputs, inputs, state=(), changed=None, lang="en") -> dict:
    """Every server callback reads its page's language last (dashboard/wiring.py). `outputs` are (id, property)
    pairs, or Outputs where one is shared with another callback (allow_duplicate): the renderer names that one
    with a hash of the callback's inputs, as Dash keys it."""
    state = [s for s in state if s[0] != LANGUAGE] + [(LANGUAGE, "data", lang)]
    outputs = [o if isinstance(o, Output) else Output(*o) for o in outputs]
    multi = len(outputs) > 1
    key = create_callback_id(outputs if multi else outputs[0], [Input(i, p) for i, p, _ in inputs])
    out = [dict(zip(("id", "property"), name.rsplit(".", 1))) for name in (key[2:-2].split("...") if multi else [key])]
    return {
        "output": key,
        "outputs": out if multi else out[0],
        "inputs": [{"id": i, "property": p, "value": v} for i, p, v in inputs],
        "state": [{"id": i, "property": p, "value": v} for i, p, v in state],
        "changedPropIds": changed or [f"{inputs[0][0]}.{inputs[0][1]}"],
    }


def gated(outputs, gates, state=(), fired=None) -> dict:
    """A request of a callback that reads `gates`, [(gate, its data)] in the callback's order, after the gates
    in `fired` passed new values (by default the first)."""
    return body(outputs, [(g.id, "data", data) for g, data in gates], state,
                [f"{g.id}.data" for g in (fired or [gates[0][0]])])


def displayed(narrow=False) -> dict:
    return {"narrow": narrow, "lecture": False}


def model(h, seed, size=4, scale="seed", tau=0, weights="random") -> dict:
    """The model controls most gates pass (explorer/gate.SETTING), by name."""
    return {"h": h, "seed": seed, "size": size, "scale": scale, "tau": tau, "weights": weights}


def worked(h, seed, narrow=False, **model_controls) -> dict:
    """The worked example's gate (explorer/worked.WORKED): the model and the display."""
    return {**model(h, seed, **model_controls), "display": displayed(narrow)}


def cell(head=1, query=0, key=1) -> dict:
    return {"head": head, "query": query, "key": key}


def heatmaps_body(h=8, seed=3, narrow=False, selected=(1, 0, 1), fired=(WORKED,), **model_controls) -> dict:
    """The worked example's heatmaps and their sentence; `model_controls` are size, scale and tau."""
    return gated(HEATMAP_OUTPUTS, [(WORKED, worked(h, seed, narrow, **model_controls)), (WORKED_CELL, cell(*selected))],
                 fired=list(fired))


def blocks_body(h=8, seed=3, narrow=False, **model_controls) -> dict:
    return gated([(example.BLOCKS, "figure")], [(example.BLOCK_GATE, worked(h, seed, narrow, **model_controls))])


def cube_body(h=8, seed=3, focus=0, **model_controls) -> dict:
    return gated([(example.CUBE, "figure")], [(example.CUBE_GATE, model(h, seed, **model_controls))],
                 [(example.CUBE_FOCUS, "value", focus)])


def tokens_body(seed=3, size=4) -> dict:
    return gated([(example.TOKENS, "figure")], [(example.TOKEN_GATE, {"weights": "random", "seed": seed, "size": size,
                                                                     "display": displayed()})])


def forms_body(h=8, seed=3, selected=(1, 0, 1), fired=(forms.FORMS_GATE,), **model_controls) -> dict:
    return gated(FORMS_OUTPUTS, [(forms.FORMS_GATE, worked(h, seed, **model_controls)), (WORKED_CELL, cell(*selected))],
                 fired=list(fired))


def forward_body(h=8, seed=3, **model_controls) -> dict:
    return gated(FORWARD_OUTPUTS, [(forward.FORWARD_GATE, worked(h, seed, **model_controls))])


def summary_body(h=8, seed=3, **model_controls) -> dict:
    return gated([(summary.SUMMARY, "html")], [(WORKED_TEXT, model(h, seed, **model_controls))])


def drilldown_body(h=8, seed=3, selected=(1, 0, 1), fired=(WORKED_TEXT,), **model_controls) -> dict:
    return gated([(drilldown.DRILLDOWN, "html")],
                 [(WORKED_TEXT, model(h, seed, **model_controls)), (DRILL_CELL, cell(*selected))], fired=list(fired))


def scale_text_body(h=8, seed=3, **model_controls) -> dict:
    return gated(SCALE_TEXT_OUTPUTS, [(SCALE_GATE, model(h, seed, **model_controls))])


def mixing_body(h=8, seed=3, selected=(1, 0, 1), fired=(mixing.MIXING,)) -> dict:
    return gated(MIXING_OUTPUTS, [(mixing.MIXING, worked(h, seed)), (mixing.MIXING_CELL, cell(*selected)),
                                  (mixing.MIXING_QUERY, {"query": selected[1]})], fired=list(fired))


def eq_body(perm=limits.DEFAULT_PERM, h=4, seed=0, positions=False, head=1) -> dict:
    return gated(EQ_OUTPUTS, [(eq.EQUIVARIANCE, {**worked(h, seed), "perm": perm, "positions": positions,
                                                     "head": head})])


CLINIC_OUTPUTS = [(clinic.HEATMAPS, "figure"), (clinic.BUGGY, "figure"), (clinic.OUTPUT, "figure"),
                  (clinic.HEADLINE, "children")]
CLINIC_CHECK_OUTPUTS = [(clinic.TABLE, "html"), (clinic.CATCHES, "html"), (clinic.STORY, "html"),
                        (clinic.PICKER, "hidden"), (clinic.ANSWER_BOX, "hidden"), (clinic.POLL, "disabled")]


CLINIC_SELECTED = (1, 3, 1)


def clinic_controls(bug=limits.DEFAULT_BUG, mystery=0, causal=False) -> dict:
    return {"bug": bug, "mystery": mystery, "causal": causal}


def clinic_body(h=4, seed=0, bug=limits.DEFAULT_BUG, mystery=0, causal=False, selected=CLINIC_SELECTED,
                fired=(clinic.CLINIC,), **model_controls) -> dict:
    """The bug clinic's heatmaps, outputs and headline."""
    return gated(CLINIC_OUTPUTS, [(clinic.CLINIC, {**worked(h, seed, **model_controls),
                                                   **clinic_controls(bug, mystery, causal)}),
                                  (clinic.CLINIC_CELL, cell(*selected))], fired=list(fired))


def clinic_path_body(h=4, seed=0, bug=limits.DEFAULT_BUG, mystery=0, causal=False, selected=CLINIC_SELECTED) -> dict:
    """Where the wrong number comes from, for the selected cell."""
    return gated([(clinic_path.PATH, "html")],
                 [(clinic_path.PATH_GATE, {**model(h, seed), **clinic_controls(bug, mystery, causal),
                                           **cell(*selected)})])


def clinic_forward_body(h=4, seed=0, bug=limits.DEFAULT_BUG, mystery=0, causal=False) -> dict:
    """The forward pass of the layer with the bug."""
    return gated([(clinic_path.FORWARD, "figure")],
                 [(clinic_path.FORWARD_GATE, {**worked(h, seed), **clinic_controls(bug, mystery, causal)})])


def clinic_checks_body(h=4, seed=0, bug=limits.DEFAULT_BUG, mystery=0, causal=False, checks=None, polls=0) -> dict:
    """The bug clinic's tables and story (the gate fired, or a poll while the layers train)."""
    data = {**model(h, seed), **clinic_controls(bug, mystery, causal),
            "checks": limits.DEFAULT_CHECKS if checks is None else checks}
    return body(CLINIC_CHECK_OUTPUTS, [(clinic.CHECKS_GATE.id, "data", data), (clinic.POLL, "n_intervals", polls)],
                changed=[f"{clinic.CHECKS_GATE.id}.data" if polls == 0 else f"{clinic.POLL}.n_intervals"])


def clinic_answer_body(answer, mystery, h=4, seed=0, causal=False, clicks=1) -> dict:
    """"check my answer" pressed in mystery mode."""
    data = {**model(h, seed), "mystery": mystery, "causal": causal, "answer": answer}
    return body([(clinic.VERDICT, "children")], [(clinic.SUBMIT, "n_clicks", clicks),
                                                 (clinic.ANSWER_GATE.id, "data", data)],
                changed=[f"{clinic.SUBMIT}.n_clicks"])


def learning_bodies(h, seed=0, step=400) -> list[dict]:
    """The learning tab's requests for a change of h: its heads, and the surgery's options and result
    (`seed` is the trained seed the page shows)."""
    shown = {"seed": seed, "ready": seed}
    return [gated(LEARN_HEADS_OUTPUTS,
                  [(learning.HEADS_GATE, {**shown, "h": h, "step": step, "display": displayed()})]),
            gated(SURGERY_OPTIONS, [(surgery.HEADS_GATE, {"h": h})]),
            gated([(surgery.SURGERY_RESULT, "children")],
                  [(surgery.SURGERY_GATE, {**shown, "h": h, "off": [], "uniform": [], "swap": surgery.NO_SWAP})])]


def change_of_model(h=8, seed=3, size=16, scale="tau", tau=5) -> list[dict]:
    """The worked example's requests for one change of the scale or the size while it is shown (at most: a change
    of scale leaves the tokens' gate alone, so they are not sent)."""
    m = {"size": size, "scale": scale, "tau": tau}
    return [*example_bodies(h, seed, **m), tokens_body(seed, size), forms_body(h, seed, **m),
            forward_body(h, seed, **m), drilldown_body(h, seed, **m), summary_body(h, seed, **m),
            scale_text_body(h, seed, **m)]


def example_bodies(h, seed, **model_controls) -> list[dict]:
    """The worked example's figures that depend on h: the blocks, the heatmaps and the cube."""
    return [blocks_body(h, seed, **model_controls), heatmaps_body(h, seed, **model_controls),
            cube_body(h, seed, **model_controls)]


def change_of_heads(h, seed, tab="example") -> list[dict]:
    """Every server request one change of h sends while `tab` is shown, once the student has scrolled through it:
    its gates' callbacks and, on the tabs the model bar drives, the scale text. The tokens do not depend on h:
    their gate sends nothing."""
    if tab == "learning":
        return learning_bodies(h)
    views = {"example": [*example_bodies(h, seed), forms_body(h, seed), forward_body(h, seed), summary_body(h, seed),
                         drilldown_body(h, seed)],
             "mixing": [mixing_body(h, seed)],
             "equivariance": [eq_body(h=h, seed=seed)],
             "clinic": [clinic_body(h, seed), clinic_checks_body(h, seed), clinic_path_body(h, seed),
                        clinic_forward_body(h, seed)]}[tab]
    return views + [scale_text_body(h, seed)]


def click_on_cell(h, seed, head, query, key, tab="example") -> list[dict]:
    """Every server request one click on a heatmap cell sends: the shown tab's callbacks that read the cell,
    with only its cell gate (and on the mixing tab the query's, when the query changed) passing new values."""
    selected = (head, query, key)
    if tab == "mixing":
        return [mixing_body(h, seed, selected, fired=(mixing.MIXING_CELL, mixing.MIXING_QUERY))]
    return [heatmaps_body(h, seed, selected=selected, fired=(WORKED_CELL,)),
            forms_body(h, seed, selected, fired=(WORKED_CELL,)),
            drilldown_body(h, seed, selected, fired=(DRILL_CELL,))]


def example_views(W: list, C: list, focus=0, changed=None) -> tuple:
    """The worked example's blocks, heatmaps, cube and sentence, from direct calls of their callbacks with the
    worked gate's data W and the cell gate's C (a first draw, unless `changed` names the gates that fired)."""
    from tests.util import fire

    heatmaps, text = fire(example.update_heatmaps, W, C, changed=changed)
    setting = {k: v for k, v in W.items() if k != "display"}
    return fire(example.update_blocks, W), heatmaps, fire(example.update_cube, setting, focus), text


def press_train_body(seed=0, polls=0) -> dict:
    """What "train" (and each poll after it) posts: start or look in on the training of `seed`."""
    fired = [f"{learning.REQUEST_GATE.id}.data"] if polls == 0 else [f"{learning.LEARN_POLL}.n_intervals"]
    return body([(LEARN_READY, "data"), (learning.LEARN_POLL, "disabled"), (learning.LEARN_STATUS, "children")],
                [(learning.REQUEST_GATE.id, "data", {"seed": seed}), (learning.LEARN_POLL, "n_intervals", polls)],
                changed=fired)


# A value the page could pass for each control a gate names: the defaults it starts with.
DEFAULTS = {"h": limits.DEFAULT_HEADS, "seed": limits.DEFAULT_SEED, "size": limits.DEFAULT_SIZE,
            "scale": limits.DEFAULT_SCALE, "tau": limits.DEFAULT_TAU_STEP, "weights": limits.DEFAULT_WEIGHTS,
            "display": displayed(),
            "head": 1, "query": 0, "key": 1, "perm": limits.DEFAULT_PERM, "positions": False,
            "step": limits.TRAINING_STEPS[-1], "off": [], "uniform": [], "swap": surgery.NO_SWAP, "ready": 0,
            "bug": limits.DEFAULT_BUG, "mystery": limits.NO_MYSTERY, "causal": False, "checks": limits.DEFAULT_CHECKS,
            "answer": None}


def default_data(g: Gate) -> dict:
    """What the browser puts in gate `g` for the page's default controls."""
    return {name: DEFAULTS[name] for name in g.fields}


def gated_callbacks() -> list[tuple]:
    """(function, outputs, inputs, state) of every server callback that reads a gate, as its module names it:
    without the page's language, which the wired function reads last (run one in a language with i18n.use)."""
    found = []
    for deps, _, fn in CALLBACKS.server:
        inputs = [d for d in deps if isinstance(d, Input)]
        state = [d for d in deps if isinstance(d, State) and d.component_id != LANGUAGE]
        if any(d.component_id in GATE_BY_ID for d in inputs):
            found.append((fn.__wrapped__, [d for d in deps if isinstance(d, Output)], inputs, state))
    return found


def arguments(inputs, state, forged: dict | None = None) -> list:
    """A callback's arguments at the page's defaults (0 for an input that is not a gate: a focus, a poll count),
    with the gates in `forged` ({gate id: data}) carrying that data instead."""
    forged = forged or {}
    return [forged[d.component_id] if d.component_id in forged else
            default_data(GATE_BY_ID[d.component_id]) if d.component_id in GATE_BY_ID else 0 for d in inputs + state]


def callback_body(outputs, inputs, state, forged: dict | None = None, lang: str = "en") -> dict:
    """The request of a gated callback at the page's defaults, every gate fired (a first draw)."""
    values = arguments(inputs, state, forged)
    return body(outputs, [(d.component_id, d.component_property, v) for d, v in zip(inputs, values)],
                [(d.component_id, d.component_property, v) for d, v in zip(state, values[len(inputs):])],
                [f"{d.component_id}.data" for d in inputs if d.component_id in GATE_BY_ID], lang)
