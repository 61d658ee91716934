"""What a shared classroom server needs around the Dash app.

Compression, security headers on every response, a request size limit, an optional class
password with a limit on wrong guesses, a health endpoint for monitoring (503 when a part is down), long-lived caching
of fingerprinted assets, and honest status codes: a request that is not one of this app's
callbacks gets a 4xx before Dash sees it, so an exception inside a callback is a server bug,
answered 500 and logged in one line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import os
import time
import traceback
from urllib.parse import urlsplit, urlunsplit

from dash.exceptions import DependencyException
from flask import Response, g, has_request_context, jsonify, request
from flask_compress import Compress
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from . import i18n, trainer
from .ratelimit import RateLimited, RateLimiter

PASSWORD_ENV = "CLASS_PASSWORD"
HEALTH_PATH = "/healthz"
DISPATCH_ROUTE = "_dash-update-component"
SUITES_ROUTE = "_dash-component-suites/"
ONE_YEAR = 365 * 24 * 3600
MAX_BODY = 64 * 1024  # bytes; a real callback body is under 2 KB
MAX_LOGGED = 200  # characters of any user-supplied string that may reach the log
# Password tries (right or wrong) per client address, the deployment's workers together ($WEB_CONCURRENCY, which
# deploy/serve.py sets): a burst, for a class typing it at once behind one school address, then one a second.
PASSWORD_TRIES_PER_SECOND, PASSWORD_BURST = 1.0, 60
PASS_COOKIE, PASS_HOURS = "class_pass", 12  # a signed cookie: a browser that gave the password is never throttled
PROXIES_ENV = "TRUSTED_PROXIES"  # comma-separated addresses whose X-Real-IP names the client (deploy/serve.py)

log = logging.getLogger(__name__)


def short(value) -> str:
    """A value as one log-safe line of at most MAX_LOGGED characters."""
    text = str(value).replace("\n", " ").replace("\r", " ")
    return text if len(text) <= MAX_LOGGED else text[:MAX_LOGGED] + "…"


def short_args(record: logging.LogRecord) -> bool:
    """Logging filter: long strings a client sent (a request line, say) are cut before they are written."""
    if isinstance(record.args, tuple):
        record.args = tuple(short(a) if isinstance(a, str) else a for a in record.args)
    return True


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


def page_language() -> str:
    """The language a page is built in: ?lang=, else the one this browser chose in the header's switch (a
    cookie), else the browser's Accept-Language, else English."""
    if not has_request_context():
        return i18n.DEFAULT
    return (i18n.parse(request.args.get("lang")) or i18n.parse(request.cookies.get(i18n.CHOICE_COOKIE))
            or i18n.negotiate(request.accept_languages))


def layout_language() -> str:
    """The language of the layout a page fetches (Dash asks for it with no query string): the page's own, which
    the page's response left in a cookie, else as a page would choose."""
    if not has_request_context():
        return i18n.DEFAULT
    return i18n.parse(request.cookies.get(i18n.PAGE_COOKIE)) or page_language()


def ids(items) -> list | None:
    """[(id, property)] of a request's inputs, state or outputs; None if any item is not such a dict. A dict id
    ({"type": …, "graph": …}) as the string the app's callback map keys it by (one_id)."""
    if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
        return None
    return [(one_id(x.get("id")), x.get("property")) for x in items]


def one_id(component_id):
    """A component's id as Dash writes it in a callback's key: a string as it is, a dict as compact JSON with
    sorted keys."""
    return json.dumps(component_id, sort_keys=True, separators=(",", ":")) \
        if isinstance(component_id, dict) else component_id


def is_callback_request(body, callback_map) -> bool:
    """A request for one of this app's server callbacks, with exactly the inputs, state and outputs
    it declares, in order. Only the values are the client's; the callback checks those."""
    if not (isinstance(body, dict) and isinstance(body.get("output"), str)):
        return False
    spec = callback_map.get(body["output"])
    if spec is None or "callback" not in spec:  # unknown, or a clientside callback
        return False
    multi = isinstance(spec["output"], list)
    declared = spec["output"] if multi else [spec["output"]]
    inputs = [(one_id(x["id"]), x["property"]) for x in spec["inputs"]]
    names = {f"{i}.{p}" for i, p in inputs}
    changed = body.get("changedPropIds", [])
    outputs = ids(body.get("outputs") if multi else [body.get("outputs")])
    return (
        outputs is not None
        # an output that allows duplicates carries '@<hash>' after its property, as Dash names it
        and [(i, p.split("@")[0] if isinstance(p, str) else p) for i, p in outputs]
        == [(one_id(o.component_id), o.component_property) for o in declared]
        and ids(body.get("inputs")) == inputs
        and ids(body.get("state", [])) == [(one_id(x["id"]), x["property"]) for x in spec["state"]]
        and isinstance(changed, list)
        and all(isinstance(c, str) and c in names for c in changed)
    )


def request_body():
    """The parsed JSON body, or None if it is not JSON (too deep to parse counts as not JSON).
    A body of MAX_BODY bytes or more is a 413: werkzeug stops reading a chunked body there without a word."""
    if len(request.get_data()) >= MAX_BODY:
        raise RequestEntityTooLarge()
    try:
        return request.get_json(silent=True)
    except RecursionError:
        return None


def bad_request(message: str) -> tuple[Response, int]:
    return jsonify(error=message), 400


def trusted_proxies() -> set[str]:
    """The proxies whose X-Real-IP is believed: $TRUSTED_PROXIES, none when unset (deploy/serve.py trusts its nginx)."""
    return {a.strip() for a in os.environ.get(PROXIES_ENV, "").split(",") if a.strip()}


def client_address() -> str:
    """The client's address: X-Real-IP when a trusted proxy (deploy/nginx.conf) sends the request, else the peer."""
    if request.remote_addr in trusted_proxies():
        return request.headers.get("X-Real-IP", request.remote_addr)
    return request.remote_addr or "?"


def pass_cookie(password: str, expires: int) -> str:
    """The signed cookie of a browser that gave `password`, valid until `expires` (Unix seconds). The key comes from
    the password, so every worker and host agrees, and a new password ends every cookie."""
    key = hashlib.sha256(b"class pass cookie\0" + password.encode()).digest()
    return f"{expires}.{hmac.new(key, str(expires).encode(), hashlib.sha256).hexdigest()}"


def has_pass(password: str, cookie: str | None) -> bool:
    expires = (cookie or "").split(".")[0]
    return (expires.isdigit() and len(cookie) < 100 and int(expires) > time.time()
            and hmac.compare_digest(cookie, pass_cookie(password, int(expires))))


def password_needed() -> Response:
    with i18n.use(page_language()):
        text = i18n._("This class's dashboard needs its password.")
    return Response(text, 401,
                    {"WWW-Authenticate": 'Basic realm="attention explorer", charset="UTF-8"'})


def class_password(password: str | None) -> str | None:
    """`password`, else $CLASS_PASSWORD, else None (no password). A set but empty password refuses to start:
    it would otherwise turn the password off without a word."""
    password = password if password is not None else os.environ.get(PASSWORD_ENV)
    if password is not None and not password.strip():
        raise ValueError(f"{PASSWORD_ENV} is set but empty. Unset it to serve without a password, or give it one.")
    return password


def compress(server) -> None:
    """Brotli, gzip or deflate, as the client asks, for pages, callbacks and streamed assets alike.
    flask-compress leaves gzip out for streamed files by default, and some clients and proxies
    ask for gzip only."""
    server.config["COMPRESS_ALGORITHM_STREAMING"] = ["zstd", "br", "gzip", "deflate"]
    Compress(server)


def endpoint(app, route: str) -> str:
    """The Flask endpoint of a Dash app's route whose rule starts with the app's prefix and `route`."""
    rule = app.config.routes_pathname_prefix + route
    return next(r.endpoint for r in app.server.url_map.iter_rules() if r.rule.startswith(rule))


def guard(apps: list) -> None:
    """With Flask's own hooks: refuse any request that is not for one of the apps' own callbacks (before_request,
    ahead of Dash's view), and answer 404 for any file Dash does not serve (an error handler)."""
    server = apps[0].server
    dispatchers = {endpoint(app, DISPATCH_ROUTE): app for app in apps}

    @server.before_request
    def callbacks_only():
        app = dispatchers.get(request.endpoint)
        if app is not None and not is_callback_request(request_body(), app.callback_map):
            return bad_request("not a request for one of this app's callbacks")
        return None

    @server.errorhandler(DependencyException)
    def unknown_suite(error):  # _dash-component-suites/: a package or file Dash does not serve
        return Response("not found", 404, mimetype="text/plain")


def relative_location(location: str) -> str:
    """A redirect to this server as a path, which the browser resolves against the address it used: the scheme,
    host and port stay the browser's behind nginx on any port or a TLS front (Flask builds absolute ones from the
    Host header, which a proxy may have rewritten)."""
    parts = urlsplit(location)
    if parts.scheme in ("http", "https") and parts.netloc == request.host and parts.path.startswith("/"):
        return urlunsplit(("", "", parts.path, parts.query, parts.fragment))
    return location


def health(checks: dict) -> tuple[Response, int]:
    """/healthz: each part's state, 'ok' or 'down', and 503 if any is down. Every part is judged as the whole
    server: the store is one database for every worker, and a trainer that died is replaced on the spot, so
    every worker gives the same answer."""
    parts = {"store": "ok", **{name: check() for name, check in checks.items()},
             "trainer": "ok" if trainer.ready() else "down"}
    down = any(state != "ok" for state in parts.values())
    return jsonify(status="down" if down else "ok", **parts), 503 if down else 200


def harden(apps: list, password: str | None = None, health_checks: dict | None = None) -> None:
    """Wrap the Flask server the Dash apps share; `password` defaults to $CLASS_PASSWORD (off when unset).
    `health_checks` ({part: a function that returns 'ok' or 'down'}) join the trainer's on /healthz."""
    server = apps[0].server
    compress(server)
    server.config["MAX_CONTENT_LENGTH"] = MAX_BODY  # a longer body is a 413 before it is read
    logging.getLogger("werkzeug").addFilter(short_args)  # `python app.py` logs each request line
    password = class_password(password)
    workers = max(1, int(os.environ.get("WEB_CONCURRENCY", "1")))  # each keeps its own buckets
    tries = RateLimiter(rate=PASSWORD_TRIES_PER_SECOND / workers, burst=max(1, PASSWORD_BURST // workers))
    assets = tuple(app.config.requests_pathname_prefix + "assets/" for app in apps)  # /assets/, /class/assets/
    csp = content_security_policy(sorted({h for app in apps for h in app.csp_hashes()}))

    @server.errorhandler(Exception)
    def server_error(error: Exception):
        """A bug: one log line (type, message, where), a 500, and no traceback for the client."""
        if isinstance(error, HTTPException):  # 404, 405, 413 ...: Flask's own answer
            return error
        where = traceback.extract_tb(error.__traceback__)[-1]
        log.error("%s %s failed: %s: %s (%s:%d)", request.method, short(request.path), type(error).__name__,
                  short(error), os.path.basename(where.filename), where.lineno)
        return jsonify(error="the server failed on this request"), 500

    server.add_url_rule(HEALTH_PATH, "health", lambda: health(health_checks or {}))

    @server.before_request
    def require_password():
        """A browser with the signed cookie is served, never throttled. Any other try of the password (HTTP basic,
        any user name), right or wrong, takes one from its address's bucket first: past it, a 429 that says nothing
        about the password, so a guesser gets about one try a second and a right one gets in within a second or
        two of a burst of typos. The right password sets the cookie."""
        if not password or request.path == HEALTH_PATH or has_pass(password, request.cookies.get(PASS_COOKIE)):
            return None
        given = request.authorization
        if given is None or given.type != "basic":
            return password_needed()
        client = client_address()
        try:
            tries.check(client)
        except RateLimited as refused:  # not logged: the log stays at the bucket's rate
            with i18n.use(page_language()):
                text = i18n._("Too many password tries from this address: wait a moment.")
            return Response(text, 429, {"Retry-After": str(math.ceil(refused.retry_after))})
        if hmac.compare_digest(given.password.encode(), password.encode()):
            g.give_pass = True
            return None
        log.warning("wrong class password from %s", short(client))
        return password_needed()

    guard(apps)  # after the password: a request without it gets the prompt, whatever its body

    @server.after_request
    def headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = csp
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        if "Location" in response.headers:
            response.headers["Location"] = relative_location(response.headers["Location"])
        if response.mimetype == "text/html":  # a page: its layout, fetched next, follows its language
            lang = page_language()
            if lang != request.cookies.get(i18n.PAGE_COOKIE):
                response.set_cookie(i18n.PAGE_COOKIE, lang, samesite="Lax", httponly=True)
        if response.mimetype in ("text/html", "application/json"):
            response.vary.update(("Accept-Language", "Cookie"))  # a page and its layout follow the language
        if g.get("give_pass"):
            expires = int(time.time()) + PASS_HOURS * 3600
            response.set_cookie(PASS_COOKIE, pass_cookie(password, expires), max_age=PASS_HOURS * 3600,
                                httponly=True, samesite="Lax")
        if request.path.startswith(assets) and "m" in request.args:
            # the ?m= fingerprint changes whenever the file does
            response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
        if password and response.cache_control.max_age:
            # browsers only: a shared cache (deploy/nginx.conf keeps one) would hand it out without the password
            response.cache_control.public, response.cache_control.private = False, True
        elif password and response.mimetype in ("text/html", "application/json"):
            response.headers["Cache-Control"] = "no-store"  # no copy of a password-only page in any cache
        return response
