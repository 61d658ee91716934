"""The server as a forged request or a sysadmin sees it: headers, bad input, limits, password, health."""

import base64
import functools
import io
import itertools
import json
import logging
import os
import signal
import time

import numpy as np
import pytest
from dash import Input, Output

import app as app_module
from dashboard import create_app, create_apps, server
from dashboard.attention import multi_head_attention, worked_example
from dashboard.ratelimit import RateLimiter
from dashboard.explorer import equivariance as eq
from dashboard.explorer import example
from tests.dash_requests import cube_body, eq_body, heatmaps_body, press_train_body
from tests.util import decode

FORGED_VALUES = ["8", "", "<script>", 8.0, 2.5, float("1e308"), True, False, -(10**30), None, [], [8],
                 {"h": 8}, {"__proto__": 1}, "x" * 10_000, json.loads("[" * 500 + "]" * 500)]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture(scope="module")
def client():
    return create_app().server.test_client()


@pytest.fixture
def failures(caplog):
    """Every log record at WARNING or above while the test runs."""
    caplog.set_level(logging.INFO)
    return lambda: [r for r in caplog.records if r.levelno >= logging.WARNING]


def post(client, payload, **kw):
    data = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
    return client.post("/_dash-update-component", data=data, content_type="application/json", **kw)


def test_valid_update_gives_the_core_values(client):
    r = post(client, heatmaps_body(8, 3))
    assert r.status_code == 200
    heat = r.get_json()["response"][example.HEATMAPS]["figure"]
    A = multi_head_attention(*worked_example(3)[:5], 8).A
    np.testing.assert_allclose([decode(t["z"]) for t in heat["data"]], A, rtol=1e-6)


def well_formed_forgeries():
    """This app's callbacks, exactly as declared, with forged values: the callbacks' own checks answer."""
    for field, value in itertools.product(["h", "seed", "narrow"], FORGED_VALUES):
        yield heatmaps_body(**{field: value})
    for value in FORGED_VALUES:
        yield cube_body(focus=value)
    for data in FORGED_VALUES:  # a gate's data that is not the list the browser sends
        yield {**heatmaps_body(), "inputs": [{**heatmaps_body()["inputs"][0], "value": data}, *heatmaps_body()["inputs"][1:]]}
    for perm, positions, head in [(v, False, 1) for v in FORGED_VALUES] + [("0 1 2", v, v) for v in FORGED_VALUES]:
        yield eq_body(perm, positions=positions, head=head)
    for seed in FORGED_VALUES + [10, -1, 10**6]:
        yield press_train_body(seed)
    yield {**heatmaps_body(), "changedPropIds": []}
    yield {**heatmaps_body(), "changedPropIds": [f"{i['id']}.{i['property']}" for i in heatmaps_body()["inputs"]]}


def malformed_requests():
    """Not a request for one of this app's callbacks: refused before Dash sees it."""
    valid = heatmaps_body()
    yield {k: v for k, v in valid.items() if k != "inputs"}
    yield {k: v for k, v in valid.items() if k != "output"}
    yield {**valid, "inputs": [{"id": "heads"}]}
    yield {**valid, "inputs": "heads"}
    yield {**valid, "inputs": valid["inputs"][:1]}
    yield {**valid, "inputs": valid["inputs"][::-1]}
    yield {**valid, "inputs": valid["inputs"] + [[valid["inputs"][0]]]}
    yield {**valid, "output": "nope.figure"}
    yield {**valid, "output": "x" * 50_000}
    yield {**valid, "output": ["list"]}
    yield {**valid, "outputs": None}
    yield {**valid, "outputs": [valid["outputs"], valid["outputs"]]}  # one output declared, two sent
    yield {**valid, "outputs": {"id": example.BLOCKS, "property": "figure"}}
    yield {**valid, "state": [{"id": "cube-focus", "property": "value", "value": 0}]}
    cube = cube_body()
    yield {**cube, "state": []}
    yield {**cube, "state": [{"id": "cube-focus", "property": "options", "value": 0}]}
    yield {**valid, "changedPropIds": "heads.value"}
    yield {**valid, "changedPropIds": ["nope.value"]}
    yield {**valid, "changedPropIds": [{"id": "heads"}]}
    # a clientside callback: the browser runs it, the server has nothing to run
    yield {"output": "display.data", "outputs": {"id": "display", "property": "data"},
           "inputs": [{"id": "url", "property": "pathname", "value": "/"}],
           "state": [{"id": "config", "property": "data", "value": {}}], "changedPropIds": []}
    yield [valid]
    yield None
    yield "not json {"
    yield b"\xff\xfe"
    yield nested(1000)  # deeper than the parser goes
    yield '{"output": ' + nested(5000) + "}"


def test_forged_requests_get_the_apps_answer_and_malformed_ones_a_400(client, failures):
    forged, malformed = list(well_formed_forgeries()), list(malformed_requests())
    assert len(forged) >= 50 and len(malformed) >= 20
    for payload in forged:
        r = post(client, payload)
        assert r.status_code in (200, 204), (r.status_code, str(payload)[:200])
    for payload in malformed:
        r = post(client, payload)
        assert r.status_code == 400 and "error" in r.get_json(), (r.status_code, str(payload)[:200])
    assert failures() == []
    test_valid_update_gives_the_core_values(client)


def test_forged_controls_get_no_update_and_bad_orders_a_message(client):
    assert post(client, heatmaps_body(h="8")).status_code == 204
    assert post(client, heatmaps_body(seed=10**400)).status_code == 204
    r = post(client, eq_body("0 1 1"))
    assert r.status_code == 200
    resp = r.get_json()["response"]
    assert resp[eq.PERM]["invalid"] is True and "needs 12 numbers" in resp[eq.PERM_FEEDBACK]["children"]


@pytest.mark.parametrize("data", ["{", "[]", "null", '{"output": 1}', "x" * 10])
def test_malformed_body_is_a_400(client, data):
    r = post(client, data)
    assert r.status_code == 400 and r.is_json and "error" in r.get_json()


class CountingStream(io.BytesIO):
    """A request body that remembers how much of it the server read."""

    def read(self, size=-1):
        chunk = super().read(size)
        self.consumed = getattr(self, "consumed", 0) + len(chunk)
        return chunk


@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_over_the_limit_is_a_413_before_it_is_read(client, failures, chunked):
    body = json.dumps(heatmaps_body(seed=[{}] * 2_000_000)).encode()  # 6 MB
    stream = CountingStream(body)
    headers = {"Transfer-Encoding": "chunked"} if chunked else {"Content-Length": str(len(body))}
    r = client.post("/_dash-update-component", input_stream=stream, content_type="application/json",
                    headers=headers, environ_overrides={"wsgi.input_terminated": chunked})  # as gunicorn does
    assert r.status_code == 413
    assert getattr(stream, "consumed", 0) <= server.MAX_BODY + 1
    assert post(client, heatmaps_body(seed="x" * (server.MAX_BODY - 1000))).status_code == 204  # under it: read
    assert failures() == []


def test_unknown_component_suites_are_404_and_not_logged(client, failures):
    page = client.get("/").data.decode()
    known = next(p.split('"')[0] for p in page.split('src="')[1:] if p.startswith("/_dash-component-suites/"))
    assert client.get(known).status_code == 200
    package = known.split("/")[2]
    for path in ["nope/x.js", "nope/x.v1_0_0m1.js", f"{package}/nope.js", f"{package}/../app.py",
                 f"{package}/" + "a" * 5000 + ".js", "dash/__init__.py"]:
        r = client.get("/_dash-component-suites/" + path)
        assert r.status_code == 404, path
        assert b"Traceback" not in r.data and b"registered" not in r.data
    assert failures() == []


def test_a_bug_in_a_callback_is_a_500_with_one_short_log_line(caplog):
    app = create_app()

    @app.callback(Output("bug", "children"), Input("bug-input", "value"))
    def broken(value):
        raise ValueError("a bug " + "x" * 10_000)

    body = {"output": "bug.children", "outputs": {"id": "bug", "property": "children"},
            "inputs": [{"id": "bug-input", "property": "value", "value": 1}], "changedPropIds": ["bug-input.value"]}
    caplog.set_level(logging.INFO)
    r = post(app.server.test_client(), body)
    assert r.status_code == 500 and b"Traceback" not in r.data and b"xxxx" not in r.data
    errors = [rec for rec in caplog.records if rec.levelno >= logging.WARNING]
    assert len(errors) == 1 and errors[0].exc_info is None
    line = errors[0].getMessage()
    assert "ValueError: a bug" in line and "test_server.py" in line and "\n" not in line
    assert len(line) < 2 * server.MAX_LOGGED


def test_long_request_lines_are_cut_in_the_log(client, caplog):
    caplog.set_level(logging.INFO)
    logging.getLogger("werkzeug").info('%s - - "%s" %s', "127.0.0.1", "GET /" + "a" * 100_000, "404")
    assert 0 < len(caplog.records[-1].getMessage()) < 2 * server.MAX_LOGGED


@pytest.mark.parametrize("path", ["/", "/healthz", "/assets/site/app.css", "/_dash-layout", "/nope"])
def test_security_headers_everywhere(client, path):
    h = client.get(path).headers
    csp = h["Content-Security-Policy"]
    assert "unsafe-eval" not in csp and "frame-ancestors 'none'" in csp and "default-src 'self'" in csp
    assert "script-src 'self' 'sha256-" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert h["X-Content-Type-Options"] == "nosniff" and h["X-Frame-Options"] == "DENY"
    assert h["Referrer-Policy"] == "no-referrer"


def test_fingerprinted_assets_are_cached_for_a_year(client):
    page = client.get("/").data.decode()
    assets = [part.split('"')[0] for part in page.split('="')[1:] if part.startswith("/assets/")]
    assert any("plotly-custom.min.js" in a for a in assets) and all("?m=" in a for a in assets)
    for asset in assets:
        assert "immutable" in client.get(asset).headers["Cache-Control"]
    assert "no-store" not in client.get("/").headers.get("Cache-Control", "")  # no password: caching is fine


@pytest.fixture
def class_store(tmp_path, monkeypatch):
    """Class mode's store in a fresh folder for this test."""
    from dashboard.classmode import ids

    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    ids.store.cache_clear()
    yield
    ids.store.cache_clear()


def test_health_endpoint(client, class_store):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.get_json() == {"status": "ok", "store": "ok", "trainer": "ok"}


def test_health_is_a_503_naming_the_part_that_is_down(client, class_store, monkeypatch, tmp_path):
    from dashboard import trainer
    from dashboard.classmode import ids

    monkeypatch.setattr(trainer, "ready", lambda: False)
    r = client.get("/healthz")
    assert r.status_code == 503 and r.get_json() == {"status": "down", "store": "ok", "trainer": "down"}
    monkeypatch.undo()
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "file" / "data"))  # a data folder that cannot be made
    ids.store.cache_clear()
    r = client.get("/healthz")
    assert r.status_code == 503 and r.get_json() == {"status": "down", "store": "down", "trainer": "ok"}


def test_a_dead_trainer_is_replaced_so_health_does_not_depend_on_the_worker(client, class_store):
    from dashboard import trainer

    trainer.training_runs(0)  # this process's trainer has started (or trained 0 at start-up)
    trainer.trainer()
    first = trainer._trainer[2].result(30)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while trainer.health() != "down":  # as another worker, whose trainer is alive or not started, would not say
        assert time.monotonic() < deadline
        time.sleep(0.05)
    r = client.get("/healthz")
    assert r.status_code == 200 and r.get_json()["trainer"] == "ok" and trainer.health() == "ok"
    assert trainer._trainer[2].result(1) != first


def auth(password: str, scheme: str = "Basic") -> dict:
    return {"Authorization": f"{scheme} " + base64.b64encode(f"student:{password}".encode()).decode()}


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def password_client(monkeypatch, clock):
    """A client of an app with a class password, whose limit on wrong guesses runs on `clock`."""
    monkeypatch.setenv("CLASS_PASSWORD", "s3cret")
    monkeypatch.setattr(server, "RateLimiter", functools.partial(RateLimiter, clock=clock))
    return create_app().server.test_client()


def test_class_password_is_enforced_when_set(password_client):
    fresh = password_client.application.test_client  # a browser with no cookie yet
    c = fresh()
    assert c.get("/").status_code == 401 and "Basic" in c.get("/").headers["WWW-Authenticate"]
    assert c.get("/healthz").status_code == 200
    assert c.get("/", headers=auth("wrong")).status_code == 401
    assert c.get("/", headers={"Authorization": "Basic %%%"}).status_code == 401
    assert c.get("/", headers=auth("s3cret", "Bearer")).status_code == 401
    assert post(c, heatmaps_body()).status_code == 401
    for scheme in ["Basic", "basic", "BASIC"]:  # RFC 7617: the scheme name is case-insensitive
        assert fresh().get("/", headers=auth("s3cret", scheme)).status_code == 200
    assert post(fresh(), heatmaps_body(), headers=auth("s3cret")).status_code == 200


def test_no_password_when_unset(monkeypatch):
    monkeypatch.delenv("CLASS_PASSWORD", raising=False)
    assert create_app().server.test_client().get("/").status_code == 200


@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_class_password_refuses_to_start(monkeypatch, empty):
    monkeypatch.setenv("CLASS_PASSWORD", empty)
    with pytest.raises(ValueError, match="CLASS_PASSWORD is set but empty"):
        create_app()


def test_password_pages_and_json_are_not_stored(password_client):
    c, ok = password_client, auth("s3cret")
    assert c.get("/", headers=ok).headers["Cache-Control"] == "no-store"
    assert c.get("/_dash-layout", headers=ok).headers["Cache-Control"] == "no-store"
    assert post(c, heatmaps_body(), headers=ok).headers["Cache-Control"] == "no-store"
    assert c.get("/", headers=auth("wrong")).headers.get("Cache-Control") in (None, "no-store")
    page = c.get("/", headers=ok).data.decode()
    assets = [p.split('"')[0] for p in page.split('="')[1:] if p.startswith(("/assets/", "/_dash-component-suites/"))]
    assert len(assets) > 5
    for asset in assets:  # the browser may keep them; a shared cache, which would skip the password, may not
        cache = c.get(asset, headers=ok).headers["Cache-Control"]
        assert "private" in cache and "public" not in cache and "max-age=31536000" in cache


GUESSER = {"REMOTE_ADDR": "10.0.0.5"}


def tries_until_429(c, password="guess", environ=GUESSER, headers=None) -> list[int]:
    codes = []
    while not codes or codes[-1] != 429:
        codes.append(c.get("/", headers={**auth(password), **(headers or {})}, environ_base=environ).status_code)
        assert len(codes) < 1000
    return codes


def test_password_tries_from_an_address_slow_to_one_a_second_and_a_429_says_nothing(password_client, clock, caplog):
    """Issue 39 item 5: a 429 only ever meant "wrong", so a guesser tried 216 a second. Now every try counts."""
    caplog.set_level(logging.INFO)
    c, burst = password_client, server.PASSWORD_BURST
    assert (server.PASSWORD_TRIES_PER_SECOND, burst) == (1.0, 60)
    assert tries_until_429(c) == [401] * burst + [429]
    refused = c.get("/", headers=auth("s3cret"), environ_base=GUESSER)  # the right one too: no oracle
    assert refused.status_code == 429 and "class_pass" not in str(refused.headers.getlist("Set-Cookie"))
    assert 0 < int(refused.headers["Retry-After"]) <= 1
    clock.t += 0.99  # just inside a second: still none
    assert c.get("/", headers=auth("guess"), environ_base=GUESSER).status_code == 429
    clock.t += 0.02  # just past: one
    assert [c.get("/", headers=auth("guess"), environ_base=GUESSER).status_code for _ in range(2)] == [401, 429]
    checked = 0
    for _ in range(600):  # a minute at ten tries a second: about sixty are checked
        clock.t += 0.1
        checked += c.get("/", headers=auth("guess"), environ_base=GUESSER).status_code == 401
    assert 59 <= checked <= 61
    # another address has a bucket of its own; a forwarded address counts only from a trusted proxy
    assert c.get("/", headers=auth("typo"), environ_base={"REMOTE_ADDR": "10.0.0.6"}).status_code == 401
    assert c.get("/", headers={**auth("guess"), "X-Real-IP": "10.9.9.9"}, environ_base=GUESSER).status_code == 429
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert set(logged) == {"wrong class password from 10.0.0.5", "wrong class password from 10.0.0.6"}


def test_the_right_password_gets_in_within_10_s_of_a_burst_of_typos(password_client, clock):
    c = password_client
    assert tries_until_429(c)[-1] == 429
    clock.t += 1.0 / server.PASSWORD_TRIES_PER_SECOND
    r = c.get("/", headers=auth("s3cret"), environ_base=GUESSER)
    assert r.status_code == 200 and any(c.startswith("class_pass=") for c in r.headers.getlist("Set-Cookie"))


@pytest.mark.slow  # a second or more on a 2-core machine: make test runs it
def test_a_right_password_sets_a_signed_cookie_and_requests_with_it_are_never_throttled(password_client, clock):
    student, guesser = password_client, password_client.application.test_client()  # two browsers, one address
    r = student.get("/", headers=auth("s3cret"), environ_base=GUESSER)
    cookie = next(c for c in r.headers.getlist("Set-Cookie") if c.startswith("class_pass="))
    assert r.status_code == 200 and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert f"Max-Age={server.PASS_HOURS * 3600}" in cookie
    assert tries_until_429(guesser)[-1] == 429
    for _ in range(200):  # the class's browsers, behind the guesser's address, no password sent again
        assert student.get("/_dash-layout", environ_base=GUESSER).status_code == 200
        assert post(student, heatmaps_body(), environ_base=GUESSER).status_code == 200
    value = student.get_cookie("class_pass").value
    expires = int(value.split(".")[0])
    assert server.has_pass("s3cret", value) and expires - time.time() <= server.PASS_HOURS * 3600
    stranger = password_client.application.test_client()
    for forged in [value[:-1] + ("0" if value[-1] != "0" else "1"), f"{expires + 1}." + value.split(".")[1],
                   server.pass_cookie("another", expires), server.pass_cookie("s3cret", int(time.time()) - 1),
                   "x" * 5000, "", "1.2.3"]:
        stranger.set_cookie("class_pass", forged)
        assert stranger.get("/", environ_base={"REMOTE_ADDR": "10.0.0.8"}).status_code == 401, forged[:40]
    stranger.set_cookie("class_pass", server.pass_cookie("s3cret", int(time.time()) + 60))
    assert stranger.get("/", environ_base={"REMOTE_ADDR": "10.0.0.8"}).status_code == 200


def test_workers_share_the_rate_through_WEB_CONCURRENCY(monkeypatch, clock):
    monkeypatch.setenv("CLASS_PASSWORD", "s3cret")
    monkeypatch.setenv("WEB_CONCURRENCY", "2")
    monkeypatch.setattr(server, "RateLimiter", functools.partial(RateLimiter, clock=clock))
    c = create_app().server.test_client()
    assert tries_until_429(c) == [401] * (server.PASSWORD_BURST // 2) + [429]
    clock.t += 1.0
    assert c.get("/", headers=auth("guess"), environ_base=GUESSER).status_code == 429  # half a try a second
    clock.t += 1.0
    assert c.get("/", headers=auth("guess"), environ_base=GUESSER).status_code == 401


def test_x_real_ip_counts_only_from_a_trusted_proxy(password_client, monkeypatch):
    c, local = password_client, {"REMOTE_ADDR": "127.0.0.1"}
    monkeypatch.delenv(server.PROXIES_ENV, raising=False)
    assert tries_until_429(c, environ=local, headers={"X-Real-IP": "10.1.1.1"})[-1] == 429
    assert c.get("/", headers={**auth("x"), "X-Real-IP": "10.1.1.2"}, environ_base=local).status_code == 429
    monkeypatch.setenv(server.PROXIES_ENV, "10.7.7.7, 127.0.0.1")  # the proxy sets it: each client its own bucket
    assert c.get("/", headers={**auth("x"), "X-Real-IP": "10.1.1.3"}, environ_base=local).status_code == 401
    with c.application.test_request_context("/", headers={"X-Real-IP": "10.1.1.4"}, environ_base=local):
        assert server.client_address() == "10.1.1.4"
    monkeypatch.setenv(server.PROXIES_ENV, "10.7.7.7")
    with c.application.test_request_context("/", headers={"X-Real-IP": "10.1.1.4"}, environ_base=local):
        assert server.client_address() == "127.0.0.1"


def test_debug_is_off_unless_asked(monkeypatch):
    calls = []
    monkeypatch.setattr(app_module.app, "run", lambda **kw: calls.append(kw))
    monkeypatch.delenv("PORT", raising=False)
    app_module.main([])
    app_module.main(["--debug", "--host", "0.0.0.0", "--port", "9001"])
    assert calls == [{"host": "127.0.0.1", "port": 8050, "debug": False},
                     {"host": "0.0.0.0", "port": 9001, "debug": True}]
    monkeypatch.setenv("PORT", "7000")
    app_module.main([])
    assert calls[-1]["port"] == 7000


def test_every_request_the_page_sends_is_accepted():
    """A change of h on each tab, a change of the model, a click: each request the page sends gets its update."""
    from dashboard import limits, trainer
    from tests.dash_requests import change_of_heads, change_of_model, click_on_cell

    trainer.training_runs(0)  # the learning tab shows a trained seed
    client = create_app().server.test_client()
    bodies = [b for tab in limits.TABS for b in change_of_heads(8, 3, tab)] + change_of_model() + \
        click_on_cell(8, 3, 4, 5, 6) + click_on_cell(8, 3, 4, 5, 6, "mixing")
    for body in bodies:
        assert post(client, body).status_code == 200, body["output"][:80]


def test_both_apps_are_set_up_before_the_first_client():
    """Without it, a fresh gunicorn worker's threads race through Dash's first-request set-up, and a page's
    first load can get a 404 on React."""
    from dashboard import create_apps

    for app in create_apps():
        assert "deps/react@18.3.1.min.js" in app.registered_paths["dash"]


def test_the_guards_are_flask_hooks_and_no_view_function_is_replaced():
    """Issue 34: no wrapped Flask view_functions. Dash's own views stay in place; before_request and an error
    handler do the checks (test_forged_requests_... and test_unknown_component_suites_... hold what they do)."""
    apps = create_apps()
    views = apps[0].server.view_functions
    dispatch = [views[server.endpoint(app, server.DISPATCH_ROUTE)] for app in apps]
    suites = [views[server.endpoint(app, server.SUITES_ROUTE)] for app in apps]
    assert all(getattr(f, "__module__", "").split(".")[0] == "dash" for f in dispatch + suites), dispatch + suites
    assert not [f for f in views.values() if f.__module__ == server.__name__ and "guard" in f.__qualname__]


@pytest.mark.parametrize("front", [
    {"Host": "127.0.0.1:8050"},  # nginx on a port of its own, passing the Host the browser sent
    {"Host": "class.example.org", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "class.example.org",
     "X-Forwarded-Port": "443"},  # a TLS front
    {"Host": "127.0.0.1"},  # a proxy that drops the port (nginx's $host): the browser's own address still holds
])
def test_every_redirect_keeps_the_scheme_host_and_port_the_browser_used(front):
    """Issue 35 item 2: a redirect's Location is a path, so the browser resolves it against the address it used."""
    client = create_apps()[0].server.test_client()
    for path, target in [("/class", "/class/"), ("/class?lang=de", "/class/?lang=de")]:
        r = client.get(path, headers=front)
        assert r.status_code in (301, 302, 307, 308) and r.headers["Location"] == target, (path, r.headers)
    with client.application.test_request_context("/", headers=front):  # another host's address stays whole
        assert server.relative_location("https://elsewhere.example/x") == "https://elsewhere.example/x"


def test_class_mode_assets_get_the_year_long_cache_like_the_explorers():
    """Issue 39 item 7: /class/assets/ were no-cache while /assets/ got the year-long cache."""
    c = create_apps()[0].server.test_client()
    page = c.get("/class/").data.decode()
    assets = [p.split('"')[0] for p in page.split('="')[1:] if p.startswith("/class/assets/")]
    assert any(a.endswith(".js") or ".js?" in a for a in assets), assets
    for asset in assets:
        assert "?m=" in asset
        assert c.get(asset).headers["Cache-Control"] == f"public, max-age={server.ONE_YEAR}, immutable", asset
    unfingerprinted = assets[0].split("?")[0]
    assert "max-age" not in c.get(unfingerprinted).headers.get("Cache-Control", "")


def test_one_size_limit_for_lecture_files_in_the_page_the_app_and_nginx():
    """Issue 39 item 7: a lecture file of 47-48 KiB passed the page's check and got nginx's 413."""
    import base64
    import json

    from dashboard.classmode import form, plan
    from deploy.serve import real_ip
    from tests.class_requests import DISPATCH, Bodies
    from tests.conftest import ROOT

    app = create_apps()
    c, bodies = app[0].server.test_client(), Bodies(app[1])
    largest = b"{" + b" " * (form.MAX_PLAN_BYTES - 2) + b"}"  # the page's dcc.Upload takes max_size bytes
    body = json.dumps(bodies.load_plan("data:application/json;base64," + base64.b64encode(largest).decode()))
    assert server.MAX_BODY - form.PLAN_OVERHEAD <= len(body) < server.MAX_BODY  # just under the body limit
    r = c.post(DISPATCH, data=body, content_type="application/json")
    assert r.status_code == 200 and plan.BAD_PLAN.split(":")[0][:20] in r.get_data(as_text=True)  # read, refused
    assert form.MAX_PLAN_BYTES == (server.MAX_BODY - 2048) * 3 // 4 == 47_616
    conf = (ROOT / "deploy/nginx.conf").read_text() % {"run": "/r", "host": "h", "port": 1, "app_port": 2,
                                                       "max_body": server.MAX_BODY - 1, "real_ip": real_ip("")}
    assert f"client_max_body_size {server.MAX_BODY - 1};" in conf  # nginx: a 413 past exactly the app's limit
    assert "set_real_ip_from" not in conf
