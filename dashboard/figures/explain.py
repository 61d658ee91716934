"""Figures that explain the numbers: each head's bilinear form and logits, the forward pass through W_O,
and the feature-dependent mixing of one query."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from . import DESKTOP, FEATURE_SCALE, SUBSCRIPT, Display, head_title, heatmap_grid, outline_blocks


def _sub(i: int) -> str:
    return str(i + 1).translate(SUBSCRIPT)


def _block(i: int, d_k: int) -> str:
    """Head i's block of columns or rows: 'head 1', or 'h1' where a block is one cell wide."""
    return head_title(i) if d_k > 1 else f"h{i + 1}"


def bilinear_forms_figure(M: np.ndarray, ranks: np.ndarray, display: Display = DESKTOP) -> dict:
    """M_i = W_Q^(i) W_K^(i)T, (h, d, d), one panel per head titled with its numerical rank."""
    # Translators: a head's matrix M_i and its rank (linear algebra), as in "M₁, rank 2"
    titles = [_("{matrix}, rank {rank}").format(matrix=f"M{_sub(i)}", rank=int(rank)) for i, rank in enumerate(ranks)]
    return heatmap_grid(M, titles, display=display, zmin=None, colorscale=FEATURE_SCALE, colorbar_title="M",
                        x_title=_("feature of x_j"), y_title=_("feature of x_r"), value_name="M")


def logits_figure(logits: np.ndarray, display: Display = DESKTOP) -> dict:
    """Each head's logits X M_i X^T times the scale, (h, n, n): the numbers its softmax turns into A^(i)."""
    titles = [_("logits, {head}").format(head=head_title(i)) for i in range(len(logits))]
    logit = _("logit")
    return heatmap_grid(logits, titles, display=display, zmin=None, colorscale=FEATURE_SCALE,
                        colorbar_title=logit, value_name=logit)


def forward_figure(V: np.ndarray, concat: np.ndarray, W_O: np.ndarray, output: np.ndarray,
                   display: Display = DESKTOP, V_title: str = "V = X W_V") -> dict:
    """V with its column blocks V_i, the concatenation [head_1 … head_h] (head_i = A^(i) V_i), W_O with the
    row block that reads each head, and MultiHead(X) = concat W_O. V is (h, n, d_k); the rest (n, d) or (d, d).
    The bug clinic titles V otherwise: a layer that splits the heads wrongly does not read X W_V's blocks."""
    h, n, d_k = V.shape
    d = h * d_k
    V_full = V.swapaxes(0, 1).reshape(n, d)
    # Translators: a matrix entry's value (not attention's value V)
    value = _("value")
    fig = heatmap_grid([V_full, concat, W_O, output],
                       [V_title, "[head₁ … headₕ]", "W_O", "MultiHead(X)"], display=display, zmin=None,
                       colorscale=FEATURE_SCALE, colorbar_title=value, x_title=_("feature"), y_title=_("token"),
                       value_name=value, y_label_chars=len(_block(h - 1, d_k)))
    outline_blocks(fig, 0, [f"V{_sub(i)}" for i in range(h)], d_k, n)
    outline_blocks(fig, 1, [_block(i, d_k) for i in range(h)], d_k, n)
    # W_O's rows i*d_k … (i+1)*d_k - 1 multiply head_i: the only place where the heads' outputs meet
    outline_blocks(fig, 2, [_block(i, d_k) for i in range(h)], d_k, d, axis="y", title="")
    fig["layout"]["xaxis3"]["title"] = {"text": _("output feature")}
    return fig


def feature_mixing_figure(mix: np.ndarray, r: int, d_k: int, display: Display = DESKTOP) -> dict:
    """For query r: the weight key j gets in each feature column c, (n, d), with the head blocks outlined."""
    n, d = mix.shape
    # Translators: attention's query and key (tokens); c numbers the features
    fig = heatmap_grid([mix], [_("query {r}: weight of key j in feature c").format(r=r)], display=display,
                       x_title=_("feature c"), y_title=_("key j"), value_name=_("weight"), panel_px=330)
    outline_blocks(fig, 0, [_block(i, d_k) for i in range(d // d_k)], d_k, n, title=_("feature c, by head"))
    return fig
