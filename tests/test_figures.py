import numpy as np
import plotly.graph_objects as go
import pytest

from dashboard import figures
from dashboard.attention import HEAD_CHOICES, multi_head_attention, worked_example
from dashboard.figures import equivariance, example
from tests.util import decode


def attention(h, seed=0):
    return multi_head_attention(*worked_example(seed)[:5], h)


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_heatmaps_hold_every_head_on_one_scale(h):
    A = attention(h, seed=3).A
    fig = example.attention_heatmaps(A)
    assert len(fig["data"]) == h
    for i, trace in enumerate(fig["data"]):
        np.testing.assert_allclose(decode(trace["z"]), A[i], rtol=1e-6)
        assert trace["coloraxis"] == "coloraxis"
        assert "%{z:.3f}" in trace["hovertemplate"] and figures.head_title(i) in trace["hovertemplate"]
    axis = fig["layout"]["coloraxis"]
    assert axis["cmin"] == 0 and axis["cmax"] == pytest.approx(A.max())
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert titles == [f"<b>head {i}</b>" for i in range(1, h + 1)]
    columns = {tuple(fig["layout"][k]["domain"]) for k in fig["layout"] if k.startswith("xaxis")}
    assert len(columns) == min(h, 4)
    for k, ax in fig["layout"].items():
        if k.startswith("yaxis"):
            assert ax["autorange"] == "reversed"  # query row 0 at the top
            assert ax["scaleanchor"] == "x" + k[5:]  # square cells


def test_grid_panels_do_not_overlap():
    fig = figures.heatmap_grid(np.zeros((8, 3, 3)), list("abcdefgh"))
    boxes = [(fig["layout"]["xaxis" + s]["domain"], fig["layout"]["yaxis" + s]["domain"])
             for s in [""] + [str(i) for i in range(2, 9)]]
    for i, (xa, ya) in enumerate(boxes):
        assert 0 <= xa[0] < xa[1] <= 1 and 0 <= ya[0] < ya[1] <= 1
        for xb, yb in boxes[i + 1:]:
            assert xa[1] <= xb[0] or xb[1] <= xa[0] or ya[1] <= yb[0] or yb[1] <= ya[0]


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_cube_is_h_planes_coloured_by_each_head(h):
    A = attention(h, seed=1).A
    traces = example.cube_traces(A)
    assert [t["type"] for t in traces] == [example.PLANE] * h  # the planes' names are the z axis's ticks
    heights = [decode(p["z"]) for p in traces]
    assert [float(z.mean()) for z in heights] == list(range(1, h + 1))  # head 1 at the bottom, as in the seed
    assert all(np.ptp(z) == 0 for z in heights)
    for i, p in enumerate(traces):
        x, y, weight = decode(p["x"]), decode(p["y"]), decode(p["intensity"])
        key, query = np.round(x).astype(int), np.round(y).astype(int)  # the cell each corner belongs to
        assert np.all(np.abs(x - key) < 0.5) and np.all(np.abs(y - query) < 0.5)  # a square stays in its unit
        # cell (r, j) is the square of corners 4 (12 r + j) .. + 3, all four coloured A^(i)_rj: one flat colour
        corners = np.arange(4 * 144) // 4
        assert query.tolist() == (corners // 12).tolist() and key.tolist() == (corners % 12).tolist()
        np.testing.assert_allclose(weight, A[i].ravel().repeat(4), rtol=1e-6)
        assert p["hovertemplate"].endswith("A = %{intensity:.3f}<extra></extra>")  # the hover's number is its colour's
        # two triangles a square, each of three corners of that square, covering it: corners 0 1 2 and 0 2 3
        triangles = np.stack([decode(p[k]) for k in "ijk"], axis=1)
        assert triangles.shape == (2 * 144, 3) and np.all(triangles // 4 == triangles[:, :1] // 4)
        assert sorted(map(tuple, triangles % 4)) == [(0, 1, 2)] * 144 + [(0, 2, 3)] * 144
        assert p["cmax"] == pytest.approx(A.max()) and p["opacity"] == figures.PLANE_OPACITY


def test_cube_focus_fades_the_other_heads():
    traces = example.focus_planes(example.cube_traces(attention(4).A), 2)
    on, off = figures.PLANE_OPACITY, figures.FADED_OPACITY
    assert [t["opacity"] for t in traces[:4]] == [off, off, on, off]


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_cube_figure_lets_the_browser_focus_a_head_as_the_server_does(h):
    """The head buttons focus a plane in the browser from the figure alone (layout.meta, read by
    assets/explorer.js focusPlanes); a change of h focuses it on the server (focus_planes). Both must agree."""
    fig = {"data": example.cube_traces(attention(h).A), "layout": example.cube_layout()}
    go.Figure(fig)  # Plotly knows every attribute
    opacity = fig["layout"]["meta"]["opacity"]
    assert opacity["off"] < opacity["on"]
    for button in range(h + 1):  # 0 is "all", k is head k
        browser = [opacity["on"] if button in (0, i + 1) else opacity["off"]
                   for i, t in enumerate(fig["data"]) if t["type"] == example.PLANE]
        server = example.focus_planes(fig["data"], button - 1 if button else None)
        assert browser == [t["opacity"] for t in server if t["type"] == example.PLANE], button


def test_token_views_colour_three_clusters_and_show_X():
    ex = worked_example(4)
    fig = example.token_views(ex.X, ex.cluster)
    scatters = [t for t in fig["data"] if t["type"] == "scatter"]
    assert [t["text"] for t in scatters] == [["0", "1", "2", "3"], ["4", "5", "6", "7"], ["8", "9", "10", "11"]]
    assert len({t["marker"]["color"] for t in scatters}) == 3 and len({t["marker"]["symbol"] for t in scatters}) == 3
    heat = [t for t in fig["data"] if t["type"] == "heatmap"][0]
    np.testing.assert_allclose(decode(heat["z"]), ex.X, rtol=1e-6)
    # the projection keeps distances within a cluster small relative to between clusters
    pts = np.concatenate([np.stack([decode(t["x"]), decode(t["y"])], 1) for t in scatters])
    within = np.mean([np.linalg.norm(pts[a] - pts[b]) for a in range(12) for b in range(12) if a // 4 == b // 4])
    between = np.mean([np.linalg.norm(pts[a] - pts[b]) for a in range(12) for b in range(12) if a // 4 != b // 4])
    assert within < between


def separation(P: np.ndarray, cluster: np.ndarray) -> float:
    """The closest two clusters' centres apart, over a token's mean distance from its own centre."""
    m = np.array([P[cluster == c].mean(0) for c in range(3)])
    within = np.mean([np.linalg.norm(P[cluster == c] - m[c], axis=1).mean() for c in range(3)])
    return min(np.linalg.norm(m[a] - m[b]) for a in range(3) for b in range(a + 1, 3)) / within


@pytest.mark.parametrize("size", [2, 4, 16])
def test_a_phone_s_tokens_lie_in_the_plane_of_the_clusters_centres_where_the_trained_input_s_clusters_part(size):
    """Issue 35: on a phone, the tokens of the learning lab's input (trained weights) overlapped in the principal
    plane; in the plane through the clusters' centres, the centres keep their distances, and the clusters part."""
    from dashboard.classmode import pictures
    from dashboard.state import tokens

    X, cluster = tokens("trained", 0, size)
    fig = pictures.question_example({"template": "key", "weights": "trained", "seed": 0, "size": size})[0].figure
    P = np.concatenate([np.stack([decode(t["x"]), decode(t["y"])], 1) for t in fig["data"]])
    order = np.concatenate([np.flatnonzero(cluster == c) for c in range(3)])
    np.testing.assert_allclose(P, example.centres_plane(X, cluster)[order], atol=1e-6)
    m = np.array([X[cluster == c].mean(0) for c in range(3)])
    pm = np.array([P[cluster[order] == c].mean(0) for c in range(3)])
    for a, b in ((0, 1), (0, 2), (1, 2)):  # the centres' true distances, kept
        assert np.linalg.norm(pm[a] - pm[b]) == pytest.approx(np.linalg.norm(m[a] - m[b]), rel=1e-6)
    Xc = X - X.mean(0)
    principal = Xc @ np.linalg.svd(Xc, full_matrices=False)[2][:2].T
    if size == 4:  # the lecturer's example: overlapping in the principal plane, apart in this one
        assert separation(principal, cluster) < 1 < separation(example.centres_plane(X, cluster), cluster)
    assert fig["layout"]["xaxis"]["title"]["text"] == "from cluster 1's centre to cluster 2's"


@pytest.mark.parametrize("h", HEAD_CHOICES)
def test_block_views_outline_h_blocks(h):
    r = attention(h)
    fig = example.block_views(r.Q, r.K, r.V)
    assert len(fig["layout"]["shapes"]) == 3 * h
    np.testing.assert_allclose(decode(fig["data"][0]["z"]), r.Q.transpose(1, 0, 2).reshape(12, 8), rtol=1e-6)
    assert fig["layout"]["xaxis"]["ticktext"][0] == "Q₁" and len(fig["layout"]["xaxis3"]["ticktext"]) == h


def test_equivariance_figures_label_rows_by_token():
    r = attention(2)
    perm = np.array([3, 1, 2, 0, 4, 5, 6, 7, 8, 9, 10, 11])
    fig = equivariance.equivariance_attention(r.A[1], r.A[1][perm][:, perm], r.A[1][perm][:, perm], perm, 1)
    assert fig["layout"]["yaxis"]["ticktext"][0] == "t3" and fig["layout"]["yaxis3"]["ticktext"][0] == "t0"
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert titles == ["<b>head 2: A(PX)</b>", "<b>head 2: P A(X) Pᵀ</b>", "<b>head 2: A(X)</b>"]
    # with positional encodings the panels say what they show: X + E
    fig = equivariance.equivariance_attention(r.A[1], r.A[1], r.A[1], perm, 1, with_positions=True)
    assert fig["layout"]["annotations"][0]["text"] == "<b>head 2: A(PX + E)</b>"
    # on a phone, the two panels that must be equal share the first row
    fig = equivariance.equivariance_attention(r.A[1], r.A[1], r.A[1], perm, 1, figures.Display(narrow=True))
    assert fig["layout"]["yaxis"]["domain"] == fig["layout"]["yaxis2"]["domain"]


def test_typed_array_round_trips_and_config_has_no_share_button():
    a = np.arange(6, dtype=float).reshape(2, 3) / 7
    t = figures.typed_array(a)
    assert t["shape"] == "2, 3"
    np.testing.assert_allclose(decode(t), a, rtol=1e-7)
    assert figures.GRAPH_CONFIG["showSendToCloud"] is False and figures.GRAPH_CONFIG["displaylogo"] is False


@pytest.mark.parametrize("narrow", [False, True])
def test_column_blocks_title_only_the_last_row(narrow):
    """On a phone Q and K share the first row and V is under Q: Q's axis title would run into V's panel title."""
    r = multi_head_attention(*worked_example(0)[:5], 4)
    fig = example.block_views(r.Q, r.K, r.V, figures.Display(narrow=narrow))
    titles = [fig["layout"]["xaxis" + figures.axis_suffix(p)]["title"]["text"] for p in range(3)]
    assert titles == (["", "column blocks", "column blocks"] if narrow else ["column blocks"] * 3)
