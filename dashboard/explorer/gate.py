"""The browser draws what the student can see: hidden tabs do no work, a figure far from the screen waits
until the student scrolls to it, and nothing redraws that did not change.

A view's server callbacks read their controls through a gate: a store that the browser (assets/gates.js, through
explorer.js's gates callback) fills with the controls' values, by name ({"h": 4, "seed": 0, …}), only while one of the
gate's tabs is shown, only while a graph it watches (if any) is within half a screen of the viewport, and only
when the values differ from those the view last drew. `Gate.read` turns that dict into checked objects, a
`Setting`, a `Display`, a `Cell`, so no callback ever unpacks a list by position.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Callable, NamedTuple

from dash import Input, Output, State, ctx, dcc
from dash.exceptions import PreventUpdate

from .. import limits, trainer
from ..attention import HEAD_CHOICES
from ..figures import Display
from ..i18n import _
from ..state import Setting
from .ids import (CONFIG, DISPLAY, HEADS, LEARN_READY, LEARN_REQUESTED, SCALE, SEED, SEL_HEAD, SEL_KEY, SEL_QUERY,
                  SIZE, TAB, TAU, WEIGHTS)
from .wiring import clientside_callback


class Cell(NamedTuple):
    """The selected cell as the inputs hold it: head 1..h, query and key 0..n-1, still to be checked against
    the setting (limits.cell), since a message says what is wrong."""

    head: object
    query: object
    key: object


@dataclass(frozen=True)
class Control:
    """Named fields the browser sends, each (component id, property), and the parser that turns them into one
    checked object (it raises limits.Invalid)."""

    fields: dict[str, tuple[str, str]]
    parse: Callable
    start: dict | None = None  # the fields' values as the layout builds their components, where it fixes them


def field(name: str, component: str, prop: str = "value", parse: Callable = lambda value: value) -> Control:
    """A control of one field; by default passed on as it came, for a callback that answers a bad value
    with a message."""
    return Control({name: (component, prop)}, lambda **values: parse(values[name]))


def cell_control(head: str, query: str, key: str, start: Cell) -> Control:
    """A selected cell from its three inputs (ids), which the layout builds holding `start`."""
    return Control({"head": (head, "value"), "query": (query, "value"), "key": (key, "value")}, Cell,
                   start=start._asdict())


SETTING = Control({"h": (HEADS, "value"), "seed": (SEED, "value"), "size": (SIZE, "value"),
                   "scale": (SCALE, "value"), "tau": (TAU, "value"), "weights": (WEIGHTS, "value")}, Setting.parse)
DISPLAYED = field("display", DISPLAY, "data", Display.parse)
DEFAULT_CELL = Cell(head=1, query=0, key=1)  # the worked example's selection until the student picks one
CELL = cell_control(SEL_HEAD, SEL_QUERY, SEL_KEY, DEFAULT_CELL)
HEADS_ONLY = field("h", HEADS, parse=limits.heads)


class Shown(NamedTuple):
    """What the learning lab draws: the runs of training seed `seed`, or, when it is None, `message` instead."""

    seed: int | None
    message: str


def bad_training_seed() -> str:
    return _("Choose a training seed {first} to {last}.").format(first=limits.TRAINING_SEEDS[0],
                                                                  last=limits.TRAINING_SEEDS[-1])


def training_message(seed: int) -> str:
    # Translators: a status while the learning lab trains; "h = 1, 2, 4 and 8" are the numbers of heads.
    return _("training seed {seed} for h = {heads} and {last} …").format(
        seed=seed, heads=", ".join(map(str, HEAD_CHOICES[:-1])), last=HEAD_CHOICES[-1])


def shown_seed(seed, ready) -> Shown:
    """The seed asked for (`seed`) once the page has heard its runs are ready (`ready`); until then a message, so
    that no view draws one seed's runs under another seed's number."""
    try:
        seed = limits.training_seed(seed)
    except limits.Invalid:
        return Shown(None, bad_training_seed())
    if not (limits.is_int(ready) and ready == seed):
        return Shown(None, training_message(seed))
    # Another worker may have trained it (each trains its own): the runs are deterministic, so this one trains
    # them too and waits, once per seed.
    trainer.training_runs(seed)
    return Shown(seed, "")


# the learning lab's and its surgery's
TRAINED = Control({"seed": (LEARN_REQUESTED, "data"), "ready": (LEARN_READY, "data")}, shown_seed)


@dataclass(frozen=True)
class Gate:
    id: str
    tabs: tuple[str, ...]
    controls: dict[str, Control]  # the checked objects `read` returns, by name
    watch: tuple[str, ...]  # graphs one of which must be near the screen (none: no wait)
    after: bool = False  # text beside figures: it passes once the figure looked at has drawn

    @property
    def input(self) -> Input:
        return Input(self.id, "data")

    @property
    def fields(self) -> list[str]:
        """The names the browser sends, in the order of the gate's inputs."""
        return [name for control in self.controls.values() for name in control.fields]

    @property
    def start(self) -> dict | None:
        """What the gate holds before it first passes: its controls' start values when the layout fixes them all (a
        selected cell; the setting the model bar's sentence is built for), else None. The browser passes nothing that
        only repeats them (a load used to pass the cell on its own, and the callback it woke, its other gate still
        null, was refused)."""
        if any(control.start is None for control in self.controls.values()):
            return None
        start = {name: value for control in self.controls.values() for name, value in control.start.items()}
        return {name: start[name] for name in self.fields}  # the browser's order: gates.js compares JSON

    def read(self, data):
        """The gate's controls as checked objects, by name (`.setting`, `.display`, …). Anything but a dict of
        exactly the gate's fields (a forged request), or a value no control can send, is PreventUpdate. A gate that
        has not passed yet (None) reads as its start values, if it has them."""
        data = self.start if data is None else data
        if not (isinstance(data, dict) and sorted(data) == sorted(self.fields)):
            raise PreventUpdate
        try:
            values = {name: control.parse(**{f: data[f] for f in control.fields})
                      for name, control in self.controls.items()}
        except limits.Invalid:
            raise PreventUpdate from None
        return namedtuple("Reading", values)(**values)

    def triggered(self) -> bool:
        """Whether this gate's store is among the inputs that fired the running callback."""
        return f"{self.id}.data" in ctx.triggered_prop_ids


GATES: list[Gate] = []


def gate(name: str, tabs: tuple[str, ...], controls: dict[str, Control], watch: tuple[str, ...] = (),
         after: bool = False) -> Gate:
    """A gate named `name` that passes `controls` on while one of `tabs` is shown (and one of the graphs
    in `watch` is near the screen; with `after`, once the figure looked at has drawn). `wire` gives it its
    clientside callback."""
    g = Gate(f"gate-{name}", tabs, controls, watch, after)
    assert len(set(g.fields)) == len(g.fields), f"{name}: two controls send the same field"
    GATES.append(g)
    return g


def wire(others: list[tuple]) -> None:
    """The gates' clientside callbacks (explorer.gates), once every view has made its gates. `others` holds the
    dependencies of every other callback but the URL's reader, which writes every control, but only as the page
    loads and on back and forward, when every gate waits for it anyway.

    Dash runs a callback only after every callback of the same change that writes one of its inputs. Most inputs
    that other callbacks write change on their own (a click on a cell, lecture mode), so the gates that read them
    share one callback with every other gate. An input written by a callback that a control or a gate starts is
    held: a change of h resets the equivariance tab's head buttons, a new size its token order, and the learning
    lab's runs are ready only after its request passed. A gate that reads one shares a callback only with gates
    that read the same, so no other gate waits for those callbacks (nor closes a loop through the learning lab's).
    Dash's renderer spends time on each callback of a change, more the more there are at once: three callbacks for
    29 gates, not one a gate, bring a change of h to its first request in about 35 ms, not 100."""
    held = held_inputs(others)
    groups: dict[frozenset, list[Gate]] = {}
    for g in GATES:
        groups.setdefault(frozenset(inputs(g)) & held, []).append(g)
    for members in groups.values():
        read = list(dict.fromkeys(pair for g in members for pair in inputs(g)))
        clientside_callback("gates", *[Output(g.id, "data") for g in members], Input(TAB, "value"),
                            *[Input(component, prop) for component, prop in read],
                            *[State(g.id, "data") for g in members], State(CONFIG, "data"))


def held_inputs(others: list[tuple]) -> set[tuple[str, str]]:
    """What the callbacks `others` write when a control or a gate starts them: (component, property) pairs."""
    starts = {pair for g in GATES for pair in inputs(g)} | {(TAB, "value")} | {(g.id, "data") for g in GATES}
    held = set()
    for dependencies in others:
        if any(isinstance(d, Input) and (d.component_id, d.component_property) in starts for d in dependencies):
            held |= {(d.component_id, d.component_property) for d in dependencies if isinstance(d, Output)}
    return held


def inputs(g: Gate) -> list[tuple[str, str]]:
    """The (component, property) of each of the gate's fields, in their order."""
    return [pair for control in g.controls.values() for pair in control.fields.values()]


def stores() -> list[dcc.Store]:
    return [dcc.Store(id=g.id) for g in GATES]


def client_config() -> dict:
    """Each gate's tabs, watched graphs, whether it waits for the figure looked at, field names and the inputs
    they come from ("id.property"), for explorer.gates."""
    return {g.id: {"tabs": list(g.tabs), "watch": g.watch, "after": g.after, "fields": g.fields, "start": g.start,
                   "inputs": [f"{component}.{prop}" for component, prop in inputs(g)]}
            for g in GATES}
