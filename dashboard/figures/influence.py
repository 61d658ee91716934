"""Attention is not only a weight: what each key adds to each output, per head and through the whole layer, and
what each head does to each output. Arrays in, figure dicts out; every number a norm in the output space R^d."""

from __future__ import annotations

import numpy as np

from ..i18n import N_, _
from . import DESKTOP, Display, axis_suffix, cell_outline, clear_toolbar, head_sup, head_title, heatmap_grid

# ColorBrewer "Greens", sequential and colour-blind safe: not the weights' purple, so the two never pass for
# one another, and the selection's vermilion outline stands out on it.
INFLUENCE_SCALE = [[k / 8, c] for k, c in enumerate(
    ("#f7fcf5", "#e5f5e0", "#c7e9c0", "#a1d99b", "#74c476", "#41ab5d", "#238b45", "#006d2c", "#00441b"))]
# plain text: a superscript or subscript is drawn at 60-70 % of a title, too small in a hall
# Translators: panel titles: what an attention head moves each output by in all, and the change when it is off.
HEAD_EFFECT_TITLES = (N_("total influence (sum over keys j)"), N_("switched off: ‖Δ output‖"))
NARROW_TICKS = 16  # outputs along an axis beyond which every fourth is labelled
# Translators: panel titles, short: influence N through all attention heads, leaving attention key j out, and
# the gradient times the input.
LAYER_TITLES = (N_("N, all heads"), N_("leave key j out"), N_("gradient × input"))  # short: two a row on a phone


def influence_label(i: int) -> str:
    """'N⁽³⁾' for head index 2, in sentences and tables (a figure names it head_title)."""
    return "N" + head_sup(i)


def per_head_influence(N: np.ndarray, display: Display = DESKTOP) -> dict:
    """N^(i)_rj = A^(i)_rj ‖v_j^(i) W_O^(i)‖, (h, n, n): one panel per head, as the attention heatmaps."""
    return heatmap_grid(N, [head_title(i) for i in range(len(N))], display=display, colorscale=INFLUENCE_SCALE,
                        colorbar_title="‖A v W_O‖", value_name="N")


def layer_influence(layer: np.ndarray, leave_one_out: np.ndarray, grad_input: np.ndarray,
                    display: Display = DESKTOP) -> dict:
    """The three measures of the whole layer, each (n, n) [query r, key j], on one scale: all are lengths of
    vectors in the output space."""
    # Translators: the length of a vector.
    size = _("size")
    return heatmap_grid([layer, leave_one_out, grad_input], [_(t) for t in LAYER_TITLES], max_cols=3,
                        display=display, colorscale=INFLUENCE_SCALE, colorbar_title=size, value_name=size,
                        panel_px=300)


def layer_outlines(r: int, j: int) -> list[dict]:
    """The selected query and key outlined on each of the layer's three panels."""
    return [cell_outline(p, r, j) for p in range(len(LAYER_TITLES))]


def head_effects(total: np.ndarray, switched_off: np.ndarray, display: Display = DESKTOP) -> dict:
    """Each head's total influence Σ_j N^(i)_rj on each output r and the change of output r when the head is
    switched off, both (h, n) [head, output r], one above the other on one scale. The cells are as wide as
    the page allows, not square: h rows of up to 48 outputs, one panel a row on a phone too."""
    h, n = total.shape
    # Translators: an attention head's name, "head 2".
    heads = [_("head {k}").format(k=i + 1) for i in range(h)]
    titles = [_(t) for t in HEAD_EFFECT_TITLES]
    # Translators: hover text: output r of the layer (query r), and the length of a vector there.
    hover = _("output r = %{x}<br>size = %{z:.3f}")
    fig = heatmap_grid([total, switched_off], titles, max_cols=1, display=display._replace(narrow=False),
                       colorscale=INFLUENCE_SCALE, colorbar_title=_("size"), x_title=_("output r"), y_title="",
                       row_labels=[heads, heads], panel_px=60 + 24 * h)
    for p, (trace, title) in enumerate(zip(fig["data"], titles)):
        fig["layout"]["yaxis" + axis_suffix(p)].pop("scaleanchor")
        if n > NARROW_TICKS:
            fig["layout"]["xaxis" + axis_suffix(p)]["dtick"] = 4
        trace["text"] = [[head] * n for head in heads]  # the hover names the head, not its row index
        trace["hovertemplate"] = f"{title}<br>%{{text}}<br>{hover}<extra></extra>"
    fig["layout"]["xaxis"]["showticklabels"] = False  # the same outputs as below: room for the lower title
    if display.narrow:  # one panel a row as on a desktop, and the phone's toolbar above the titles
        clear_toolbar(fig["layout"])
    return fig
