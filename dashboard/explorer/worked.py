"""The worked example's shared gates: its heatmaps read the model and the display through one, the selected
cell through another, so a click redraws no figure but the outlines. The text beside them (the summary, the
drill-down) reads the model through a third, which passes once the figure looked at has drawn, and the drill-down
reads the cell through a fourth that waits for no grid: a click answers at once, and a link's cell is there from
the first draw (the outlines' gate, until a grid comes near the screen, holds the layout's cell)."""

from .gate import CELL, DISPLAYED, SETTING, gate
from .ids import FORMS, HEATMAPS, INFLUENCE

# First: Dash sends the callbacks of one gates callback in the order of its outputs, and each answer is drawn as it
# comes. After the outlines' draws, the drill-down (a click's answer) took 0.15 s, not 0.07.
DRILL_CELL = gate("drill-cell", ("example",), {"cell": CELL})
WORKED = gate("example", ("example",), {"setting": SETTING, "display": DISPLAYED}, watch=(HEATMAPS,))
# the grids a click can come from: one of them near the screen is enough (the forms may be far above, the
# influence far below)
WORKED_CELL = gate("example-cell", ("example",), {"cell": CELL}, watch=(FORMS, HEATMAPS, INFLUENCE))
WORKED_TEXT = gate("example-text", ("example",), {"setting": SETTING}, after=True)
