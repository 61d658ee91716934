"""The bug clinic: the correct layer's attention beside the buggy layer's, head by head, and their outputs."""

from __future__ import annotations

import numpy as np

from . import DESKTOP, FEATURE_SCALE, Display, head_label, heatmap_grid


def paired_heatmaps(A_correct: np.ndarray, A_buggy: np.ndarray, buggy: str, display: Display = DESKTOP) -> dict:
    """Each head's A^(i) of the correct layer beside the buggy layer's, two pairs a row (one in lecture mode and
    on a phone), all on one colour scale; each (h, n, n)."""
    panels = [A for i in range(len(A_correct)) for A in (A_correct[i], A_buggy[i])]
    titles = [title for i in range(len(A_correct))
              for title in (f"{head_label(i)} correct", f"{head_label(i)} {buggy}")]
    return heatmap_grid(panels, titles, max_cols=2 if display.lecture else 4, display=display,
                        zmax=float(max(A_correct.max(), A_buggy.max())))


def output_difference(correct: np.ndarray, buggy: np.ndarray, label: str, display: Display = DESKTOP) -> dict:
    """MultiHead(X) of both layers and the buggy one's minus the correct one's, each (n, d), on one signed scale."""
    return heatmap_grid([correct, buggy, buggy - correct], ["output, correct", f"output, {label}", "difference"],
                        max_cols=3, zmin=None, colorscale=FEATURE_SCALE, display=display, colorbar_title="value",
                        x_title="feature", y_title="token", value_name="value", panel_px=300)
