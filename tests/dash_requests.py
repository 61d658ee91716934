"""Build the JSON bodies the Dash renderer posts to /_dash-update-component, for tests and benchmarks.

Every body is built from the explorer app's own `callback_map` (a public attribute of a Dash app): a callback's
inputs and state are listed in the order Dash lists them, and values are given by the names the callback's
function takes (Dash's flexible signatures, `inputs_state_indices`; a group such as `cell` or `layers` as a dict of
its names), so a body never gets the order wrong. The page's language is filled in last, as the wiring reads it.

A view reads the shared controls through its tab's store (explorer/controls.MODEL): `model-<tab>.data` holds
{"h", "seed", "size", "scale", "tau", "weights", "display"} (the learning tab's {"h", "display"}). A change of the
model fires the store; a click on a cell fires only the cell's three inputs (changedPropIds)."""

from __future__ import annotations

import json
from functools import cache
from typing import NamedTuple

from dash import Input, Output
from dash._utils import create_callback_id  # Dash's own key of a callback, as its renderer sends it

from dashboard import limits
from dashboard.explorer import clinic_controls, example
from dashboard.explorer.ui import near_id
from dashboard.explorer.controls import CELL, MODEL
from dashboard.explorer.ids import MODEL_LATER
from dashboard.wiring import LANGUAGE

LEARNING_STEP = limits.SNAPSHOT_STEPS[-1]


@cache
def explorer_app():
    """One explorer app per process, for tests that post to it."""
    from dashboard import create_app

    return create_app()


@cache
def callback_map() -> dict:
    """The explorer's callbacks as Dash keys them: its callbacks wired on a bare Dash app, so that building a body
    (in a benchmark, say) starts no server, trainer or layout. The same map as create_app()'s explorer
    (test_the_bodies_map_is_the_app_s, test_controls.py)."""
    from dash import Dash

    from dashboard.explorer import header
    from dashboard.explorer.wiring import CALLBACKS

    app = Dash("bodies")
    CALLBACKS.wire(app)
    header.CALLBACKS.wire(app)
    return app.callback_map


def port(name: str) -> dict:
    """{"id", "property"} of an "id.property" string; a dict id ({"type": …, "graph": …}) as the dict Dash sends."""
    component, prop = name.rsplit(".", 1)
    return {"id": json.loads(component) if component.startswith("{") else component, "property": prop}


def outputs_of(key: str) -> list[str]:
    """The "id.property" of each output of a callback_map key ("..a.b...c.d.." when there are several)."""
    return key[2:-2].split("...") if key.startswith("..") else [key]


def key_of(output: str) -> str:
    """The callback_map key of the one callback that writes `output` ("id.property", or the whole key)."""
    if output in callback_map():
        return output
    found = [k for k in callback_map() if output in (o.split("@")[0] for o in outputs_of(k))]
    assert len(found) == 1, (output, found)
    return found[0]


def ports(key: str) -> list[tuple[str, str]]:
    """(id, property) of a callback's inputs, then its state, in the order of its body."""
    entry = callback_map()[key]
    return [(p["id"], p["property"]) for p in entry["inputs"] + entry["state"]]


def names(key: str) -> dict:
    """The function's names, {name: index, or {sub-name: index}} (the page's language left out)."""
    indices = callback_map()[key]["inputs_state_indices"]
    assert isinstance(indices, dict), f"{key} is a positional callback: give its values as a list"
    return {k: v for k, v in indices.items() if k != "page_language"}


def flat_values(key: str, values) -> list:
    """A callback's values in its body's order, from {name: value} (groups as dicts) or a positional list."""
    slots = ports(key)
    flat = [None] * len(slots)
    if isinstance(values, list):  # a positional callback: its values in order, then the language
        flat[:len(values)] = values
        return flat
    named = names(key)
    assert sorted(values) == sorted(named), (key, sorted(values), sorted(named))
    for name, where in named.items():
        if isinstance(where, dict):
            assert sorted(values[name]) == sorted(where), (key, name, values[name])
            for sub, i in where.items():
                flat[i] = values[name][sub]
        elif isinstance(where, list):  # a group given as a list (the download's cell)
            assert len(values[name]) == len(where), (key, name, values[name])
            for i, value in zip(where, values[name]):
                flat[i] = value
        else:
            flat[where] = values[name]
    return flat


def prop_ids(*fired) -> list[str]:
    """"id.property" of each input named: an Input, a dict of Inputs (a group such as CELL), or a string."""
    out = []
    for f in fired:
        if isinstance(f, dict):
            out += prop_ids(*f.values())
        elif isinstance(f, Input):
            out.append(f"{f.component_id_str()}.{f.component_property}")  # a pattern id as JSON
        else:
            out.append(f)
    return out


def request(output: str, values=None, changed=None, lang: str = "en") -> dict:
    """The body of the callback that writes `output`, with `values` ({name: value}; by default the page's
    defaults, the layout's), after the inputs `changed` fired (by default every input: a first draw)."""
    key = key_of(output)
    values = default_values(key) if values is None else values
    flat = flat_values(key, values)
    slots = ports(key)
    language = slots.index((LANGUAGE, "data"))
    flat[language] = lang
    entry = callback_map()[key]
    n_inputs = len(entry["inputs"])
    parts = [port(name) for name in outputs_of(key)]
    body = [{**port(f"{i}.{p}"), "value": v} for (i, p), v in zip(slots, flat)]  # dict ids as the browser sends
    return {
        "output": key,
        "outputs": parts if key.startswith("..") else parts[0],
        "inputs": body[:n_inputs],
        "state": body[n_inputs:],
        "changedPropIds": [f"{i}.{p}" for i, p in slots[:n_inputs]] if changed is None else prop_ids(*changed),
    }


def body(outputs, inputs, state=(), changed=None, lang=None) -> dict:
    """A body for any Dash app (the bench's plain floor app too): `outputs` (id, property) pairs, `inputs` and
    `state` (id, property, value) triples; a page language is added to the state only when `lang` is given."""
    if lang is not None:
        state = [*state, (LANGUAGE, "data", lang)]
    outputs = [Output(*o) for o in outputs]
    multi = len(outputs) > 1
    key = create_callback_id(outputs if multi else outputs[0], [Input(i, p) for i, p, _ in inputs])
    out = [dict(zip(("id", "property"), name.rsplit(".", 1))) for name in outputs_of(key)]
    return {
        "output": key,
        "outputs": out if multi else out[0],
        "inputs": [{"id": i, "property": p, "value": v} for i, p, v in inputs],
        "state": [{"id": i, "property": p, "value": v} for i, p, v in state],
        "changedPropIds": changed or [f"{inputs[0][0]}.{inputs[0][1]}"],
    }


# ---- the page's values -----------------------------------------------------------------------------------------

def displayed(narrow=False, lecture=False) -> dict:
    return {"narrow": narrow, "lecture": lecture}


def setting(h=limits.DEFAULT_HEADS, seed=limits.DEFAULT_SEED, size=limits.DEFAULT_SIZE, scale=limits.DEFAULT_SCALE,
            tau=limits.DEFAULT_TAU_STEP, weights=limits.DEFAULT_WEIGHTS) -> dict:
    """The model controls (controls.SETTING), by name."""
    return {"h": h, "seed": seed, "size": size, "scale": scale, "tau": tau, "weights": weights}


def model(h=limits.DEFAULT_HEADS, seed=limits.DEFAULT_SEED, narrow=False, **controls) -> dict:
    """What a model tab's store holds (controls.MODEL[tab]): the setting and the display."""
    return {**setting(h, seed, **controls), "display": displayed(narrow)}


def heads_store(h=limits.DEFAULT_HEADS, narrow=False) -> dict:
    """What the learning tab's store holds."""
    return {"h": h, "display": displayed(narrow)}


def cell(head=1, query=0, key=1) -> dict:
    return {"head": head, "query": query, "key": key}


def layers(bug=limits.DEFAULT_BUG, mystery=limits.NO_MYSTERY, causal=False) -> dict:
    return {"bug": bug, "mystery": mystery, "causal": causal}


@cache
def layout_values() -> dict:
    """{(id, property): value} of every component the page's layout builds, and each tab store as the browser
    fills it from the layout's controls (explorer.tabStore)."""
    from dashboard.explorer import layout

    values = {}
    for c in layout()._traverse():
        if isinstance(getattr(c, "id", None), str):
            for prop in c._prop_names:
                if getattr(c, prop, None) is not None:
                    values[(c.id, prop)] = getattr(c, prop)
    for store in MODEL.values():
        values[(store.id, "data")] = {name: values[where] for name, where in store.fields.items()}
    for passed, store in PASSED_ON.items():
        values[(passed, "data")] = values[(store, "data")]
    return values


# A store a server callback fills with its tab store's data (explorer/example.relay_model): the callbacks that read it
# follow that tab's changes of the model, a round trip later
PASSED_ON = {MODEL_LATER: MODEL["example"].id}


def default_values(key: str) -> dict:
    """A view callback's values by name at the page's defaults (None where the layout sets nothing: a click
    count, a poll count), a figure that waits to come near the screen (ui.waiting) having come near and drawn."""
    key, known = key_of(key), layout_values()
    slots = ports(key)
    def value(where):
        if isinstance(where, dict):
            return {sub: known.get(slots[i]) for sub, i in where.items()}
        return [known.get(slots[i]) for i in where] if isinstance(where, list) else known.get(slots[where])

    values = {name: value(where) for name, where in names(key).items()}
    return {**values, **{k: v for k, v in (("near", 1), ("drawn", True)) if k in values}}


class ViewCallback(NamedTuple):
    key: str  # the callback_map key
    function: object  # as its module names it, which never sees the page's language


def module_function(entry: dict):
    """The function a callback_map entry runs, as its module names it: under Dash's context wrapper and the
    wiring's page-language wrapper (dashboard/wiring.py)."""
    return entry["callback"].__wrapped__.__wrapped__


def view_callbacks() -> list[ViewCallback]:
    """Every server callback that reads named values (Dash's flexible signatures)."""
    return [ViewCallback(k, module_function(v)) for k, v in callback_map().items()
            if isinstance(v["inputs_state_indices"], dict)]


def key_of_function(function) -> str:
    (key,) = [k for k, v in callback_map().items() if "callback" in v and module_function(v) is function]
    return key


def store_of(key: str) -> str | None:
    """The id of the tab store a server callback reads as an input, if any (directly, or as PASSED_ON)."""
    entry, stores = callback_map()[key], {s.id for s in MODEL.values()}
    found = [PASSED_ON.get(p["id"], p["id"]) for p in entry["inputs"] if p["id"] in stores | PASSED_ON.keys()]
    return found[0] if found and isinstance(entry["inputs_state_indices"], dict) else None


# ---- requests one action sends ---------------------------------------------------------------------------------

STORE = {tab: [s.input] for tab, s in MODEL.items()}  # a change of the model fires the tab's store
CLICK = [CELL]  # a click on a heatmap fires the selected cell's inputs only
CLINIC_SELECTED = tuple(clinic_controls.CLINIC_DEFAULT_CELL)


def heatmaps_body(h=8, seed=3, narrow=False, selected=(1, 0, 1), changed=None, hidden=None, **controls) -> dict:
    """The worked example's heatmaps; `controls` are size, scale, tau and weights; `hidden` what the class
    predicts (explorer/predict.py)."""
    return request("heatmaps.figure", {"shared": model(h, seed, narrow, **controls), "cell": cell(*selected),
                                       "hidden": hidden}, STORE["example"] if changed is None else changed)


def example_body(output: str, h=8, seed=3, narrow=False, **controls) -> dict:
    """A worked-example callback that reads the store only (tokens, blocks, worked text, forward, summary, ...)."""
    return request(output, {"shared": model(h, seed, narrow, **controls)}, STORE["example"])


def celled_body(output: str, h=8, seed=3, selected=(1, 0, 1), changed=None, tab="example", **controls) -> dict:
    """A callback that reads its tab's store and the selected cell: forms, drill-down, influence, mixing."""
    return request(output, {"shared": model(h, seed, **controls), "cell": cell(*selected)},
                   STORE[tab] if changed is None else changed)


def cube_body(h=8, seed=3, focus=0, near=1, **controls) -> dict:
    """The cube's callback as its near button is pressed (ui.waiting) after a change of the model: it draws."""
    return request("cube-focus.options", {"shared": model(h, seed, **controls), "focus": focus, "near": near,
                                          "drawn": False}, [Input(near_id(example.CUBE), "n_clicks")])


def eq_body(perm=limits.DEFAULT_PERM, h=4, seed=0, positions=False, head=1) -> dict:
    return request("eq-inputs.figure", {"shared": model(h, seed), "perm": perm, "positions": positions, "head": head},
                   STORE["equivariance"])


def scale_text_body(h=8, seed=3, **controls) -> dict:
    return request("scale-text.children", {"setting": setting(h, seed, **controls)}, [Input("heads", "value")])


def clinic_values(h=4, seed=0, bug=limits.DEFAULT_BUG, mystery=0, causal=False, selected=CLINIC_SELECTED,
                  **controls) -> dict:
    return {"shared": model(h, seed, **controls), "layers": layers(bug, mystery, causal), "cell": cell(*selected)}


def clinic_body(changed=None, **clinic) -> dict:
    """The bug clinic's heatmaps, outputs and headline."""
    return request("clinic-heatmaps.figure", clinic_values(**clinic), STORE["clinic"] if changed is None else changed)


def clinic_path_body(**clinic) -> dict:
    return request("clinic-path.children", clinic_values(**clinic), STORE["clinic"])


def clinic_forward_body(**clinic) -> dict:
    values = clinic_values(**clinic)
    del values["cell"]
    return request("clinic-forward.figure", values, STORE["clinic"])


def clinic_checks_body(checks=None, polls=0, **clinic) -> dict:
    """The clinic's tables and story (the store fired, or a poll while the layers train)."""
    values = clinic_values(**clinic)
    del values["cell"]
    values.update(which=limits.DEFAULT_CHECKS if checks is None else checks, polls=polls)
    return request("clinic-table.children", values, STORE["clinic"] if polls == 0 else ["clinic-poll.n_intervals"])


def clinic_answer_body(answer, mystery, h=4, seed=0, causal=False, clicks=1) -> dict:
    """"check my answer" pressed in mystery mode."""
    values = {"clicks": clicks, "shared": model(h, seed), "layers": layers(limits.DEFAULT_BUG, mystery, causal),
              "answer": answer}
    return request("clinic-verdict.children", values, ["clinic-submit.n_clicks"])


def trained(seed=0, ready=0) -> dict:
    return {"seed": seed, "ready": ready}


def learning_bodies(h, seed=0, step=LEARNING_STEP) -> list[dict]:
    """The learning tab's requests for a change of h: the task, the loss, the heads, the surgery's options and
    result (`seed` is the trained seed the page shows)."""
    shared, shown = heads_store(h), trained(seed, seed)
    cuts = {"off": [], "uniform": [], "swap": "none"}
    return [request("learn-task.figure", {"shared": shared}, STORE["learning"]),
            request("learn-loss.figure", {"shared": shared, "trained": shown}, STORE["learning"]),
            request("learn-attention.figure", {"shared": shared, "trained": shown, "step": step}, STORE["learning"]),
            request("surgery-off.options", {"shared": shared}, STORE["learning"]),
            request("surgery-result.children", {"shared": shared, "trained": shown, "cuts": cuts}, STORE["learning"])]


def press_train_body(seed=0, polls=0) -> dict:
    """What "train" (and each poll after it) posts: start or look in on the training of `seed`."""
    return request("learn-ready.data", {"requested": seed, "polls": polls},
                   ["learn-requested.data"] if polls == 0 else ["learn-poll.n_intervals"])


def change_of_model(h=8, seed=3, tab="example", **controls) -> list[dict]:
    """Every server request one change of the shared controls sends while `tab` is shown, once the student has
    scrolled through it: each callback that reads the tab's store (the rest at the page's defaults), and the
    model bar's scale text."""
    shared = heads_store(h) if tab == "learning" else model(h, seed, **controls)
    return [request(key, {**default_values(key), "shared": shared}, fired_by(key, tab)) for key in callback_map()
            if store_of(key) == MODEL[tab].id] + [scale_text_body(h, seed, **controls)]


def fired_by(key: str, tab: str) -> list[Input]:
    """The input a change of `tab`'s model fires in the callback `key`: the tab's store, or the store that passes
    it on (PASSED_ON), a round trip later."""
    read = {p["id"] for p in callback_map()[key]["inputs"]}
    return [Input(store, "data") for store in PASSED_ON if store in read] or STORE[tab]


def change_of_heads(h, seed, tab="example") -> list[dict]:
    """Every server request one change of h sends while `tab` is shown (hidden tabs' stores do not change)."""
    return change_of_model(h, seed, tab)


def click_on_cell(h, seed, head, query, key, tab="example") -> list[dict]:
    """Every server request one click on a heatmap cell sends: the shown tab's callbacks that read the cell,
    with only the cell's inputs fired."""
    store = MODEL[tab]
    return [request(k, {**default_values(k), "shared": model(h, seed), "cell": cell(head, query, key)}, CLICK)
            for k in callback_map() if store_of(k) == store.id and "cell" in names(k)]
