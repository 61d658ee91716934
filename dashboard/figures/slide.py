"""A figure as a slide in the page's theme: the colours dark mode's filters show, as a figure's own colours.

On the page, dark mode is CSS over Plotly's drawing. The heatmaps and the cube's canvas have their lightness turned
around (assets/site/app.css and lecture.css: `invert(1) hue-rotate(180deg)`); the red-blue map of signed values
gets DIVERGING_FILTER instead (assets/site/theme.css; the page carries it: dashboard/__init__.py); and Plotly's
default grey text takes the page's text colour. A saved image has no page around it, so `slide_themes` gives the
browser, for each theme, the colour maps and colours those filters draw, computed here with the filters' own
formulas (Filter Effects Module Level 1), and assets/rules.js (slideFigure) puts them into a copy of the figure.
"""

from __future__ import annotations

import json
from functools import cache

import numpy as np

from . import ATTENTION_SCALE, FEATURE_SCALE
from .example import CUBE_TEXT_COLOUR
from .influence import INFLUENCE_SCALE

# Bootstrap 5.3's page colours (--bs-body-bg, --bs-body-color) in each theme: a slide's background and text.
PAGE_COLOURS = {"light": {"bg": "#ffffff", "text": "#212529"}, "dark": {"bg": "#212529", "text": "#dee2e6"}}
# Plotly's RdBu (plotly.js src/components/colorscale/scales.js), the map FEATURE_SCALE names.
PLOTLY_RDBU = [[0, "rgb(5,10,172)"], [0.35, "rgb(106,137,247)"], [0.5, "rgb(190,190,190)"],
               [0.6, "rgb(220,170,132)"], [0.7, "rgb(230,145,90)"], [1, "rgb(178,10,28)"]]
STOPS = 33  # a map in dark mode, sampled this often: the diverging filter bends lightness, so few stops won't do

# The diverging filter. It splits each colour into luma Y (Rec. 709 weights, as CSS's hue-rotate uses) and the
# differences R-Y and B-Y; maps Y through a falling curve (white to the page's dark grey, the darkest ends to
# about half-bright); keeps 85% of R-Y and B-Y, which fits every colour of the map inside sRGB; and puts them back
# together. The hue stays, the ends stay saturated, and they contrast more than 4:1 with the dark page.
_WR, _WG, _WB = 0.2126, 0.7152, 0.0722
LUMA = (0.54, 0.52, 0.48, 0.44, 0.40, 0.35, 0.29, 0.22, 0.17, 0.14, 0.12)  # Y = 0, 0.1, ..., 1
CHROMA = 0.85
_S = 0.5  # R-Y and B-Y scaled by _S around 0.5: they stay inside 0..1 between the filter's steps
SPLIT = (_WR, _WG, _WB, 0, 0,
         _S * (1 - _WR), -_S * _WG, -_S * _WB, 0, 0.5,
         -_S * _WR, -_S * _WG, _S * (1 - _WB), 0, 0.5,
         0, 0, 0, 1, 0)
TO_RGB = (1, 1 / _S, 0, 0, -0.5 / _S,
          1, -_WR / (_WG * _S), -_WB / (_WG * _S), 0, 0.5 * (_WR + _WB) / (_WG * _S),
          1, 0, 1 / _S, 0, -0.5 / _S,
          0, 0, 0, 1, 0)
_LINEAR = f'type="linear" slope="{CHROMA:g}" intercept="{0.5 * (1 - CHROMA):g}"'
DIVERGING_FILTER = (
    '<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false" width="0" height="0"'
    ' style="position:absolute;width:0;height:0;overflow:hidden">'
    '<filter id="dark-diverging" color-interpolation-filters="sRGB">'
    f'<feColorMatrix type="matrix" values="{" ".join(f"{v:.6g}" for v in SPLIT)}"/>'
    f'<feComponentTransfer><feFuncR type="table" tableValues="{" ".join(f"{v:g}" for v in LUMA)}"/>'
    f'<feFuncG {_LINEAR}/><feFuncB {_LINEAR}/></feComponentTransfer>'
    f'<feColorMatrix type="matrix" values="{" ".join(f"{v:.6g}" for v in TO_RGB)}"/></filter></svg>')


def rgb(colour: str) -> np.ndarray:
    """'#rrggbb' or 'rgb(r, g, b)' -> (3,) floats in 0..1."""
    if colour.startswith("#"):
        return np.array([int(colour[k:k + 2], 16) for k in (1, 3, 5)]) / 255
    return np.array([float(v) for v in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]]) / 255


def css(colour: np.ndarray) -> str:
    """(3,) floats in 0..1 -> 'rgb(r,g,b)', rounded as a browser stores a colour."""
    r, g, b = np.round(np.clip(colour, 0, 1) * 255).astype(int)
    return f"rgb({r},{g},{b})"


def hue_rotate(degrees: float) -> np.ndarray:
    """CSS's hue-rotate(degrees) as a 3 x 3 matrix (Filter Effects 1, feColorMatrix type="hueRotate")."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    return np.array([[0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928],
                     [0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283],
                     [0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072]])


def inverted(colour: np.ndarray) -> np.ndarray:
    """`invert(1) hue-rotate(180deg)`, as dark mode draws a heatmap and the cube: (3,) -> (3,), in 0..1."""
    return np.clip(hue_rotate(180) @ (1 - colour), 0, 1)


def _matrix(values: tuple, colour: np.ndarray) -> np.ndarray:
    """An feColorMatrix's 4 x 5 `values` on an opaque colour (3,): its rgb, clamped to 0..1 as a filter step is."""
    m = np.reshape(values, (4, 5))
    return np.clip(m[:3, :3] @ colour + m[:3, 4], 0, 1)


def diverging(colour: np.ndarray) -> np.ndarray:
    """DIVERGING_FILTER on a colour: (3,) -> (3,), in 0..1."""
    y, u, v = _matrix(SPLIT, colour)
    y = np.interp(y, np.linspace(0, 1, len(LUMA)), LUMA)  # feFuncR type="table": piecewise linear
    u, v = (np.clip(CHROMA * c + 0.5 * (1 - CHROMA), 0, 1) for c in (u, v))
    return _matrix(TO_RGB, np.array([y, u, v]))


def sampled(scale: list) -> tuple[np.ndarray, np.ndarray]:
    """A colour map's STOPS positions and colours (STOPS, 3), linear in RGB between its stops, as Plotly draws it."""
    at = np.linspace(0, 1, STOPS)
    positions = [p for p, _ in scale]
    colours = np.array([rgb(c) for _, c in scale])
    return at, np.stack([np.interp(at, positions, colours[:, k]) for k in range(3)], axis=1)


def dark_scale(scale: list, filtered) -> list:
    """A colour map as dark mode draws it through `filtered` (inverted or diverging): a Plotly colour scale."""
    at, colours = sampled(scale)
    return [[round(float(p), 6), css(filtered(c))] for p, c in zip(at, colours)]


def key(scale) -> str:
    """A colour scale as the browser's JSON.stringify writes it (no spaces; 0 for 0.0): how rules.js finds it."""
    def number(p):
        return int(p) if float(p).is_integer() else p
    return json.dumps(scale if isinstance(scale, str) else [[number(p), c] for p, c in scale], separators=(",", ":"))


@cache  # the same for every page: made once, not at each page load (2 ms)
def slide_themes() -> dict:
    """For assets/rules.js, slideFigure: by theme, the slide's background; the text colour that replaces Plotly's
    default grey and the cube's axes' colour (None: as drawn); and each colour map the page's filters change, by
    its key, with the map dark mode draws."""
    # (the scale as the figures write it, its colours, what dark mode draws it through); the figures name RdBu
    dark_maps = {key(named): dark_scale(scale, filtered) for named, scale, filtered in
                 [(ATTENTION_SCALE, ATTENTION_SCALE, inverted), (INFLUENCE_SCALE, INFLUENCE_SCALE, inverted),
                  (FEATURE_SCALE, PLOTLY_RDBU, diverging)]}
    return {"light": {"bg": PAGE_COLOURS["light"]["bg"], "text": None, "sceneText": None, "scales": {}},
            # the cube's text as dark mode's filter turns its canvas (figures/example.py: drawn in CUBE_TEXT_COLOUR)
            "dark": {"bg": PAGE_COLOURS["dark"]["bg"], "text": PAGE_COLOURS["dark"]["text"],
                     "sceneText": css(inverted(rgb(CUBE_TEXT_COLOUR))),
                     "scales": dark_maps}}
