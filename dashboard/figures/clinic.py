"""The bug clinic: the correct layer's attention and the buggy layer's, head by head, and their outputs."""

from __future__ import annotations

import numpy as np

from . import DESKTOP, FEATURE_SCALE, Display, head_title, heatmap_grid


def layer_heatmaps(A: np.ndarray, which: str, zmax: float, display: Display = DESKTOP) -> dict:
    """One layer's A^(i), head by head, (h, n, n), titled by `which` layer it is; the correct layer's figure and the
    buggy one's share `zmax` and the grid, so head i sits in the same place in both."""
    return heatmap_grid(A, [f"{head_title(i)}, {which}" for i in range(len(A))], zmax=zmax, display=display)


def output_difference(correct: np.ndarray, buggy: np.ndarray, label: str, display: Display = DESKTOP) -> dict:
    """MultiHead(X) of both layers and the buggy one's minus the correct one's, each (n, d), on one signed scale."""
    return heatmap_grid([correct, buggy, buggy - correct], ["output, correct", f"output, {label}", "difference"],
                        max_cols=3, zmin=None, colorscale=FEATURE_SCALE, display=display, colorbar_title="value",
                        x_title="feature", y_title="token", value_name="value", panel_px=300)
