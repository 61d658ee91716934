"""The controls views read, by name, and the one store per tab that keeps hidden tabs from working.

A view's callback names what it reads with Dash's flexible callback signatures:

    @callback(Output(TOKENS, "figure"), inputs=dict(shared=MODEL["example"].input), prevent_initial_call=True)
    def update_tokens(shared):
        view = ModelView.parse(shared)          # raises limits.Invalid; the callback wrapper answers no update

The header's h and seed, the model bar's size, scale, τ and weights, and the display (phone width, lecture mode) can
change while any tab is shown. Each tab reads them through its own store (`MODEL[tab]`), which a small clientside
callback (explorer.js, tabStore) fills with their values, by name, only while the tab is shown and only when they
differ from what the store holds. So a change of h asks for the shown tab's figures and nothing for hidden tabs, and
a return to a tab whose model did not change asks for nothing. Controls that live in one tab (the bug, the token
order, the selected cell) change only while their tab is shown, so views read those directly.

Why a store per tab, measured: without it, every mounted hidden tab's callbacks answer each change of h (11 more
requests on the worked example's change after the other four tabs were visited); tests/test_controls.py holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from dash import Input, Output, State, dcc

from .. import limits
from ..figures import Display
from ..state import Setting
from .ids import CONFIG, DISPLAY, HEADS, SCALE, SEED, SEL_HEAD, SEL_KEY, SEL_QUERY, SIZE, TAB, TAU, WEIGHTS
from .wiring import clientside_callback

# the model setting, as Setting.parse takes it
SETTING_FIELDS = {"h": HEADS, "seed": SEED, "size": SIZE, "scale": SCALE, "tau": TAU, "weights": WEIGHTS}
SETTING = {name: Input(component, "value") for name, component in SETTING_FIELDS.items()}


class Cell(NamedTuple):
    """The selected cell as the inputs hold it: head 1..h, query and key 0..n-1, still to be checked against
    the setting (limits.cell), since a message says what is wrong."""

    head: object
    query: object
    key: object


def cell_inputs(head: str, query: str, key: str) -> dict[str, Input]:
    """A selected cell's three number boxes, by name, as Cell takes them."""
    return {"head": Input(head, "value"), "query": Input(query, "value"), "key": Input(key, "value")}


DEFAULT_CELL = Cell(head=1, query=0, key=1)  # the worked example's selection until the student picks one
CELL = cell_inputs(SEL_HEAD, SEL_QUERY, SEL_KEY)  # the worked example's and the mixing tab's selection


def named(data, names: list[str]) -> dict:
    """A store's dict with exactly these names, or limits.Invalid: a forged request can send any JSON."""
    if not (isinstance(data, dict) and sorted(data) == sorted(names)):
        raise limits.Invalid("not this store's fields")
    return dict(data)


class ModelView(NamedTuple):
    """A model tab's store, checked: the setting and how figures are drawn."""

    setting: Setting
    display: Display

    @classmethod
    def parse(cls, data) -> ModelView:
        """The store's dict, or limits.Invalid for anything else (a forged request can send any JSON)."""
        fields = named(data, [*SETTING_FIELDS, "display"])
        display = fields.pop("display")
        return cls(Setting.parse(**fields), Display.parse(display))


class HeadsView(NamedTuple):
    """The learning tab's store, checked: h (the lab shows the run trained with it) and the display."""

    h: int
    display: Display

    @classmethod
    def parse(cls, data) -> HeadsView:
        fields = named(data, ["h", "display"])
        return cls(limits.heads(fields["h"]), Display.parse(fields["display"]))


@dataclass(frozen=True)
class TabStore:
    """The store a tab's views read the shared controls through (see the module's docstring)."""

    tab: str
    fields: dict[str, tuple[str, str]]  # name: (component, property)

    @property
    def id(self) -> str:
        return f"model-{self.tab}"

    @property
    def input(self) -> Input:
        return Input(self.id, "data")

    def store(self) -> dcc.Store:
        """In the tab's section, so it mounts with the tab's figures and fills as it mounts."""
        return dcc.Store(id=self.id)


MODEL_FIELDS = {**{name: (component, "value") for name, component in SETTING_FIELDS.items()},
                "display": (DISPLAY, "data")}
MODEL = {tab: TabStore(tab, MODEL_FIELDS) for tab in ("example", "mixing", "equivariance", "clinic")}
MODEL["learning"] = TabStore("learning", {"h": (HEADS, "value"), "display": (DISPLAY, "data")})

for tab_store in MODEL.values():
    clientside_callback("tabStore", Output(tab_store.id, "data"), Input(TAB, "value"),
                        *[Input(component, prop) for component, prop in tab_store.fields.values()],
                        State(tab_store.id, "data"), State(CONFIG, "data"))


def client_config() -> dict:
    """Each store's tab and field names, in the order of its callback's inputs, for explorer.tabStore."""
    return {s.id: {"tab": s.tab, "fields": list(s.fields)} for s in MODEL.values()}
