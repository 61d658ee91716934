"""The bug clinic's shared controls: the bug, the mystery, the mask and the followed cell, and the bug they pick.
The clinic's heatmaps (explorer/clinic.py) and the views that follow the bug (explorer/clinic_path.py) read them
by name, beside the tab's model store (controls.MODEL["clinic"])."""

from __future__ import annotations

from typing import NamedTuple

from dash import Input

from .. import bugs, limits
from ..i18n import N_
from .controls import Cell, cell_inputs

CLINIC_BUG = "clinic-bug"
MYSTERY = "clinic-mystery"
CLINIC_CAUSAL = "clinic-causal"
CLINIC_HEATMAPS = "clinic-heatmaps"  # the correct layer's A^(i)
CLINIC_BUGGY = "clinic-buggy-heatmaps"  # the buggy layer's, in the same grid
# the cell whose path the clinic follows: head i (1..h), query r and key j (0..n-1); a click on either grid sets it
CLINIC_HEAD = "clinic-head"
CLINIC_QUERY = "clinic-query"
CLINIC_KEY = "clinic-key"
CLINIC_DEFAULT_CELL = Cell(head=1, query=3, key=1)  # below the diagonal, so a causal mask leaves it a weight
CLINIC_CELL = cell_inputs(CLINIC_HEAD, CLINIC_QUERY, CLINIC_KEY)

LAYERS = {"bug": Input(CLINIC_BUG, "value"), "mystery": Input(MYSTERY, "value"),
          "causal": Input(CLINIC_CAUSAL, "value")}


class Layers(NamedTuple):
    """Which layers the clinic compares, checked: the bug switched in, the mystery's number (0: none), the mask."""

    bug: str
    mystery: int
    causal: bool

    @classmethod
    def parse(cls, bug, mystery, causal) -> Layers:
        """The three controls (LAYERS), or limits.Invalid."""
        return cls(limits.bug(bug), limits.mystery(mystery), limits.flag(causal))


def shown(bug_key: str, mystery: int, causal: bool) -> tuple[bugs.Bug, str]:
    """The bug on the page and what its panels are called (in English, translated where shown): the chosen one,
    or the mystery's, unnamed."""
    bug = bugs.mystery(mystery, causal) if mystery else bugs.BUGS_BY_KEY[bug_key]
    # Translators: what the buggy layer's panels are called, as in "head 1, mystery" or "output, with the bug"
    return bug, N_("mystery") if mystery else N_("with the bug")
