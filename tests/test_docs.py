"""The README is a teacher's front door and the guides' commands run: the README's size, its pictures and its
first commands; every picture is one tools/screenshots.py makes, small, and of a setting that still opens (its
URL answers and holds only parameters the app's URL schema knows, with values it accepts); and every shell
block a guide marks `sh runnable` runs as written."""

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDES = [ROOT / "docs" / f"{name}.md" for name in ("teaching", "hosting", "development", "performance")]
IMAGE = re.compile(r'!\[[^\]]*\]\(([^)\s]+)\)|<img\b[^>]*\bsrc="([^"]+)"')
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
RUNNABLE = re.compile(r"^```sh runnable\n(.*?)^```$", re.M | re.S)
# A figure with a unit is a measurement: those live in docs/performance.md, with their date and machine.
MEASUREMENT = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:ms|µs|MiB|KiB|MB|kB)\b|\bp99\b|\bp50\b")

sys.path.insert(0, str(ROOT / "tools"))
import screenshots  # noqa: E402  (tools/screenshots.py: the pictures and the settings they show)
from bench import chart  # noqa: E402  (bench/chart.py: the chart of the interactions bench)


def images(doc: Path) -> list[Path]:
    return [(doc.parent / (a or b)).resolve() for a, b in IMAGE.findall(doc.read_text())]


def test_the_readme_is_a_front_door():
    lines = README.read_text().splitlines()
    assert len(lines) <= 120
    first = "\n".join(lines[:30])
    assert re.search(r"^\s+make run$", first, re.M) and re.search(r"^\s+make test$", first, re.M)
    assert re.search(r"^\s+python app\.py$", README.read_text(), re.M)
    shown = {p for p in images(README) if p.parent == screenshots.DOCS_IMG}
    assert len(shown) >= 3, shown
    assert not [line for line in lines if MEASUREMENT.search(line)]
    linked = {(README.parent / target).resolve() for target in LINK.findall(README.read_text())}
    assert set(GUIDES) <= linked


@pytest.mark.parametrize("doc", [README, *GUIDES], ids=lambda p: p.name)
def test_every_picture_and_link_is_there(doc):
    for picture in images(doc):
        assert picture.is_file(), picture
        assert picture.stat().st_size <= screenshots.MAX_BYTES, picture
    for target in LINK.findall(doc.read_text()):
        if not re.match(r"[a-z]+:", target):  # a file of the project, not an address
            assert (doc.parent / target).exists(), f"{doc.name}: {target}"


def test_every_picture_is_made_by_the_screenshot_tool_and_is_small():
    made = {screenshots.DOCS_IMG / f"{shot.name}.webp" for shot in screenshots.DOCS} | {chart.CHART}  # and the bench's
    assert set(screenshots.DOCS_IMG.iterdir()) == made
    used = {p for doc in (README, *GUIDES) for p in images(doc)}
    assert used <= made
    assert all(p.stat().st_size <= screenshots.MAX_BYTES for p in made)


def accepted(rule: dict, text: str) -> bool:
    """Whether a URL value is one the app's URL schema (dashboard/urls.py) reads as given."""
    kind, value = next(iter(rule.items()))
    if kind == "choices":
        return text in {str(c) for c in value}
    if kind == "count":
        return text.isdigit() and int(text) < value
    if kind == "flag":
        return text == "1"
    numbers = text.split(",")
    return all(n.isdigit() for n in numbers) and len(numbers) <= value  # order, items


@pytest.fixture(scope="module")
def client():
    from dashboard import create_app

    return create_app().server.test_client()


@pytest.mark.parametrize("shot", screenshots.DOCS, ids=lambda s: s.name)
def test_each_pictures_setting_still_opens(shot, client):
    from dashboard.explorer import URL_PARAMS
    from dashboard.i18n import LANGUAGES

    url = urlsplit(shot.url)
    params = {p["key"]: p for p in URL_PARAMS}
    for key, text in parse_qsl(url.query, keep_blank_values=True):
        if key == "lang":
            assert text in LANGUAGES, (shot.name, text)
            continue
        assert key in params, f"{shot.name}: ?{key}= is not in the URL schema"
        assert accepted(params[key]["rule"], text), f"{shot.name}: ?{key}={text} is not accepted"
    response = client.get(shot.url, follow_redirects=True)
    assert response.status_code == 200, (shot.url, response.status_code)


def runnable_blocks():
    return [(doc.name, block) for doc in (README, *GUIDES) for block in RUNNABLE.findall(doc.read_text())]


def test_the_guides_have_runnable_blocks():
    assert len(runnable_blocks()) >= 3


@pytest.mark.slow
@pytest.mark.parametrize(("doc", "block"), runnable_blocks(), ids=lambda v: v.splitlines()[0][:40])
def test_a_runnable_block_runs_as_written(doc, block):
    """As a reader with the requirements installed runs it: `python` is the project's venv."""
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, f"{doc}:\n{block}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"


def test_the_readme_gives_each_margin_as_margins_py_has_it():
    """Issue 36: each margin's value is explained in the README, and the numbers there are margins.py's."""
    from dashboard import margins

    text = README.read_text()
    for value, said in [(margins.BITS, "0.05 bits"), (margins.WEIGHT, "0.02 of an attention weight"),
                        (margins.LOSS, "0.01 of the"), (margins.RANK, "0.1 of Spearman"),
                        (margins.SHARE, "5 % of a row's influence")]:
        assert said in text and said.startswith(f"{value * (100 if said.endswith('influence') else 1):g}"), said
