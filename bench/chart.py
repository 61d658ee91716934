"""The interactions bench as a picture: bench/bench_interactions.py writes its measurements as JSON, and this draws
them as one SVG bar chart for docs/performance.md, so the chart is always the data's. Pure Python, no plotting
library: a few rectangles and labels, readable on GitHub's light and dark pages (the chart has its own white
ground).

The data (one run of the bench):
    {"date": "2026-12-03 21:40 UTC", "machine": "...", "browser": "...", "repeats": 5, "load": [1.2, 1.5],
     "compared": [{"name": "h 2 → 8", "what": "heatmaps", "app": [s, ...], "floor": [s, ...]}, ...],
     "alone": [{"name": "tab → learning", "what": "last draw", "app": [s, ...], "target": 0.5}, ...]}
Each list holds one time per repeat, in seconds from the input; a bar is their median, its whisker the range.

Run: python bench/chart.py docs/bench/interactions.json docs/img/interactions.svg
"""

from __future__ import annotations

import json
import statistics
import sys
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA, CHART = ROOT / "docs/bench/interactions.json", ROOT / "docs/img/interactions.svg"  # what performance.md shows
WIDTH, LABEL, BAR, GAP, PAD = 760, 270, 14, 10, 16
APP, FLOOR, TARGET, INK, MUTED = "#1f5fbf", "#9a9aa6", "#c0392b", "#1b1b22", "#55555f"


def median(times: list[float]) -> float | None:
    return statistics.median(times) if times else None


def bars(rows: list[dict], series: tuple[tuple[str, str, str], ...]) -> list[tuple[str, str, list, float | None, bool]]:
    """(label, colour, times, target, last of its row) for every bar of a panel: one bar per series of each row."""
    out = []
    for row in rows:
        for k, (key, colour, name) in enumerate(series):
            label = f"{row['name']} ({row['what']}), {name}" if k == 0 else name
            out.append((label, colour, row.get(key, []), row.get("target") if k == 0 else None, k == len(series) - 1))
    return out


def panel(title: str, entries, top: float) -> tuple[list[str], float]:
    """One panel's SVG elements from `top` down, on its own scale, and the y where it ends."""
    longest = max([max(t, default=0) for _, _, t, _, _ in entries] + [e[3] or 0 for e in entries] + [0.1])
    scale = (WIDTH - LABEL - 150) / longest
    out = [f'<text x="{PAD}" y="{top + 14}" font-weight="bold" fill="{INK}">{escape(title)}</text>']
    y = top + 26
    for label, colour, times, target, last in entries:
        m = median(times)
        said = "" if target is None else f", target {target:g} s"
        out.append(f'<text x="{LABEL - 8}" y="{y + BAR - 3}" text-anchor="end" fill="{MUTED}">{escape(label)}</text>')
        if m is None:
            out.append(f'<text x="{LABEL}" y="{y + BAR - 3}" fill="{TARGET}">timed out{said}</text>')
        else:
            lo, hi = LABEL + min(times) * scale, LABEL + max(times) * scale
            out += [f'<rect x="{LABEL}" y="{y}" width="{max(m * scale, 1):.1f}" height="{BAR}" fill="{colour}"/>',
                    f'<line x1="{lo:.1f}" x2="{hi:.1f}" y1="{y + BAR / 2}" y2="{y + BAR / 2}" stroke="{INK}"/>',
                    f'<text x="{max(hi, LABEL + m * scale) + 6:.1f}" y="{y + BAR - 3}" fill="{INK}">'
                    f'{m:.2f} s{said}</text>']
        if target is not None and m is not None:
            x = LABEL + target * scale
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y - 3}" y2="{y + BAR + 3}" stroke="{TARGET}" '
                       f'stroke-width="2" stroke-dasharray="3 2"><title>target {target} s</title></line>')
        y += BAR + 4 + (GAP if last else 0)
    return out, y + GAP


def svg(data: dict) -> str:
    """The whole chart: the rows compared with the floor, then the app's own rows with their targets."""
    head = (f"Bars: the median of {data['repeats']} runs; whiskers: the fastest to the slowest run.",
            f"{data['date']}, {data['machine']}, load average {data['load'][0]:.1f} to {data['load'][1]:.1f}.")
    compared = bars(data["compared"], (("app", APP, "app"), ("floor", FLOOR, "floor")))
    alone = bars(data["alone"], (("app", APP, "app"),))
    body, y = panel("Seconds from the input until it drew: the app and the plain Dash floor", compared, 52)
    more, y = panel("Seconds from the input until it drew, the app alone (dashed: the target)", alone, y)
    legend = [f'<rect x="{PAD}" y="{y}" width="12" height="12" fill="{APP}"/>',
              f'<text x="{PAD + 18}" y="{y + 11}" fill="{INK}">the app</text>',
              f'<rect x="{PAD + 90}" y="{y}" width="12" height="12" fill="{FLOOR}"/>',
              f'<text x="{PAD + 108}" y="{y + 11}" fill="{INK}">'
              'the floor: a plain Dash app, precomputed figures</text>']
    height = y + 28
    summary = "; ".join(f"{label}: {median(t):.2f} s" if t else f"{label}: timed out"
                        for label, _, t, _, _ in compared + alone)
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12" '
        'role="img" aria-labelledby="chart-title chart-desc">',
        '<title id="chart-title">The explorer\'s interactions against the plain Dash floor</title>',
        f'<desc id="chart-desc">{escape(" ".join(head))} {escape(summary)}.</desc>',
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="#ffffff"/>',
        *(f'<text x="{PAD}" y="{18 + 16 * k}" fill="{MUTED}">{escape(line)}</text>' for k, line in enumerate(head)),
        *body, *more, *legend, "</svg>", ""])


def write(data: dict, data_path: Path, chart_path: Path) -> None:
    data_path.parent.mkdir(parents=True, exist_ok=True)
    chart_path.parent.mkdir(parents=True, exist_ok=True)
    data_path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    chart_path.write_text(svg(data), encoding="utf-8")


if __name__ == "__main__":
    source, target = (Path(a) for a in sys.argv[1:3])
    target.write_text(svg(json.loads(source.read_text(encoding="utf-8"))), encoding="utf-8")
    print(f"wrote {target}")
