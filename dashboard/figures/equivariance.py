"""Equivariance: X against PX, and A(PX) against P A(X) P^T."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from . import DESKTOP, FEATURE_SCALE, Display, base_layout, head_title, heatmap_grid


def token_labels(order) -> list[str]:
    """Tick labels that name the token sitting in each row, e.g. 't5'."""
    return [f"t{int(t)}" for t in order]


def equivariance_inputs(X_in: np.ndarray, PX_in: np.ndarray, perm, with_positions: bool = False,
                        display: Display = DESKTOP) -> dict:
    """X and PX, each (n, d) with positions E already added if any, rows named by the token they hold."""
    rows = [token_labels(range(len(perm))), token_labels(perm)]
    titles = ["X + E", "PX + E"] if with_positions else ["X", "PX"]
    return heatmap_grid([X_in, PX_in], titles, max_cols=2, zmin=None, colorscale=FEATURE_SCALE, display=display,
                        colorbar_title=_("feature value"), x_title=_("feature"), y_title=_("row"), value_name="x",
                        row_labels=rows, panel_px=300)


def equivariance_attention(A_X: np.ndarray, A_PX: np.ndarray, PAP: np.ndarray, perm, head: int,
                           display: Display = DESKTOP, with_positions: bool = False) -> dict:
    """For one head: A(PX) and P A(X) P^T first, side by side on every page width (they are equal when
    equivariance holds), then A(X); each (n, n)."""
    ident, permuted = token_labels(range(len(perm))), token_labels(perm)
    X, PX = ("X + E", "PX + E") if with_positions else ("X", "PX")
    # Translators: a panel's title: an attention head ("head 2") and the formula of its map, e.g. "A(PX)"; the
    # seed's A^(i) as "head i: A", whose index a title can draw full size
    titled = lambda formula: _("{head}: {formula}").format(head=head_title(head), formula=formula)  # noqa: E731
    return heatmap_grid(
        [A_PX, PAP, A_X], [titled(f"A({PX})"), titled(f"P A({X}) Pᵀ"), titled(f"A({X})")], max_cols=3,
        display=display,
        zmax=float(max(A_X.max(), A_PX.max())), row_labels=[permuted, permuted, ident],
        col_labels=[permuted, permuted, ident], panel_px=300)


def no_order(message: str) -> dict:
    """In place of the figures while the typed order is not one: no axes, the reason."""
    return {"data": [], "layout": base_layout(
        height=120, xaxis={"visible": False}, yaxis={"visible": False},
        annotations=[{"text": message, "showarrow": False, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}])}
