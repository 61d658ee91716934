"""The bug clinic: the correct layer's attention and the buggy layer's, head by head, and their outputs."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from . import DESKTOP, FEATURE_SCALE, Display, heatmap_grid


def layer_heatmaps(A: np.ndarray, which: str, zmax: float, display: Display = DESKTOP) -> dict:
    """One layer's A^(i), head by head, (h, n, n), titled by `which` layer it is (translated by the caller); the
    correct layer's figure and the buggy one's share `zmax` and the grid, so head i sits in the same place in both."""
    # Translators: a panel's title: an attention head and which layer it is, "head 1, correct" (Chinese: "头 1，正确")
    return heatmap_grid(A, [_("head {k}, {layer}").format(k=i + 1, layer=which) for i in range(len(A))], zmax=zmax,
                        display=display)


def output_difference(correct: np.ndarray, buggy: np.ndarray, label: str, display: Display = DESKTOP) -> dict:
    """MultiHead(X) of both layers and the buggy one's minus the correct one's, each (n, d), on one signed scale;
    `label` (translated) names the buggy layer."""
    # Translators: "value": a number in the output (not the attention's value vectors)
    value = _("value")
    return heatmap_grid([correct, buggy, buggy - correct],
                        [_("output, correct"), _("output, {label}").format(label=label), _("difference")],
                        max_cols=3, zmin=None, colorscale=FEATURE_SCALE, display=display, colorbar_title=value,
                        x_title=_("feature"), y_title=_("token"), value_name=value, panel_px=300)
