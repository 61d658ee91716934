"""The class-mode join link as a QR code, drawn on this server (no outside service).

segno encodes it (Reed-Solomon error correction and mask choice are not worth writing again);
the result is an SVG data: URI for an <img>, which the Content-Security-Policy allows.
"""

from __future__ import annotations

import segno

MAX_URL = 200


def join_qr(url: str) -> str:
    """An SVG data: URI of the QR code for `url`: black on white with the 4-module quiet zone a
    camera needs, also on a dark page. Error correction M, so a projector's glare still reads."""
    if not (isinstance(url, str) and url.startswith(("http://", "https://")) and len(url) <= MAX_URL):
        raise ValueError(f"a join link is an http(s) URL of at most {MAX_URL} characters")
    return segno.make(url, error="m", micro=False).svg_data_uri(scale=8, border=4, dark="#000", light="#fff")
