"""The worked example's shared gates: its heatmaps, summary and drill-down read the model and the display
through one, the selected cell through another, so a click redraws no figure but the outlines."""

from .gate import CELL, DISPLAYED, SETTING, gate
from .ids import FORMS, HEATMAPS, INFLUENCE

WORKED = gate("example", ("example",), {"setting": SETTING, "display": DISPLAYED}, watch=(HEATMAPS,))
# the grids a click can come from: one of them near the screen is enough (the forms may be far above, the
# influence far below)
WORKED_CELL = gate("example-cell", ("example",), {"cell": CELL}, watch=(FORMS, HEATMAPS, INFLUENCE))
