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
from tests.dash_requests import WORKED, WORKED_CELL, cube_body, eq_body, heatmaps_body, press_train_body
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
        yield {**heatmaps_body(), "inputs": [{**heatmaps_body()["inputs"][0], "value": data}, heatmaps_body()["inputs"][1]]}
    for perm, positions, head in [(v, False, 1) for v in FORGED_VALUES] + [("0 1 2", v, v) for v in FORGED_VALUES]:
        yield eq_body(perm, positions=positions, head=head)
    for seed in FORGED_VALUES + [10, -1, 10**6]:
        yield press_train_body(seed)
    yield {**heatmaps_body(), "changedPropIds": []}
    yield {**heatmaps_body(), "changedPropIds": [f"{WORKED.id}.data", f"{WORKED_CELL.id}.data"]}


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
    yield {**valid, "outputs": valid["outputs"][:1]}
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
    c = password_client
    assert c.get("/").status_code == 401 and "Basic" in c.get("/").headers["WWW-Authenticate"]
    assert c.get("/healthz").status_code == 200
    assert c.get("/", headers=auth("wrong")).status_code == 401
    assert c.get("/", headers={"Authorization": "Basic %%%"}).status_code == 401
    for scheme in ["Basic", "basic", "BASIC"]:  # RFC 7617: the scheme name is case-insensitive
        assert c.get("/", headers=auth("s3cret", scheme)).status_code == 200
    assert c.get("/", headers=auth("s3cret", "Bearer")).status_code == 401
    assert post(c, heatmaps_body()).status_code == 401
    assert post(c, heatmaps_body(), headers=auth("s3cret")).status_code == 200


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


def test_wrong_passwords_past_the_limit_get_a_429_and_the_right_one_is_still_served(password_client, clock, caplog):
    caplog.set_level(logging.INFO)
    c, limit = password_client, server.WRONG_PASSWORDS_PER_MINUTE
    guesses = [c.get("/", headers=auth(f"guess{k}"), environ_base=GUESSER) for k in range(limit + 5)]
    assert [r.status_code for r in guesses] == [401] * limit + [429] * 5
    assert 0 < int(guesses[-1].headers["Retry-After"]) <= 60 / limit
    assert c.get("/", headers=auth("s3cret"), environ_base=GUESSER).status_code == 200  # a class behind the address
    # a forwarded address counts only from a proxy on this machine, so the guesser cannot dodge the limit
    assert c.get("/", headers={**auth("guess"), "X-Real-IP": "10.9.9.9"}, environ_base=GUESSER).status_code == 429
    # another client, directly or through the local nginx, has a bucket of its own
    assert c.get("/", headers=auth("typo"), environ_base={"REMOTE_ADDR": "10.0.0.6"}).status_code == 401
    assert c.get("/", headers={**auth("typo"), "X-Real-IP": "10.0.0.7"}).status_code == 401
    clock.t += 60 / limit  # the bucket gives the guesser one more try
    assert [c.get("/", headers=auth("guess"), environ_base=GUESSER).status_code for _ in range(2)] == [401, 429]
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert logged == [f"wrong class password from {a}" for a in ["10.0.0.5"] * limit + ["10.0.0.6", "10.0.0.7",
                                                                                          "10.0.0.5"]]


def test_a_student_with_the_password_is_served_while_another_at_the_address_guesses(password_client):
    c, ok = password_client, auth("s3cret")
    assert c.get("/", headers=ok, environ_base=GUESSER).status_code == 200
    guesses = []
    for k in range(2 * server.WRONG_PASSWORDS_PER_MINUTE):
        guesses.append(c.get("/", headers=auth(f"guess{k}"), environ_base=GUESSER).status_code)
        assert post(c, heatmaps_body(), headers=ok, environ_base=GUESSER).status_code == 200
    assert guesses[-1] == 429 and c.get("/_dash-layout", headers=ok, environ_base=GUESSER).status_code == 200


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
