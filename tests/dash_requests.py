"""Build the JSON bodies the Dash renderer posts to /_dash-update-component, for tests and benchmarks."""

from dashboard.ids import DISPLAY, HEADS, LEARN_READY, SCALE, SEED, SEL_HEAD, SEL_KEY, SEL_QUERY, SIZE, TAB, TAU
from dashboard.views import equivariance as eq
from dashboard.views import drilldown, example, forms, forward, learning, mixing, summary
from dashboard.views import model as model_bar

EXAMPLE_OUTPUTS = [(example.BLOCKS, "figure"), (example.HEATMAPS, "figure"), (example.CUBE, "figure"),
                   (example.WORKED_TEXT, "children")]
MIXING_OUTPUTS = [(mixing.MIX_SINGLE, "figure"), (mixing.MIX_MULTI, "figure")]
EQ_OUTPUTS = [(eq.EQ_INPUTS, "figure"), (eq.EQ_ATTENTION, "figure"), (eq.EQ_CHECK, "children"),
              (eq.PERM, "invalid"), (eq.PERM_FEEDBACK, "children")]


def body(outputs, inputs, state=(), changed=None) -> dict:
    out = [{"id": i, "property": p} for i, p in outputs]
    names = [f"{i}.{p}" for i, p in outputs]
    multi = len(outputs) > 1
    return {
        "output": ".." + "...".join(names) + ".." if multi else names[0],
        "outputs": out if multi else out[0],
        "inputs": [{"id": i, "property": p, "value": v} for i, p, v in inputs],
        "state": [{"id": i, "property": p, "value": v} for i, p, v in state],
        "changedPropIds": changed or [f"{inputs[0][0]}.{inputs[0][1]}"],
    }


def cell(head=1, query=0, key=1):
    return [(SEL_HEAD, "value", head), (SEL_QUERY, "value", query), (SEL_KEY, "value", key)]


def model(h, seed, size=4, scale="seed", tau=0):
    """The five model controls every worked-example callback takes first (views/model.MODEL)."""
    return [(HEADS, "value", h), (SEED, "value", seed), (SIZE, "value", size), (SCALE, "value", scale),
            (TAU, "value", tau)]


def controls(h, seed, tab, narrow=False, size=4, scale="seed", tau=0):
    return model(h, seed, size, scale, tau) + [(TAB, "value", tab),
                                               (DISPLAY, "data", {"narrow": narrow, "lecture": False})]


def example_body(h=8, seed=3, tab="example", focus=0, narrow=False, **model_controls) -> dict:
    """The worked example's main update; `model_controls` are size, scale and tau."""
    return body(EXAMPLE_OUTPUTS, controls(h, seed, tab, narrow, **model_controls),
                [(example.CUBE_FOCUS, "value", focus)] + cell())


def mixing_body(h=8, seed=3, tab="example") -> dict:
    return body(MIXING_OUTPUTS, controls(h, seed, tab), cell())


def eq_body(perm=" ".join(map(str, range(12))), h=4, seed=0, positions=False, head=1, tab="equivariance") -> dict:
    return body(EQ_OUTPUTS, controls(h, seed, tab) + [(eq.PERM, "value", perm), (eq.POSITIONS, "value", positions),
                                                      (eq.EQ_HEAD, "value", head)])


def forms_body(h=8, seed=3, tab="example") -> dict:
    return body([(forms.FORMS, "figure"), (forms.LOGITS, "figure"), (forms.FORMS_TEXT, "children")],
                controls(h, seed, tab), cell())


def forward_body(h=8, seed=3, tab="example") -> dict:
    return body([(forward.FORWARD, "figure"), (forward.FORWARD_TEXT, "children")], controls(h, seed, tab))


def drilldown_body(h=8, seed=3, head=1, query=0, key=1, tab="example") -> dict:
    inputs = model(h, seed) + cell(head, query, key) + [(TAB, "value", tab)]
    return body([(drilldown.DRILLDOWN, "children")], inputs, changed=[f"{SEL_HEAD}.value"])


def feature_mix_body(h=8, seed=3, query=0, tab="example") -> dict:
    inputs = model(h, seed) + [(SEL_QUERY, "value", query), (TAB, "value", tab),
                               (DISPLAY, "data", {"narrow": False, "lecture": False})]
    return body([(mixing.FEATURE_MIX, "figure")], inputs)


def outline_body(app, graph_id, h=8, head=1, query=0, key=1, tab="example") -> dict:
    """The Patch that outlines a new selection on one graph (an allow_duplicate output: its name has a hash)."""
    output = next(k for k in app.callback_map if k.startswith(f"{graph_id}.figure@"))
    b = body([(graph_id, "figure")], cell(head, query, key), [(HEADS, "value", h), (SIZE, "value", 4), (TAB, "value", tab)],
             changed=[f"{SEL_HEAD}.value"])
    return {**b, "output": output, "outputs": {**b["outputs"], "property": output.split(".", 1)[1]}}


def change_of_model(h=8, seed=3, size=16, scale="tau", tau=5, tab="example") -> list[dict]:
    """Every server request one change of the scale or the size triggers (at most: a change of scale
    leaves the tokens alone, which then answer with the same figure)."""
    m = dict(size=size, scale=scale, tau=tau)
    state = [(example.CUBE_FOCUS, "value", 0)] + cell()
    return [
        body(EXAMPLE_OUTPUTS, controls(h, seed, tab, **m), state),
        body([(example.TOKENS, "figure")], [(SEED, "value", seed), (SIZE, "value", size), (TAB, "value", tab),
                                            (DISPLAY, "data", {"narrow": False, "lecture": False})]),
        body([(forms.FORMS, "figure"), (forms.LOGITS, "figure"), (forms.FORMS_TEXT, "children")],
             controls(h, seed, tab, **m), cell()),
        body([(forward.FORWARD, "figure"), (forward.FORWARD_TEXT, "children")], controls(h, seed, tab, **m)),
        body([(drilldown.DRILLDOWN, "children")], model(h, seed, **m) + cell() + [(TAB, "value", tab)]),
        body([(summary.SUMMARY, "children")], model(h, seed, **m) + [(TAB, "value", tab)]),
        body([(model_bar.SCALE_TEXT, "children")], model(h, seed, **m)),
        body(MIXING_OUTPUTS, controls(h, seed, tab, **m), cell()),
    ]


def change_of_heads(h, seed, tab="example") -> list[dict]:
    """Every server request one change of h triggers while `tab` is shown."""
    return [example_body(h, seed, tab), forms_body(h, seed, tab), forward_body(h, seed, tab),
            drilldown_body(h, seed, tab=tab), mixing_body(h, seed, tab), feature_mix_body(h, seed, tab=tab),
            eq_body(h=h, seed=seed, tab=tab),
            body([(summary.SUMMARY, "children")], model(h, seed) + [(TAB, "value", tab)]),
            body([(model_bar.SCALE_TEXT, "children")], model(h, seed))]


def click_on_cell(app, h, seed, head, query, key, tab="example") -> list[dict]:
    """Every server request one click on a heatmap cell triggers: the drill-down, the outlines, the feature map."""
    return [drilldown_body(h, seed, head, query, key, tab), feature_mix_body(h, seed, query, tab)] + [
        outline_body(app, graph, h, head, query, key, tab) for graph in (example.HEATMAPS, forms.LOGITS,
                                                                         mixing.MIX_MULTI)]


def press_train_body(seed=0, polls=0) -> dict:
    """What "train" (and each poll after it) posts: start or look in on the training of `seed`."""
    return body([(LEARN_READY, "data"), (learning.LEARN_POLL, "disabled"), (learning.LEARN_STATUS, "children")],
                [(learning.LEARN_REQUESTED, "data", seed), (learning.LEARN_POLL, "n_intervals", polls),
                 (TAB, "value", "learning")])
