"""The cube on a projector (issue 35): presented, it fills the frame with its colour bar; its labels are 24 px or
more in lecture mode and in the theme's text colour; on a phone at h = 8 its head names keep clear of each other;
preset cameras turn it with a Patch of the camera alone; in dark mode its colour map reads as the heatmaps' do."""

import numpy as np
import pytest

from tests.recorder import RECORDER, Callbacks, settle

from dashboard.explorer import example as view
from dashboard.figures import example as fig
from tests.browser import TWO_FRAMES, wait_until
from tests.test_a11y import wait_graph
from tests.test_lecture_figures import open_page, png_pixels
from tests.util import fire, patch_assignments

GD = "document.querySelector('#cube .js-plotly-plot')"
BOX = """sel => { const e = document.querySelector(sel); if (!e) return null; const b = e.getBoundingClientRect();
  return {left: b.left, top: b.top, right: b.right, bottom: b.bottom, width: b.width, height: b.height}; }"""
# Bootstrap 5.3's body text colour in each theme (what the page's prose is written in)
TEXT = {"light": (0x21, 0x25, 0x29), "dark": (0xde, 0xe2, 0xe6)}


def press_camera(page, name):
    page.locator(f"#{view.CUBE_CAMERA[name]}").click()
    eye = fig.CUBE_CAMERAS[name]["eye"]
    wait_until(page, f"() => {{ const e = {GD}._fullLayout.scene.camera.eye;"
                     f" return e.x === {eye['x']} && e.y === {eye['y']} && e.z === {eye['z']}; }}")


def present_cube(page):
    page.locator(".figure-frame:has(#cube) .present-button").click()
    wait_until(page, f"() => document.querySelector('.presented #cube') && {GD}._fullLayout.font.size >= 24")


def head_names_alone(page):
    """The cube's drawing with only the z axis's tick labels (the head names) left: no plane, no x or y labels,
    no axis titles, no SVG layer, as a mask of the pixels that differ from the background, and those pixels."""
    page.evaluate(f"""() => {{ const gd = {GD};
      document.querySelector('nav').style.position = 'static';
      return Plotly.update(gd, {{opacity: 0}}, {{'scene.xaxis.showticklabels': false, 'scene.yaxis.showticklabels': false,
        'scene.xaxis.title.text': '', 'scene.yaxis.title.text': '', 'scene.xaxis.showline': false,
        'scene.yaxis.showline': false, 'scene.zaxis.showline': false, 'scene.xaxis.showgrid': false,
        'scene.yaxis.showgrid': false, 'scene.xaxis.ticks': '', 'scene.yaxis.ticks': '', 'scene.zaxis.ticks': '',
        'scene.xaxis.zeroline': false, 'scene.yaxis.zeroline': false, 'scene.zaxis.zeroline': false}}); }}""")
    page.evaluate("""() => document.querySelectorAll('#cube .main-svg, #cube .modebar-container, .present-button')
      .forEach(e => { e.style.visibility = 'hidden'; })""")
    page.evaluate(TWO_FRAMES)
    pixels = png_pixels(page.locator("#cube .js-plotly-plot").screenshot())
    background = pixels[:3, :3].reshape(-1, 3)[0]
    return np.abs(pixels - background).max(axis=2) > 40, pixels


def bands(mask, gap=1):
    """The runs of rows that hold drawn pixels, split by `gap` or more empty rows: (first, last) each."""
    rows = np.flatnonzero(mask.any(axis=1))
    if not rows.size:
        return []
    cuts = np.flatnonzero(np.diff(rows) > gap)
    return list(zip(rows[np.r_[0, cuts + 1]], rows[np.r_[cuts, rows.size - 1]]))


def top_name_em(mask) -> float:
    """The em of the topmost head name (the first band of drawn rows), in CSS pixels: its ink's extent across
    the line it is written along (2nd to 98th percentile; the principal direction of its pixels), over 0.72, a
    sans-serif's height from the baseline to the top of 'h', 'd' and the digits."""
    first, last = bands(mask, gap=3)[0]
    ys, xs = np.nonzero(mask[first:last + 1])
    points = np.stack([xs, ys], axis=1).astype(float)
    points -= points.mean(axis=0)
    across = np.linalg.svd(points, full_matrices=False)[2][1]
    extent = np.percentile(points @ across, 98) - np.percentile(points @ across, 2)
    return extent / 0.72


def components(mask, reach=3, least=20) -> int:
    """How many separate drawings of `least` pixels or more the mask holds: pixels within `reach` of each other
    (a label's letters) count as one."""
    grown = mask.copy()
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            grown |= np.roll(np.roll(mask, dy, axis=0), dx, axis=1)
    seen, count = np.zeros_like(grown), 0
    for start in zip(*np.nonzero(grown)):
        if seen[start]:
            continue
        stack, size = [start], 0
        seen[start] = True
        while stack:
            y, x = stack.pop()
            size += bool(mask[y, x])
            for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if 0 <= ny < grown.shape[0] and 0 <= nx < grown.shape[1] and grown[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        count += size >= least
    return count


# ------------------------------------------------------------------ the server's side


def test_a_preset_camera_is_a_patch_of_the_camera_alone():
    for name, camera in fig.CUBE_CAMERAS.items():
        patch = patch_assignments(fire(view.turn_cube, [f"{view.CUBE_CAMERA[name]}.n_clicks"],
                                       presses={**dict.fromkeys(view.CUBE_CAMERA), name: 3}))
        assert patch == {("layout", "scene", "camera"): camera, ("layout", "scene", "uirevision"): f"{name} 3"}
    assert fig.cube_layout()["scene"]["camera"] == fig.CUBE_CAMERAS["stack"]  # the page's first view is a preset


@pytest.mark.parametrize("clicks", ["3", None, 0, -1, True, [1], 1.5])
def test_a_forged_press_turns_nothing(clicks):
    from dash import no_update
    answer = fire(view.turn_cube, [f"{view.CUBE_CAMERA['top']}.n_clicks"],
                  presses={**dict.fromkeys(view.CUBE_CAMERA), "top": clicks})
    assert answer is no_update


def test_the_cube_is_written_in_the_light_theme_s_text_colour_which_dark_mode_turns_around():
    for axis in ("xaxis", "yaxis", "zaxis"):
        assert fig.cube_layout()["scene"][axis]["color"] == "#%02x%02x%02x" % TEXT["light"]
    # invert(1) hue-rotate(180deg), as lecture.css applies it, takes it within 12 of the dark theme's text colour
    angle = np.pi
    c, s = np.cos(angle), np.sin(angle)
    rotate = np.array([[0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928],
                       [0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283],
                       [0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072]])
    dark = np.clip(rotate @ (255 - np.array(TEXT["light"], float)), 0, 255)
    assert np.abs(dark - TEXT["dark"]).max() <= 12, dark


# ------------------------------------------------------------------ in the browser


@pytest.mark.browser
@pytest.mark.parametrize("lecture", [False, True], ids=["page", "lecture-mode"])
def test_presented_the_cube_fills_the_frame_with_its_colour_bar(browser, app_url, lecture):
    """In lecture mode already (the lecturer's case), presenting draws nothing new: the cube kept its page width,
    1013 px of a 1873 px frame, until the presenter view set its width too. Leaving gives the page's width back."""
    page = open_page(browser, f"{app_url}/?h=8&weights=trained" + "&lecture=1" * lecture, 1920, 1080)
    wait_graph(page, "cube")
    before = page.evaluate(BOX, "#cube canvas")
    present_cube(page)
    fills = (f"() => {{ const f = ({BOX})('.presented'), c = ({BOX})('#cube canvas');"
             " return c && c.width >= f.width - 50; }")
    try:
        wait_until(page, fills, timeout=5)
    except TimeoutError:
        raise AssertionError((page.evaluate(BOX, "#cube canvas"), page.evaluate(BOX, ".presented"))) from None
    frame, graph = page.evaluate(BOX, ".presented"), page.evaluate(BOX, "#cube .js-plotly-plot")
    bar = page.evaluate(BOX, "#cube .colorbar")
    assert graph["width"] >= frame["width"] - 50, (graph, frame)
    assert graph["height"] >= 0.9 * frame["height"] and graph["bottom"] <= frame["bottom"], (graph, frame)
    assert bar and bar["width"] >= 0.5 * graph["width"] and graph["top"] < bar["top"] and bar["bottom"] <= 1080, bar
    page.keyboard.press("Escape")
    if lecture:  # the page's own width again (outside lecture mode the page's layout is another)
        wait_until(page, f"w => !document.querySelector('.presented') && Math.abs(({BOX})('#cube canvas').width - w)"
                         " <= 1", before["width"], timeout=5)
    page.context.close()


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("presented", [False, True], ids=["page", "presenter"])
def test_in_lecture_mode_the_cube_s_labels_are_24_px_in_the_theme_s_text_colour(browser, app_url, scheme, presented):
    page = open_page(browser, f"{app_url}/?h=8&weights=trained&lecture=1", 1920, 1080, scheme)
    page.evaluate(f"() => localStorage.setItem('mha-theme', '{scheme}')")
    page.reload()
    wait_graph(page, "cube")
    wait_until(page, f"() => document.documentElement.getAttribute('data-bs-theme') === '{scheme}'"
                     f" && {GD}._fullLayout.font.size >= 24")
    if presented:
        present_cube(page)
    press_camera(page, "front")
    page.mouse.move(0, 0)
    mask, pixels = head_names_alone(page)
    em = top_name_em(mask)
    assert em >= 24, em
    ink = pixels[mask].astype(float)
    luma = ink @ [0.2126, 0.7152, 0.0722]
    strongest = ink[luma <= np.percentile(luma, 5)] if scheme == "light" else ink[luma >= np.percentile(luma, 95)]
    assert np.abs(strongest.mean(axis=0) - TEXT[scheme]).max() <= 24, (strongest.mean(axis=0), TEXT[scheme])
    page.context.close()


@pytest.mark.browser
def test_on_a_phone_at_h_8_the_head_names_keep_clear_of_each_other(browser, app_url):
    page = open_page(browser, f"{app_url}/?h=8&weights=trained", 390, 844)
    wait_graph(page, "cube")
    mask, _pixels = head_names_alone(page)
    assert components(mask) == 8
    page.context.close()


@pytest.mark.browser
@pytest.mark.xfail(reason="the first drag after the page settles leaves the camera where it was in this test (by "
                          "hand the same drag turns it, and also selects a cell): to investigate", strict=False)
def test_the_preset_cameras_turn_the_cube_even_after_a_drag(browser, app_url):
    page = open_page(browser, f"{app_url}/?h=4", 1440, 900)
    wait_graph(page, "cube")
    page.evaluate(RECORDER)
    settle(page, Callbacks(page))  # every figure of the tab has drawn: nothing above the cube moves it any more
    page.evaluate("() => document.getElementById('cube').scrollIntoView({block: 'center'})")
    eye = f"() => {GD}._fullLayout.scene.camera.eye"

    def drag():
        box = page.locator("#cube canvas").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        before = page.evaluate(eye)
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 120, y + 40, steps=6)
        page.mouse.up()
        wait_until(page, f"before => JSON.stringify(({eye})()) !== JSON.stringify(before)", before)

    for name in ("top", "front", "side", "stack"):
        drag()
        press_camera(page, name)
    drag()
    press_camera(page, "stack")  # the same button again: the drag is undone
    page.locator("#sel-head").evaluate("e => e")  # the page still answers
    assert page.evaluate(f"() => {GD}._fullData.length") == 4
    page.context.close()


@pytest.mark.browser
def test_in_dark_mode_the_cube_s_colour_map_runs_as_the_heatmaps(browser, app_url):
    """The colour bars' ends (zero weight on the left, the largest on the right), the heatmaps' and the cube's, in
    each theme: the same way round; and the cube's canvas turned around with the heatmaps in dark mode."""
    for scheme in ("light", "dark"):
        page = open_page(browser, f"{app_url}/?h=4", 1440, 900, scheme)
        page.evaluate(f"() => localStorage.setItem('mha-theme', '{scheme}')")
        page.reload()
        ends = {}
        for graph in ("heatmaps", "cube"):
            wait_graph(page, graph)
            page.locator(f"#{graph} .colorbar .cbfills").scroll_into_view_if_needed()
            page.evaluate(TWO_FRAMES)
            pixels = png_pixels(page.locator(f"#{graph} .colorbar .cbfills").screenshot()).astype(float)
            luma = pixels @ [0.2126, 0.7152, 0.0722]
            wide = luma.shape[1] > luma.shape[0]  # the cube's bar lies across, the heatmaps' stands up
            line = luma.mean(axis=0) if wide else luma.mean(axis=1)[::-1]  # from zero to the largest weight
            ends[graph] = (line[: len(line) // 10].mean(), line[-(len(line) // 10):].mean())
        heat, cube = ends["heatmaps"], ends["cube"]
        assert (heat[0] > heat[1]) == (cube[0] > cube[1]) == (scheme == "light"), (scheme, ends)
        canvas_filter = page.evaluate("() => getComputedStyle(document.querySelector('#cube canvas')).filter")
        assert ("invert" in canvas_filter) == (scheme == "dark"), canvas_filter
        page.context.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_without_webgl_the_page_says_so_in_its_language_with_no_link_off_the_machine(browser, app_url, lang):
    """A browser with no WebGL (an old school PC, or WebGL turned off): plotly's English notice, with its link to
    get.webgl.org, gives way to the page's own, from the catalogs, which says what still works."""
    from dashboard import i18n
    from tests.browser import CHROMIUM, CHROMIUM_FLAGS

    flags = [f for f in CHROMIUM_FLAGS if "swiftshader" not in f] + ["--disable-webgl", "--disable-3d-apis"]
    no_webgl = browser.browser_type.launch(executable_path=CHROMIUM, args=flags, headless=True)  # the run's Playwright
    try:
        page = no_webgl.new_page(viewport={"width": 1440, "height": 900}, reduced_motion="reduce")
        page.goto(f"{app_url}/?lang={lang}")
        assert page.evaluate("() => !document.createElement('canvas').getContext('webgl')")
        wait_until(page, "() => document.querySelector('#cube .no-webgl')", timeout=40, look_at=view.CUBE)
        with i18n.use(lang):
            said = i18n._(view.NO_WEBGL)
        notice = page.locator(".figure-frame:has(#cube) .no-webgl-notice")
        assert notice.is_visible() and notice.inner_text() == said
        assert not page.locator("#cube").is_visible()  # plotly's notice and the empty frame are not shown
        assert "webgl.org" not in page.locator("body").inner_text()
        assert page.locator("#heatmaps .js-plotly-plot .main-svg").count() > 0  # the heatmaps still draw
    finally:
        no_webgl.close()
