"""Build the JSON bodies the Dash renderer posts to /_dash-update-component, for tests and benchmarks."""

from dashboard import layout as L

EXAMPLE_OUTPUTS = [(L.BLOCKS, "figure"), (L.HEATMAPS, "figure"), (L.CUBE, "figure")]
MIXING_OUTPUTS = [(L.MIX_SINGLE, "figure"), (L.MIX_MULTI, "figure")]
EQ_OUTPUTS = [(L.EQ_INPUTS, "figure"), (L.EQ_ATTENTION, "figure"), (L.EQ_CHECK, "children"),
              (L.PERM, "invalid"), (L.PERM_FEEDBACK, "children")]


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


def controls(h, seed, tab, narrow=False):
    return [(L.HEADS, "value", h), (L.SEED, "value", seed), (L.TAB, "value", tab), (L.NARROW, "data", narrow)]


def example_body(h=8, seed=3, tab="example", focus=0, narrow=False) -> dict:
    return body(EXAMPLE_OUTPUTS, controls(h, seed, tab, narrow), [(L.CUBE_FOCUS, "value", focus)])


def mixing_body(h=8, seed=3, tab="example") -> dict:
    return body(MIXING_OUTPUTS, controls(h, seed, tab))


def eq_body(perm=" ".join(map(str, range(12))), h=4, seed=0, positions=False, head=1, tab="equivariance") -> dict:
    return body(EQ_OUTPUTS, controls(h, seed, tab) + [(L.PERM, "value", perm), (L.POSITIONS, "value", positions),
                                                      (L.EQ_HEAD, "value", head)])


def change_of_heads(h, seed, tab="example") -> list[dict]:
    """Every server request one change of h triggers while `tab` is shown."""
    return [example_body(h, seed, tab), mixing_body(h, seed, tab), eq_body(h=h, seed=seed, tab=tab)]


def press_train_body(seed=0, polls=0) -> dict:
    """What "train" (and each poll after it) posts: start or look in on the training of `seed`."""
    return body([(L.LEARN_READY, "data"), (L.LEARN_POLL, "disabled"), (L.LEARN_STATUS, "children")],
                [(L.LEARN_REQUESTED, "data", seed), (L.LEARN_POLL, "n_intervals", polls), (L.TAB, "value", "learning")])
