"""The worked example's shared gates: its heatmaps read the model and the display through one, the selected
cell through another, so a click redraws no figure but the outlines. The text beside them (the summary, the
drill-down) reads the model through a third, which passes once the figure looked at has drawn."""

from .gate import CELL, DISPLAYED, SETTING, gate
from .ids import FORMS, HEATMAPS, INFLUENCE

WORKED = gate("example", ("example",), {"setting": SETTING, "display": DISPLAYED}, watch=(HEATMAPS,))
# the grids a click can come from: one of them near the screen is enough (the forms may be far above, the
# influence far below)
WORKED_CELL = gate("example-cell", ("example",), {"cell": CELL}, watch=(FORMS, HEATMAPS, INFLUENCE))
WORKED_TEXT = gate("example-text", ("example",), {"setting": SETTING}, after=True)
