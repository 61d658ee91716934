"""Issue 38: performance.md shows the interactions bench as a chart made from the bench's own output
(bench/bench_interactions.py writes docs/bench/interactions.json, bench/chart.py draws docs/img/interactions.svg)."""

import json
import re
import statistics
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bench import chart

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"


def data(**kw):
    return dict({"date": "2026-12-03 21:40 UTC", "machine": "2 cores", "repeats": 3, "load": [1.0, 2.0],
                 "compared": [{"name": "h 2 → 8", "what": "heatmaps", "app": [0.8, 0.9, 1.3],
                               "floor": [0.3, 0.45, 0.5]}],
                 "alone": [{"name": "tab → learning", "what": "last draw", "app": [0.7, 0.6, 0.9], "target": 0.5},
                           {"name": "click on a cell", "what": "drill-down", "app": [], "target": 0.3}]}, **kw)


def bars(svg: str) -> list[float]:
    return [float(r.get("width")) for r in ET.fromstring(svg).iter(SVG + "rect")
            if r.get("fill") in (chart.APP, chart.FLOOR)][:-2]  # the last two are the legend's swatches


def test_each_bar_is_its_median_on_one_scale_with_its_range_and_target():
    svg = chart.svg(data())
    app, floor, tab = bars(svg)
    assert app / floor == pytest.approx(statistics.median([0.8, 0.9, 1.3]) / 0.45, rel=1e-3)  # one scale for the panel
    texts = [t.text for t in ET.fromstring(svg).iter(SVG + "text")]
    assert "0.90 s" in texts and "0.45 s" in texts and "0.70 s, target 0.5 s" in texts
    assert "timed out, target 0.3 s" in texts  # no measurement is said as such, not drawn as zero
    whiskers = [(float(w.get("x1")), float(w.get("x2"))) for w in ET.fromstring(svg).iter(SVG + "line")
                if w.get("stroke") == chart.INK]
    # from the fastest run to the slowest
    assert (whiskers[0][1] - whiskers[0][0]) / app == pytest.approx((1.3 - 0.8) / 0.9, rel=1e-3)
    desc = ET.fromstring(svg).find(SVG + "desc").text
    assert "h 2 → 8 (heatmaps), app: 0.90 s" in desc and "floor: 0.45 s" in desc  # the text alternative


def test_the_committed_chart_is_drawn_from_the_committed_data_and_performance_md_shows_it():
    recorded = json.loads(chart.DATA.read_text(encoding="utf-8"))
    assert chart.CHART.read_text(encoding="utf-8") == chart.svg(recorded)
    assert recorded["compared"] and recorded["alone"] and all(row["app"] for row in recorded["compared"])
    page = (ROOT / "docs/performance.md").read_text(encoding="utf-8")
    assert re.search(r"!\[[^\]]+\]\(img/interactions\.svg\)", page)
    assert recorded["date"] in page  # the page dates the chart it shows
