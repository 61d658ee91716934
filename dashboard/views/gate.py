"""The browser draws what the student can see: hidden tabs do no work, a figure far from the screen waits
until the student scrolls to it, and nothing redraws that did not change.

A view's server callbacks read their controls through a gate: a store that the browser
(explorer.gate in assets/clientside.js) fills with the controls' values only while one of the gate's
tabs is shown, only while a graph it watches (if any) is within half a screen of the viewport, and only
when the values differ from those the view last drew. So a first load draws the top of the page; a
change of h sends requests for the figures near the screen; a figure further away redraws, once, when
the student scrolls to it; a return to a tab whose controls did not change sends nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from dash import Input, Output, State, ctx, dcc
from dash.exceptions import PreventUpdate

from ..ids import CONFIG, DISPLAY, HEADS, SCALE, SEED, NEAR, SEL_HEAD, SEL_KEY, SEL_QUERY, SIZE, TAB, TAU
from ..wiring import clientside_callback

# The controls most gates pass on, by name: (component id, property).
MODEL = {"h": (HEADS, "value"), "seed": (SEED, "value"), "size": (SIZE, "value"), "scale": (SCALE, "value"),
         "tau": (TAU, "value")}
DISPLAYED = {"display": (DISPLAY, "data")}
CELL = {"head": (SEL_HEAD, "value"), "query": (SEL_QUERY, "value"), "key": (SEL_KEY, "value")}


@dataclass(frozen=True)
class Gate:
    id: str
    tabs: tuple[str, ...]
    names: tuple[str, ...]  # the controls, in the order of the store's list
    watch: tuple[str, ...]  # graphs one of which must be near the screen (none: no wait)

    @property
    def input(self) -> Input:
        return Input(self.id, "data")

    def values(self, data) -> list:
        """The controls' values in the gate's order, each still to be checked by its own rule.
        Anything but a list of that length (a forged request) is PreventUpdate."""
        if not (isinstance(data, list) and len(data) == len(self.names)):
            raise PreventUpdate
        return data

    def triggered(self) -> bool:
        """Whether this gate's store is among the inputs that fired the running callback."""
        return f"{self.id}.data" in ctx.triggered_prop_ids


GATES: list[Gate] = []


def gate(name: str, tabs: tuple[str, ...], controls: dict[str, tuple[str, str]],
         watch: tuple[str, ...] = ()) -> Gate:
    """A gate named `name` that passes `controls` on while one of `tabs` is shown (and one of the graphs
    in `watch` is near the screen)."""
    g = Gate(f"gate-{name}", tabs, tuple(controls), watch)
    GATES.append(g)
    clientside_callback("gate", Output(g.id, "data"), Input(TAB, "value"), Input(NEAR, "data"),
                        *[Input(component, prop) for component, prop in controls.values()],
                        State(g.id, "data"), State(CONFIG, "data"))
    return g


def stores() -> list[dcc.Store]:
    return [dcc.Store(id=NEAR, data=[])] + [dcc.Store(id=g.id) for g in GATES]


def client_config() -> dict:
    """Each gate's tabs and watched graph, for explorer.gate."""
    return {g.id: {"tabs": list(g.tabs), "watch": g.watch} for g in GATES}
