"""The class-mode join link as a QR code, drawn on this server (no outside service).

segno encodes it (Reed-Solomon error correction and mask choice are not worth writing again);
the result is an SVG data: URI for an <img>, which the Content-Security-Policy allows.
"""

from __future__ import annotations

import re

import segno

MAX_URL = 200
# The page's own origin, as the browser reports it: http(s), a host name or address, a port.
ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,100})(:[0-9]{1,5})?")


def origin_ok(origin) -> bool:
    """Whether a page's reported origin is one (the join link and its QR code are built on it)."""
    return isinstance(origin, str) and ORIGIN.fullmatch(origin) is not None


def join_qr(url: str) -> str:
    """An SVG data: URI of the QR code for `url`: black on white with the 4-module quiet zone a
    camera needs, also on a dark page. Error correction M, so a projector's glare still reads."""
    if not (isinstance(url, str) and url.startswith(("http://", "https://")) and len(url) <= MAX_URL):
        raise ValueError(f"a join link is an http(s) URL of at most {MAX_URL} characters")
    return segno.make(url, error="m", micro=False).svg_data_uri(scale=8, border=4, dark="#000", light="#fff")
