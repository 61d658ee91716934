"""The bug clinic's shared controls: the bug, the mystery, the mask and the selected cell, and the bug they pick.
The clinic's heatmaps (explorer/clinic.py) and the views that follow the bug (explorer/clinic_path.py) read them
through these gates."""

from __future__ import annotations

from .. import bugs, limits
from ..i18n import N_
from .gate import DISPLAYED, SETTING, Cell, cell_control, field, gate

BUG = "clinic-bug"
MYSTERY = "clinic-mystery"
CAUSAL = "clinic-causal"
HEATMAPS = "clinic-heatmaps"  # the correct layer's A^(i)
BUGGY = "clinic-buggy-heatmaps"  # the buggy layer's, in the same grid
# the cell whose path the clinic follows: head i (1..h), query r and key j (0..n-1); a click on either grid sets it
HEAD = "clinic-head"
QUERY = "clinic-query"
KEY = "clinic-key"
DEFAULT_CELL = Cell(head=1, query=3, key=1)  # below the diagonal, so a causal mask leaves it a weight

BUG_FIELD = field("bug", BUG, parse=limits.bug)
MYSTERY_FIELD = field("mystery", MYSTERY, parse=limits.mystery)
CAUSAL_FIELD = field("causal", CAUSAL, parse=limits.flag)
CELL_FIELD = cell_control(HEAD, QUERY, KEY, DEFAULT_CELL)
LAYERS = {"setting": SETTING, "bug": BUG_FIELD, "mystery": MYSTERY_FIELD, "causal": CAUSAL_FIELD}

CLINIC = gate("clinic", ("clinic",), {**LAYERS, "display": DISPLAYED}, watch=(HEATMAPS,))
CLINIC_CELL = gate("clinic-cell", ("clinic",), {"cell": CELL_FIELD}, watch=(HEATMAPS, BUGGY))


def shown(bug_key: str, mystery: int) -> tuple[bugs.Bug, str]:
    """The bug on the page and what its panels are called (in English, translated where shown): the chosen one,
    or the mystery's, unnamed."""
    # Translators: what the buggy layer's panels are called, as in "head 1, mystery" or "output, with the bug"
    return (bugs.mystery(mystery), N_("mystery")) if mystery else (bugs.BY_KEY[bug_key], N_("with the bug"))
