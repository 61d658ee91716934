"""A lecturer's review before a lecture to 150 students, held fixed: in lecture mode at 1920x1080 all h heads
fit one screen and figure text is as large as the prose; no title is a superscript; the cube names each plane on
the plane, fills its box and keeps in frame on a phone; and on a phone the tokens' colour bar and legend cover
nothing. The checks of every tab's figures outside lecture mode (tick labels, a phone's toolbars, colour bars
and legends) are in test_each_tab.py, on one page per tab."""

import struct
import zlib

import numpy as np
import pytest

from dashboard import figures
from dashboard.attention import HEAD_CHOICES, multi_head_attention, worked_example
from dashboard.explorer import learning
from dashboard.figures import Display, clinic, equivariance, example, explain, mixing
from tests.browser import TWO_FRAMES, wait_until
from tests.test_a11y import wait_graph
from tests.test_presenter import FILLS_THE_SCREEN
from tests.util import decode

LECTURE, PHONE = Display(lecture=True), Display(narrow=True)
SUPERSCRIPTS = set("⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾ʰ")


def attention(h):
    return multi_head_attention(*worked_example(0)[:5], h)


# ------------------------------------------------------------------ the figures as the server builds them


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_lecture_mode_draws_every_head_on_one_screen(h):
    """h = 8: two rows of four, h = 4: one row of four, never 3 + 1, in a figure short enough for the space
    under the header at 1920x1080 (779 px or more)."""
    fig = example.attention_heatmaps(attention(h).A, LECTURE)
    layout = fig["layout"]
    columns = {tuple(layout[k]["domain"]) for k in layout if k.startswith("xaxis")}
    rows = {tuple(layout[k]["domain"]) for k in layout if k.startswith("yaxis")}
    assert (len(columns), len(rows)) == {1: (1, 1), 2: (2, 1), 4: (4, 1), 8: (4, 2)}[h]
    assert layout["height"] <= figures.LECTURE_FIGURE_PX <= 779


def builders(display):
    """Every figure of the worked example and the mixing tab, and the heatmaps of the other tabs, as drawn for
    `display`."""
    r, ex = attention(4), worked_example(0)
    M = np.einsum("hdk,hek->hde", r.Q[:, :8, :], r.K[:, :8, :])  # any (h, d, d) will do
    return {
        "tokens": example.token_views(ex.X, ex.cluster, display),
        "blocks": example.block_views(r.Q, r.K, r.V, display),
        "heatmaps": example.attention_heatmaps(r.A, display),
        "forms": explain.bilinear_forms_figure(M, np.ones(4), display),
        "logits": explain.logits_figure(r.A, display),
        "forward": explain.forward_figure(r.V, np.zeros((12, 8)), np.eye(8), np.zeros((12, 8)), display),
        "features": explain.feature_mixing_figure(r.A[0][:, :8], 0, 2, display),
        "single": mixing.single_head_heatmap(r.A[0], 1.0, display),
        "multi": mixing.multi_head_heatmaps(r.A, 2, 1.0, display),
        "equivariance": equivariance.equivariance_attention(r.A[0], r.A[0], r.A[0], np.arange(12), 0, display),
        "learned": learning.learned_heads(4, 0, -1, display)[0],
        "clinic": clinic.layer_heatmaps(r.A, "correct", 1.0, display),
    }


@pytest.mark.parametrize("display", [figures.DESKTOP, LECTURE, PHONE], ids=["desktop", "lecture", "phone"])
def test_no_title_or_tick_label_is_a_superscript(display):
    """A⁽¹⁾'s index is drawn at about 60 % of the title: 10 px on a 16 px title. Figures say 'head 1'."""
    for name, fig in builders(display).items():
        layout = fig["layout"]
        texts = [a["text"] for a in layout.get("annotations", [])]
        texts += [t for k, axis in layout.items() if k[1:5] == "axis" for t in axis.get("ticktext", [])]
        assert not [t for t in texts if SUPERSCRIPTS & set(t)], name
    assert figures.head_title(2) == "head 3"
    assert figures.head_label(2) == "A⁽³⁾"  # sentences keep the plain-text form: no tags for a screen reader


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_the_cube_names_each_plane_at_its_own_height(h):
    """The planes' names are the z axis's ticks: 'head k' at height k, where plane k - 1 lies, so each name
    stays at its plane's corner, whatever the rotation, and the focused head's name is on the focused plane.
    No text trace inside the scene, where the planes hid the names and head 1's sat on head 2's plane."""
    traces = example.focus_planes(example.cube_traces(attention(h).A), h - 1)
    assert [t["type"] for t in traces] == [example.PLANE] * h
    z = example.cube_layout()["scene"]["zaxis"]
    named = {z["tick0"] + k * z["dtick"]: f"{z['tickprefix']}{z['tick0'] + k * z['dtick']}" for k in range(h)}
    for i, plane in enumerate(traces):
        height = float(decode(plane["z"]).mean())
        assert named.get(height) == figures.head_title(i), (i, height)
    focused = [float(decode(t["z"]).mean()) for t in traces if t["opacity"] == figures.PLANE_OPACITY]
    assert [named.get(f) for f in focused] == [f"head {h}"]


def test_the_cube_takes_its_box_from_the_page_and_larger_text_in_lecture_mode():
    for display in (figures.DESKTOP, PHONE, LECTURE):
        assert "height" not in example.cube_layout(display)  # the CSS box (.webgl-figure) decides
    desktop, lecture = example.cube_layout(), example.cube_layout(LECTURE)
    assert lecture["font"]["size"] >= 24 and lecture["font"]["size"] > desktop["font"]["size"]
    for axis in "xyz":
        assert lecture["scene"][axis + "axis"]["tickfont"]["size"] > desktop["scene"][axis + "axis"]["tickfont"]["size"]


# ------------------------------------------------------------------ in the browser

FIGURE_TEXT = """(section) => Array.from(document.querySelectorAll(`#${section} .js-plotly-plot`)).flatMap(gd =>
  Array.from(gd.querySelectorAll('.main-svg text')).filter(t => t.textContent.trim() && t.getBBox().width > 0)
    .map(t => ({graph: gd.parentElement.id, text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize),
                tick: !!t.closest('.xtick, .ytick')})))"""


def open_page(browser, url, width, height, scheme="light"):
    phone = width < 576
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme,
                                  is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.goto(url)
    return page


@pytest.mark.browser
@pytest.mark.parametrize("h", [4, 8])
def test_every_head_fits_under_the_header_at_1920(browser, app_url, h):
    page = open_page(browser, f"{app_url}/?h={h}&weights=trained&lecture=1", 1920, 1080)
    wait_graph(page, "heatmaps")
    box = page.evaluate("""() => {
      const gd = document.querySelector('#heatmaps .js-plotly-plot');
      const panels = Array.from(gd.querySelectorAll('.heatmaplayer image'), i => i.getBoundingClientRect());
      const drawn = Array.from(gd.querySelectorAll('.heatmaplayer image, .main-svg text'),
                               e => e.getBoundingClientRect()).filter(r => r.width > 0);
      return {graph: gd.getBoundingClientRect().height, screen: window.innerHeight,
              header: document.querySelector('nav').getBoundingClientRect().height,
              drawn: Math.max(...drawn.map(r => r.bottom)) - Math.min(...drawn.map(r => r.top)),
              lefts: panels.map(r => r.left), tops: panels.map(r => r.top),
              width: Math.min(...panels.map(r => r.width))};
    }""")
    def lines(starts) -> int:  # panels within a few pixels line up (rounding to a grid split 390.0 from 391.5)
        starts = sorted(starts)
        return 1 + sum(b - a > 20 for a, b in zip(starts, starts[1:]))

    assert (lines(box["lefts"]), lines(box["tops"])) == (4, h // 4), box
    assert box["drawn"] <= box["graph"] <= min(800, box["screen"] - box["header"]), box
    assert box["width"] >= 250, box  # each head still a large picture: 12 cells of 20 px or more
    page.context.close()


@pytest.mark.browser
def test_the_presenter_view_at_1920_draws_every_text_at_24_px_or_more(browser, app_url):
    page = open_page(browser, f"{app_url}/?h=8&weights=trained", 1920, 1080)
    wait_graph(page, "heatmaps")
    page.locator(".figure-frame:has(#heatmaps) .present-button").click()
    wait_until(page, FILLS_THE_SCREEN)
    wait_until(page, "() => document.querySelector('#heatmaps .js-plotly-plot')._fullLayout.font.size >= 24")
    texts = [t for t in page.evaluate(FIGURE_TEXT, "section-example") if t["graph"] == "heatmaps"]
    assert len(texts) > 8 * 3 and min(t["size"] for t in texts) >= 24, sorted(texts, key=lambda t: t["size"])[:3]
    page.context.close()


# The phone's checks: which boxes of a figure's texts, toolbar, colour bar and legend meet.
PHONE_BOXES = """(section) => Array.from(document.querySelectorAll(`#${section} .js-plotly-plot`)).map(gd => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const texts = sel => Array.from(gd.querySelectorAll(sel)).filter(t => t.textContent.trim() && t.getBBox().width > 0)
    .map(t => ({text: t.textContent, ...box(t)}));
  const bar = gd.querySelector('.modebar');
  return {graph: gd.parentElement.id, modebar: bar ? box(bar) : null,
          titles: texts('.infolayer .annotation-text, .g-xtitle text, .g-ytitle text, .gtitle, .cbtitle text'),
          labels: texts('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .annotation-text'),
          colorbars: Array.from(gd.querySelectorAll('.colorbar')).map(box),
          legend: gd.querySelector('.legend') ? box(gd.querySelector('.legend')) : null,
          plots: Array.from(gd.querySelectorAll('.cartesianlayer .subplot'),
                            s => ({id: s.classList[1], ...box(s.querySelector('.plot') || s)}))};
})"""


def meet(a, b, slack=1):
    return a["left"] < b["right"] - slack and b["left"] < a["right"] - slack and \
        a["top"] < b["bottom"] - slack and b["top"] < a["bottom"] - slack


@pytest.mark.browser
def test_on_a_phone_the_tokens_colour_bar_and_legend_cover_nothing(browser, app_url):
    page = open_page(browser, f"{app_url}/?h=8&weights=trained", 390, 844)
    wait_graph(page, "tokens")
    tokens = next(g for g in page.evaluate(PHONE_BOXES, "section-example") if g["graph"] == "tokens")
    scatter = next(p for p in tokens["plots"] if p["id"] == "xy")
    (colorbar,) = tokens["colorbars"]
    assert colorbar["top"] >= scatter["bottom"], (colorbar, scatter)  # beside X, below the scatter
    legend = tokens["legend"]
    assert [t["text"] for t in tokens["labels"] if meet(legend, t)] == []
    page.context.close()


def png_pixels(data: bytes) -> np.ndarray:
    """An 8-bit RGB or RGBA PNG (as Chromium writes screenshots) as an (height, width, channels) array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), np.uint8).reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), np.int32)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        up = out[y - 1] if y else np.zeros_like(line)
        if kind in (0, 2):
            out[y] = (line + (up if kind == 2 else 0)) % 256
        else:  # 1 sub, 3 average, 4 Paeth: each byte depends on the one `channels` to its left
            row = out[y]
            for x in range(width * channels):
                left = row[x - channels] if x >= channels else 0
                upleft = up[x - channels] if x >= channels else 0
                if kind == 1:
                    pred = left
                elif kind == 3:
                    pred = (left + up[x]) // 2
                else:
                    p = left + up[x] - upleft
                    pa, pb, pc = abs(p - left), abs(p - up[x]), abs(p - upleft)
                    pred = left if pa <= pb and pa <= pc else up[x] if pb <= pc else upleft
                row[x] = (line[x] + pred) % 256
    return out.reshape(height, width, channels)[:, :, :3]


def cube_drawing(page) -> tuple[dict, np.ndarray]:
    """The cube graph's box and its WebGL drawing alone (the SVG layers and toolbar hidden), as a mask of the
    pixels that differ from the page's background."""
    wait_graph(page, "cube")
    page.evaluate("""() => { document.querySelector('nav').style.position = 'static';
      document.querySelectorAll('#cube .main-svg, #cube .modebar-container, #cube .present-button')
        .forEach(e => { e.style.visibility = 'hidden'; }); }""")
    page.evaluate(TWO_FRAMES)  # WebGL draws the frame after the change
    graph = page.locator("#cube .js-plotly-plot")
    pixels = png_pixels(graph.screenshot())
    background = pixels[:3, :3].reshape(-1, 3)[0]
    return graph.bounding_box(), np.abs(pixels - background).max(axis=2) > 24


@pytest.mark.browser
def test_on_a_phone_the_cube_stays_in_its_frame(browser, app_url):
    """The planes, the head names and the axis titles: nothing drawn at the graph's left or right edge."""
    page = open_page(browser, f"{app_url}/?h=8&weights=trained", 390, 844)
    box, drawn = cube_drawing(page)
    columns = np.flatnonzero(drawn.any(axis=0))
    assert columns.size and columns[0] >= 3 and columns[-1] <= drawn.shape[1] - 4, (columns[:1], columns[-1:], box)
    page.context.close()


@pytest.mark.browser
def test_in_lecture_mode_the_cube_fills_its_box_and_its_ticks_have_room(browser, app_url):
    """At n = 30 (10 tokens per cluster; 48 draws for 50 s in software WebGL), eight ticks on the key and query axes:
    once a 300 px cube in a 1,900 px frame drew them on top of each other."""
    page = open_page(browser, f"{app_url}/?h=8&size=10&weights=trained&lecture=1", 1920, 1080)
    box, drawn = cube_drawing(page)
    rows, columns = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
    height, width = rows[-1] - rows[0], columns[-1] - columns[0]
    assert box["height"] >= 600 and height >= 0.6 * box["height"] and width >= 0.5 * box["width"], \
        (height, width, box)
    ticks = page.evaluate("""() => { const gd = document.querySelector('#cube .js-plotly-plot');
      return [0, 1].map(a => ({count: gd._fullLayout.scene._scene.glplot.axes.ticks[a].length,
                               size: gd._fullLayout.scene[a ? 'yaxis' : 'xaxis'].tickfont.size})); }""")
    for axis in ticks:  # each two-digit label (about 1.2 em wide) has a gap as wide again beside it
        assert axis["count"] >= 8 and width / axis["count"] >= 2.4 * axis["size"], (axis, width)
    page.context.close()


@pytest.mark.browser
def test_the_cube_draws_each_planes_name_at_its_height(browser, app_url):
    """What the browser drew: the z axis's tick labels 'head 1' … 'head 4' at the heights of the planes; with
    head 2 brought forward, 'head 2' is at the height of the plane that stays opaque."""
    page = open_page(browser, f"{app_url}/?h=4&weights=trained", 1440, 900)
    wait_graph(page, "cube")
    page.locator("#cube-focus label", has_text="head 2").click()
    # the tick labels WebGL drew (gl-axes' own list, in the scene's scaled units) and the planes' heights
    drawn = """() => { const gd = document.querySelector('#cube .js-plotly-plot'), scene = gd._fullLayout.scene._scene;
      return {ticks: scene.glplot.axes.ticks[2].map(t => [Math.round(t.x / scene.dataScale[2] * 1e6) / 1e6, t.text]),
              planes: gd._fullData.filter(t => t.type === 'mesh3d').map(t => [t.z[0], t.opacity])}; }"""
    wait_until(page, "() => document.querySelector('#cube .js-plotly-plot')._fullData[1].opacity === "
                     f"{figures.PLANE_OPACITY} && document.querySelector('#cube .js-plotly-plot')._fullData[0]"
                     f".opacity === {figures.FADED_OPACITY}")
    seen = page.evaluate(drawn)
    names = dict(seen["ticks"])
    assert [names.get(z) for z, _ in seen["planes"]] == ["head 1", "head 2", "head 3", "head 4"], seen
    assert [names[z] for z, opacity in seen["planes"] if opacity == figures.PLANE_OPACITY] == ["head 2"]
    page.context.close()
