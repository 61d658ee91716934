"""What a shared classroom server needs around the Dash app.

Compression, security headers on every response, an optional class password, a health
endpoint for monitoring, long-lived caching of fingerprinted assets, and a
guard that answers a malformed callback request with 400 instead of a 500.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import logging
import os

from dash.exceptions import PreventUpdate
from flask import Response, jsonify, request
from flask_compress import Compress
from werkzeug.exceptions import HTTPException

PASSWORD_ENV = "CLASS_PASSWORD"
HEALTH_PATH = "/healthz"
DISPATCH_PATH = "/_dash-update-component"
ONE_YEAR = 365 * 24 * 3600

log = logging.getLogger(__name__)


def content_security_policy(script_hashes) -> str:
    """No inline script but Dash's own (by hash), no eval, nothing from another host, no framing."""
    return "; ".join([
        "default-src 'self'",
        "script-src 'self' " + " ".join(script_hashes),  # csp_hashes() are quoted already
        "style-src 'self' 'unsafe-inline'",  # Plotly and React set inline styles
        "img-src 'self' data: blob:",  # Plotly draws heatmaps as data: images
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


def is_callback_request(body) -> bool:
    """The shape the Dash renderer sends; anything else is refused before Dash sees it."""
    return (
        isinstance(body, dict)
        and isinstance(body.get("output"), str)
        and isinstance(body.get("outputs"), (dict, list))
        and isinstance(body.get("inputs"), list)
        and isinstance(body.get("state", []), list)
        and isinstance(body.get("changedPropIds", []), list)
        and all(isinstance(x, dict) and "id" in x and "property" in x
                for x in body["inputs"] + body.get("state", []) if not isinstance(x, list))
    )


def bad_request(message: str) -> tuple[Response, int]:
    return jsonify(error=message), 400


def password_ok(expected: str) -> bool:
    """HTTP basic auth: any user name, the class password."""
    header = request.headers.get("Authorization", "")
    if not header.startswith("Basic "):
        return False
    try:
        _, _, given = base64.b64decode(header[6:], validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


def compress(server) -> None:
    """Brotli, gzip or deflate, as the client asks, for pages, callbacks and streamed assets alike.
    flask-compress leaves gzip out for streamed files by default, and some clients and proxies
    ask for gzip only."""
    server.config["COMPRESS_ALGORITHM_STREAMING"] = ["zstd", "br", "gzip", "deflate"]
    Compress(server)


def harden(app, password: str | None = None) -> None:
    """Wrap the Flask server of a Dash app; `password` defaults to $CLASS_PASSWORD (off when unset)."""
    server = app.server
    compress(server)
    password = password if password is not None else os.environ.get(PASSWORD_ENV) or None
    csp = content_security_policy(app.csp_hashes())

    dispatch_endpoint = next(r.endpoint for r in server.url_map.iter_rules() if r.rule.endswith(DISPATCH_PATH))
    dispatch = server.view_functions[dispatch_endpoint]

    def guarded_dispatch(*args, **kwargs):
        if not is_callback_request(request.get_json(silent=True)):
            return bad_request("not a Dash callback request")
        try:
            return dispatch(*args, **kwargs)
        except (PreventUpdate, HTTPException):  # Dash answers these itself (204 = no update)
            raise
        except Exception:  # a forged request Dash cannot map to a callback; a real bug is logged
            log.exception("callback request failed")
            return bad_request("this callback request could not be processed")

    server.view_functions[dispatch_endpoint] = guarded_dispatch

    @server.route(HEALTH_PATH)
    def health():
        return jsonify(status="ok")

    @server.before_request
    def require_password():
        if password and request.path != HEALTH_PATH and not password_ok(password):
            return Response("This class's dashboard needs its password.", 401,
                            {"WWW-Authenticate": 'Basic realm="attention explorer", charset="UTF-8"'})
        return None

    @server.after_request
    def headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = csp
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        if request.path.startswith("/assets/") and "m" in request.args:
            # the ?m= fingerprint changes whenever the file does
            response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
        return response
