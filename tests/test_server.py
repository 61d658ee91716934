"""The server as a forged request or a sysadmin sees it: headers, bad input, password, health."""

import base64
import itertools
import json

import numpy as np
import pytest

import app as app_module
from dashboard import create_app
from dashboard.attention import multi_head_attention, worked_example
from dashboard.views import equivariance as eq
from dashboard.views import example
from tests.dash_requests import eq_body, example_body
from tests.util import decode

FORGED_VALUES = ["8", "", "<script>", 8.0, 2.5, float("1e308"), True, False, 10**400, -(10**30), None, [], [8],
                 {"h": 8}, {"__proto__": 1}, "x" * 100_000]


@pytest.fixture(scope="module")
def client():
    return create_app().server.test_client()


def post(client, payload):
    data = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
    return client.post("/_dash-update-component", data=data, content_type="application/json")


def test_valid_update_gives_the_core_values(client):
    r = post(client, example_body(8, 3))
    assert r.status_code == 200
    heat = r.get_json()["response"][example.HEATMAPS]["figure"]
    A = multi_head_attention(*worked_example(3)[:5], 8).A
    np.testing.assert_allclose([decode(t["z"]) for t in heat["data"]], A, rtol=1e-6)


def forged_requests():
    for field, value in itertools.product(["h", "seed", "tab", "focus", "narrow"], FORGED_VALUES):
        yield example_body(**{field: value})
    for perm, positions, head in [(v, False, 1) for v in FORGED_VALUES] + [("0 1 2", v, v) for v in FORGED_VALUES]:
        yield eq_body(perm, positions=positions, head=head)
    valid = example_body()
    yield {k: v for k, v in valid.items() if k != "inputs"}
    yield {k: v for k, v in valid.items() if k != "output"}
    yield {**valid, "inputs": [{"id": "heads"}]}
    yield {**valid, "inputs": "heads"}
    yield {**valid, "output": "nope.figure"}
    yield {**valid, "outputs": None}
    yield {**valid, "inputs": valid["inputs"][:1]}
    yield {**valid, "state": [{"id": "cube-focus", "property": "value"}]}
    yield {**valid, "changedPropIds": "heads.value"}
    yield [valid]
    yield None
    yield "not json {"
    yield b"\xff\xfe"


def test_forged_requests_never_get_a_server_error(client):
    payloads = list(forged_requests())
    assert len(payloads) >= 50
    for payload in payloads:
        r = post(client, payload)
        assert r.status_code in (200, 204, 400), (r.status_code, str(payload)[:200])
        assert b"Traceback" not in r.data
    test_valid_update_gives_the_core_values(client)


def test_forged_controls_get_no_update_and_bad_orders_a_message(client):
    assert post(client, example_body(h="8")).status_code == 204
    assert post(client, example_body(seed=10**400)).status_code == 204
    r = post(client, eq_body("0 1 1"))
    assert r.status_code == 200
    resp = r.get_json()["response"]
    assert resp[eq.PERM]["invalid"] is True and "needs 12 numbers" in resp[eq.PERM_FEEDBACK]["children"]


@pytest.mark.parametrize("data", ["{", "[]", "null", '{"output": 1}', "x" * 10])
def test_malformed_body_is_a_400(client, data):
    r = post(client, data)
    assert r.status_code == 400 and r.is_json and "error" in r.get_json()


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


def test_health_endpoint(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.get_json() == {"status": "ok"}


def test_class_password_is_off_by_default_and_enforced_when_set(monkeypatch):
    assert create_app().server.test_client().get("/").status_code == 200
    monkeypatch.setenv("CLASS_PASSWORD", "s3cret")
    c = create_app().server.test_client()
    assert c.get("/").status_code == 401 and "Basic" in c.get("/").headers["WWW-Authenticate"]
    assert c.get("/healthz").status_code == 200
    auth = lambda pw: {"Authorization": "Basic " + base64.b64encode(f"student:{pw}".encode()).decode()}  # noqa: E731
    assert c.get("/", headers=auth("wrong")).status_code == 401
    assert c.get("/", headers={"Authorization": "Basic %%%"}).status_code == 401
    assert c.get("/", headers=auth("s3cret")).status_code == 200
    assert post(c, example_body()).status_code == 401


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
