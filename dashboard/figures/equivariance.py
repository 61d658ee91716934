"""Equivariance: X against PX, and A(PX) against P A(X) P^T."""

from __future__ import annotations

import numpy as np

from . import DESKTOP, FEATURE_SCALE, Display, head_label, heatmap_grid


def token_labels(order) -> list[str]:
    """Tick labels that name the token sitting in each row, e.g. 't5'."""
    return [f"t{int(t)}" for t in order]


def equivariance_inputs(X_in: np.ndarray, PX_in: np.ndarray, perm) -> dict:
    """X and PX, each (n, d) with positions already added if any, rows named by the token they hold."""
    rows = [token_labels(range(len(perm))), token_labels(perm)]
    return heatmap_grid([X_in, PX_in], ["X", "PX"], max_cols=2, zmin=None, colorscale=FEATURE_SCALE,
                        colorbar_title="x", x_title="feature", y_title="row", value_name="x",
                        row_labels=rows, panel_px=300)


def equivariance_attention(A_X: np.ndarray, A_PX: np.ndarray, PAP: np.ndarray, perm, head: int,
                           display: Display = DESKTOP) -> dict:
    """For one head: A(X), A(PX) and P A(X) P^T, each (n, n); the last two are equal when equivariance holds."""
    ident, permuted = token_labels(range(len(perm))), token_labels(perm)
    label = head_label(head)
    return heatmap_grid(
        [A_X, A_PX, PAP], [f"{label}(X)", f"{label}(PX)", f"P {label}(X) Pᵀ"], max_cols=3, display=display,
        zmax=float(max(A_X.max(), A_PX.max())), row_labels=[ident, permuted, permuted],
        col_labels=[ident, permuted, permuted], panel_px=300)
