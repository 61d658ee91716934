"""Single vs multi-head: one mixing for every column block, or one per head."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from . import DESKTOP, Display, head_title, heatmap_grid


def single_head_heatmap(A_single: np.ndarray, zmax: float, display: Display = DESKTOP) -> dict:
    """The one A = softmax(QK^T/sqrt(d)) that single-head attention applies to every column block."""
    return heatmap_grid([A_single], [_("A, for every column block")], zmax=zmax, display=display, panel_px=330)


def multi_head_heatmaps(A: np.ndarray, d_k: int, zmax: float, display: Display = DESKTOP) -> dict:
    """A^(i), titled 'head i' and the output columns it mixes: head i writes columns i*d_k .. (i+1)*d_k - 1."""
    h = len(A)
    # Translators: the output columns (features) a head writes, as in "head 2: cols 2–3" and "head 2: col 1"
    titles = [_("{head}: cols {first}–{last}").format(head=head_title(i), first=i * d_k, last=(i + 1) * d_k - 1)
              if d_k > 1 else _("{head}: col {col}").format(head=head_title(i), col=i) for i in range(h)]
    return heatmap_grid(A, titles, zmax=zmax, display=display, panel_px=330 if h == 1 else 230)
