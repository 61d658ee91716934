"""Issue 35, slide-ready export: each figure frame's PNG and SVG buttons save the figure 1920 px wide in the page's
theme, fonts and language (explorer/slides.py, figures/slide.py, rules.js slideFigure). In dark mode the page
draws its colours with CSS filters; the slide must show the same colours as its own."""

import re

import numpy as np
import pytest

from dashboard import ASSETS, create_apps, figures
from dashboard.explorer import PRESENTABLE, VIEWS, slides
from dashboard.figures import ATTENTION_SCALE, FEATURE_SCALE, slide
from dashboard.figures.influence import INFLUENCE_SCALE
from tests.browser import SETTLED, wait_until
from tests.test_lecture_figures import png_pixels, wait_graph

DARK_BG, DARK_TEXT = (0x21, 0x25, 0x29), (0xde, 0xe2, 0xe6)


def test_every_page_carries_the_diverging_filter_its_css_names():
    explorer, _class_app = create_apps()
    client = explorer.server.test_client()
    for path in ("/", "/class/"):
        page = client.get(path).get_data(as_text=True)
        assert page.count('<filter id="dark-diverging"') == 1 and slide.DIVERGING_FILTER in page, path


def test_every_presentable_figure_has_a_png_and_an_svg_button_and_plotly_s_light_camera_is_gone():
    buttons = {(c["graph"], c["format"]) for view in VIEWS for c in view.layout()
               if isinstance(c, dict) and c.get("type") == slides.SLIDE}
    assert buttons == {(graph, fmt) for graph in PRESENTABLE for fmt in ("png", "svg")}
    assert "toImage" in figures.GRAPH_CONFIG["modeBarButtonsToRemove"]


def test_the_dark_maps_are_what_the_filters_draw():
    white, black = np.ones(3), np.zeros(3)
    assert np.allclose(slide.inverted(white), black) and np.allclose(slide.inverted(black), white)
    # hue-rotate(180deg) keeps a grey grey: invert(1) alone
    assert np.allclose(slide.inverted(np.full(3, 0.25)), 0.75)
    # the diverging filter: a grey's luma through LUMA's curve (0.5 -> 0.35), its colour differences kept at 0
    assert np.allclose(slide.diverging(np.full(3, 0.5)), 0.35, atol=1e-4)
    dark = slide.slide_themes()["dark"]["scales"]
    assert set(dark) == {slide.key(s) for s in (ATTENTION_SCALE, INFLUENCE_SCALE, FEATURE_SCALE)}
    attention = dark[slide.key(ATTENTION_SCALE)]
    assert attention[0][1] == slide.css(slide.inverted(slide.rgb(ATTENTION_SCALE[0][1])))  # white -> the darkest
    assert [p for p, _c in attention] == sorted(p for p, _c in attention) and attention[-1][0] == 1
    rdbu = dark[slide.key(FEATURE_SCALE)]
    ends = [slide.rgb(rdbu[0][1]), slide.rgb(rdbu[-1][1])]
    assert ends[0][2] - max(ends[0][:2]) > 0.4 and ends[1][0] - max(ends[1][1:]) > 0.4  # blue and red, saturated


def test_a_scale_s_key_is_what_the_browser_writes():
    assert slide.key(ATTENTION_SCALE).startswith('[[0,"#fcfbfd"],[0.125,"#efedf5"]')
    assert slide.key("RdBu") == '"RdBu"'


# ------------------------------------------------------------------ in the browser

def saved(page, graph: str, fmt: str):
    """Click a frame's save button; the downloaded file's name and bytes."""
    with page.expect_download() as download:
        page.locator(f".figure-frame:has(#{graph}) .slide-button", has_text=fmt.upper()).click()
    return download.value.suggested_filename, download.value.path().read_bytes()


# Each heatmap cell's centre in the drawn figure, in CSS pixels from its top left corner.
CELLS = """g => { const gd = document.querySelector(`#${g} .js-plotly-plot`), full = gd._fullLayout, out = [];
  gd._fullData.filter(t => t.type === 'heatmap').forEach(t => {
    const xa = full[t.xaxis.replace('x', 'xaxis')], ya = full[t.yaxis.replace('y', 'yaxis')];
    for (let r = 0; r < t.z.length; r++) for (let c = 0; c < t.z[r].length; c++)
      out.push([xa._offset + xa.c2p(c), ya._offset + ya.c2p(r)]); });
  return out; }"""
# The figure the page holds, but its size: dcc.Graph's resize of a newly drawn graph may unset it at any time.
FIGURE = """g => { const gd = document.querySelector(`#${g} .js-plotly-plot`);
  const {width, height, ...layout} = gd.layout; return JSON.stringify({data: gd.data, layout}); }"""


def open_dark(browser, app_url, scheme, query):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme=scheme, accept_downloads=True)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(app_url + "/" + query)
    return context, page


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["dark", "light"])
@pytest.mark.parametrize("graph", ["heatmaps", "bilinear-forms"])
def test_a_png_slide_shows_each_cell_in_the_colour_the_page_does(browser, app_url, scheme, graph):
    """Cell by cell, the slide's colour is the page's (drawn through dark mode's filters): one-hue weights
    (inverted) and signed values (the diverging filter), on the page's background; the page's figure unchanged."""
    context, page = open_dark(browser, app_url, scheme, "?h=2&seed=0")
    try:
        wait_until(page, "g => document.querySelector(`#${g} .heatmaplayer image`)", graph, look_at=graph)
        wait_until(page, SETTLED, "#section-example")
        cells, before = page.evaluate(CELLS, graph), page.evaluate(FIGURE, graph)
        shown = png_pixels(page.locator(f"#{graph} .js-plotly-plot").screenshot())
        name, data = saved(page, graph, "png")
        pixels = png_pixels(data)
        assert name == f"{graph}.png" and pixels.shape[1] == 1920, (name, pixels.shape)
        scale = 1920 / shown.shape[1]  # the slide is the page's figure, scaled
        assert abs(pixels.shape[0] - shown.shape[0] * scale) <= 2 * scale
        assert tuple(pixels[2, 2, :3]) == (DARK_BG if scheme == "dark" else (255, 255, 255))
        assert len(cells) >= 2 * 64, len(cells)
        off = [(x, y) for x, y in cells if np.abs(shown[round(y), round(x), :3].astype(int)
                                                 - pixels[round(y * scale), round(x * scale), :3]).max() > 6]
        assert off == [], (len(off), off[:5])
        assert page.evaluate(FIGURE, graph) == before  # Plotly laid out a copy, not the page's figure
        assert page.errors == []
    finally:
        context.close()


@pytest.mark.browser
def test_an_svg_slide_is_in_the_page_s_language_and_dark_colours(browser, app_url):
    context, page = open_dark(browser, app_url, "dark", "?h=2&seed=0&lang=es")
    try:
        wait_until(page, "() => document.querySelector('#heatmaps .heatmaplayer image')", look_at="heatmaps")
        name, data = saved(page, "heatmaps", "svg")
        svg = data.decode()
        assert name == "heatmaps.svg" and svg.startswith("<svg") and 'width="1920"' in svg, svg[:200]
        assert "cabeza 1" in svg  # the panels' titles, as the Spanish page writes them
        assert re.search(r'^<svg[^>]*><rect x="0" y="0"[^>]*style="fill: rgb\(33, 37, 41\)', svg)  # the background
        assert "rgb(222, 226, 230)" in svg  # text in the dark page's colour
        assert page.errors == []
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("graph", ["heatmaps", "cube"])
def test_a_slide_is_as_tall_for_1920_px_as_the_figure_is_for_its_width(browser, app_url, graph):
    """In Spanish at h = 8 (the cube a WebGL scene with no height of its own): the PNG is 1920 px wide, in the
    figure's proportions on the page, and the toolbar has no camera of its own (it saved the light colours)."""
    context, page = open_dark(browser, app_url, "light", "?h=8&weights=trained&lang=es")
    try:
        wait_graph(page, graph)
        box = page.locator(f"#{graph} .js-plotly-plot").bounding_box()
        name, data = saved(page, graph, "png")
        pixels = png_pixels(data)
        assert name == f"{graph}.png" and pixels.shape[1] == 1920, (name, pixels.shape)
        assert abs(pixels.shape[0] - box["height"] * 1920 / box["width"]) <= 2, (pixels.shape, box)
        assert page.locator(f"#{graph} .modebar-btn[data-val='toImage'], #{graph} .modebar-btn[data-title*='PNG']") \
            .count() == 0
        assert page.errors == []
    finally:
        context.close()


def test_the_red_blue_map_is_the_bundled_plotly_s():
    """figures.FEATURE_SCALE names Plotly's RdBu; the dark slide's map is computed from slide.PLOTLY_RDBU: the same."""
    bundle = (ASSETS / "plotly" / "plotly-custom.min.js").read_text()
    found = re.search(r"RdBu:(\[\[.*?\]\])", bundle).group(1)
    stops = [[float(p), c] for p, c in re.findall(r'\[([\d.]+),"(rgb\([^)]*\))"\]', found)]
    assert stops == [[float(p), c] for p, c in slide.PLOTLY_RDBU]
