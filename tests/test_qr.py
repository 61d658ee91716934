"""The join link's QR code: drawn here, and a real decoder (Debian's zbarimg) reads the link back."""

import re
import subprocess
import xml.etree.ElementTree as ET
from urllib.parse import unquote

import numpy as np
import pytest

from dashboard.classmode.qr import join_qr

URLS = ["http://127.0.0.1:8050/class/join/ABC234", "https://attention.school.example/class/join/XYZ789",
        "https://a.example/" + "x" * 150]


def modules(uri: str) -> np.ndarray:
    """The SVG's dark modules as a boolean matrix, quiet zone included (segno draws each row's dark
    runs as horizontal strokes: M/m move, h draws)."""
    prefix, svg = uri.split(",", 1)
    assert prefix == "data:image/svg+xml;charset=utf-8"
    root = ET.fromstring(unquote(svg))
    ns = {"svg": "http://www.w3.org/2000/svg"}
    background, strokes = root.findall(".//svg:path", ns)
    assert background.get("fill") == "#fff" and strokes.get("stroke") == "#000"
    size = int(re.fullmatch(r"M0 0h(\d+)v\1h-\1z", background.get("d")).group(1))
    assert root.get("width") == root.get("height") == str(8 * size)
    grid = np.zeros((size, size), bool)
    x = y = 0.0
    for op, dx, dy in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", strokes.get("d")):
        if op == "h":
            grid[int(y), int(x):int(x) + int(dx)] = True
            x += int(dx)
        else:
            x, y = (float(dx), float(dy)) if op == "M" else (x + float(dx), y + float(dy))
    return grid


def decode(grid: np.ndarray, tmp_path) -> str:
    """What zbarimg reads from the matrix drawn at 6 pixels a module."""
    pixels = np.where(np.kron(grid, np.ones((6, 6), bool)), 0, 255).astype(np.uint8)
    image = tmp_path / "qr.pgm"
    image.write_bytes(b"P5 %d %d 255\n" % pixels.shape[::-1] + pixels.tobytes())
    result = subprocess.run(["zbarimg", "--raw", "-q", str(image)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout.rstrip("\n")


@pytest.mark.parametrize("url", URLS)
def test_a_phone_camera_would_read_the_join_link(url, tmp_path):
    grid = modules(join_qr(url))
    size = grid.shape[0]
    assert (size - 8 - 17) % 4 == 0  # a QR version v is 4v + 17 modules, plus 4 of quiet zone each side
    assert not grid[:4].any() and not grid[-4:].any() and not grid[:, :4].any() and not grid[:, -4:].any()
    assert grid[4:11, 4].all() and grid[4, 4:11].all()  # the top-left finder pattern
    assert decode(grid, tmp_path) == url


def test_the_same_link_draws_the_same_code_and_another_link_another():
    assert join_qr(URLS[0]) == join_qr(URLS[0])
    assert not np.array_equal(modules(join_qr(URLS[0])), modules(join_qr(URLS[0].replace("ABC234", "ABC235"))))


@pytest.mark.parametrize("bad", [None, "", "javascript:alert(1)", "ftp://x.example/", "https://x.example/" + "x" * 200,
                                 b"https://x.example/"])
def test_only_an_http_link_of_bounded_length_is_drawn(bad):
    with pytest.raises(ValueError):
        join_qr(bad)
