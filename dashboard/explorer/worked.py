"""The worked example's shared gates: its heatmaps read the model and the display through one, the selected
cell through another, so a click redraws no figure but the outlines. The text beside them passes once the figure
looked at has drawn: the summary reads the model, the drill-down the model and the cell through one gate, since
the cell's own gate waits for a grid near the screen and, until it first passes, holds the layout's cell, not the
link's."""

from .gate import CELL, DISPLAYED, SETTING, gate
from .ids import FORMS, HEATMAPS, INFLUENCE

WORKED = gate("example", ("example",), {"setting": SETTING, "display": DISPLAYED}, watch=(HEATMAPS,))
# the grids a click can come from: one of them near the screen is enough (the forms may be far above, the
# influence far below)
WORKED_CELL = gate("example-cell", ("example",), {"cell": CELL}, watch=(FORMS, HEATMAPS, INFLUENCE))
WORKED_TEXT = gate("example-text", ("example",), {"setting": SETTING}, after=True)
WORKED_DRILL = gate("example-drill", ("example",), {"setting": SETTING, "cell": CELL}, after=True)
