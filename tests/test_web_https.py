"""The referee's PIN and session never cross the air in clear (issue 42): Flask's test client
speaking plain http and https to the dashboard as the production setup builds it."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from table.live import LiveTable
from testkit.web import ScriptedReferee
from web import create_app, wsgi
from web.pin import hash_pin

PIN = "2468"
PIN_HASH = hash_pin(PIN)
HTTP = "http://table.local:8000"
HTTPS = "https://table.local:8443"
MAKE_CERT = Path(__file__).resolve().parent.parent / "systemd" / "make-cert.sh"
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None,
                                   reason="openssl not installed (apt-get install openssl)")


def clock():
    return 5000.0


@pytest.fixture
def table():
    return LiveTable(ScriptedReferee(), clock=clock)


def make_app(table, **config):
    return create_app(table, pin_hash=PIN_HASH, secret_key="test-secret-key",
                      config={"RIICHI_REFEREE_HTTPS": True, "RIICHI_HTTPS_PORT": 8443,
                              **config})


@pytest.fixture
def app(table):
    return make_app(table)


def csrf(page: str) -> str:
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def https_login(client):
    page = client.get("/referee/login", base_url=HTTPS).get_data(as_text=True)
    return client.post("/referee/login", base_url=HTTPS,
                       data={"pin": PIN, "csrf_token": csrf(page)})


def notes(table):
    return [e for e in table.events() if e.get("type") == "referee"]


def test_the_login_page_over_http_sends_the_phone_to_https(app):
    r = app.test_client().get("/referee/login?next=1", base_url=HTTP)
    assert r.status_code == 307
    assert r.headers["Location"] == "https://table.local:8443/referee/login?next=1"
    assert "Set-Cookie" not in r.headers
    # an odd path goes along encoded, not as a broken header (or a 500)
    r = app.test_client().get("/referee/a%0d%0aX:1", base_url=HTTP)
    assert (r.status_code, r.headers["Location"]) \
        == (307, "https://table.local:8443/referee/a%0D%0AX:1")


def test_a_pin_posted_over_http_is_refused_and_makes_no_referee(app):
    client = app.test_client()
    page = client.get("/", base_url=HTTP).get_data(as_text=True)
    r = client.post("/referee/login", base_url=HTTP,
                    data={"pin": PIN, "csrf_token": csrf(page)})
    assert r.status_code == 403
    text = r.get_data(as_text=True)
    assert "https://table.local:8443/referee/login" in text and "in clear" in text
    assert "Set-Cookie" not in r.headers
    assert "Referee login" in client.get("/", base_url=HTTP).get_data(as_text=True)
    # not redirected either: a 307/308 would have the browser post the PIN a second time
    assert "Location" not in r.headers


def test_the_login_over_https_works_and_its_cookie_is_secure(app, table):
    client = app.test_client()
    r = https_login(client)
    assert r.status_code == 303
    (cookie,) = [c for c in r.headers.getlist("Set-Cookie") if "riichi_session" in c]
    assert cookie.startswith("__Host-riichi_session=")
    attributes = {a.strip().split("=")[0].lower() for a in cookie.split(";")[1:]}
    assert {"secure", "httponly", "path"} <= attributes and "domain" not in attributes
    assert "SameSite=Strict" in cookie
    page = client.get("/", base_url=HTTPS).get_data(as_text=True)
    assert 'data-referee="1"' in page
    r = client.post("/referee/note", base_url=HTTPS,
                    data={"csrf_token": csrf(page), "text": "Seat 2 asked for a ruling"})
    assert r.status_code == 303
    assert [e["text"] for e in notes(table)] == ["Seat 2 asked for a ruling"]


def test_a_referee_cookie_that_leaks_onto_http_is_worth_nothing_there(app, table):
    referee = app.test_client()
    https_login(referee)
    page = referee.get("/", base_url=HTTPS).get_data(as_text=True)
    cookie = referee.get_cookie("__Host-riichi_session", domain="table.local").value
    # A phone (or an eavesdropper) sending it over plain http gets no referee there ...
    other = app.test_client()
    other.set_cookie("__Host-riichi_session", cookie, domain="table.local")
    seen = other.get("/", base_url=HTTP).get_data(as_text=True)
    assert 'data-referee="1"' not in seen and "Referee login" in seen
    # ... and an action over plain http is refused, never taken
    r = other.post("/referee/note", base_url=HTTP,
                   data={"csrf_token": csrf(page), "text": "forged"})
    assert r.status_code == 403 and "https://table.local:8443/referee/note" in r.get_data(True)
    assert notes(table) == []
    # (the same cookie over https is the referee's: the test above is not vacuous)
    assert 'data-referee="1"' in other.get("/", base_url=HTTPS).get_data(as_text=True)


def test_spectators_watch_over_plain_http_and_get_no_cookie(app):
    client = app.test_client()
    for path in ("/", "/state.json", "/healthz"):
        r = client.get(path, base_url=HTTP)
        assert r.status_code == 200, path
        assert "Set-Cookie" not in r.headers, path


def test_without_https_required_the_demo_logs_in_over_plain_http(table):
    """The demo serves plain http on localhost (not the air): nothing changes there."""
    app = create_app(table, pin_hash=PIN_HASH, secret_key="k")
    client = app.test_client()
    page = client.get("/", base_url="http://127.0.0.1:8000").get_data(as_text=True)
    r = client.post("/referee/login", base_url="http://127.0.0.1:8000",
                    data={"pin": PIN, "csrf_token": csrf(page)})
    assert r.status_code == 303


@needs_openssl
def test_the_hall_ca_is_offered_over_http_with_its_fingerprint(table, tmp_path):
    subprocess.run([str(MAKE_CERT), "ca", str(tmp_path / "ca"), "test hall"], check=True)
    ca = tmp_path / "ca" / "ca.crt"
    app = make_app(table, RIICHI_CA_CERT=str(ca))
    client = app.test_client()
    r = client.get("/ca.crt", base_url=HTTP)
    assert r.status_code == 200 and r.data == ca.read_bytes()
    assert r.mimetype == "application/x-x509-ca-cert"
    expected = subprocess.run(["openssl", "x509", "-in", str(ca), "-noout", "-fingerprint",
                               "-sha256"], capture_output=True, text=True, check=True)
    expected = expected.stdout.strip().split("=", 1)[1]
    page = client.get("/trust", base_url=HTTP).get_data(as_text=True)
    assert expected in page
    assert 'href="https://table.local:8443/referee/login"' in page
    # the spectator page points a new referee's phone at it, before the https login
    assert 'href="/trust"' in client.get("/", base_url=HTTP).get_data(as_text=True)
    # where no CA is set up: a plain 404, not a traceback
    assert make_app(table).test_client().get("/ca.crt", base_url=HTTP).status_code == 404


# -- production settings (web.wsgi) -------------------------------------------------------

def test_production_requires_https_for_the_referee_unless_told_otherwise(tmp_path):
    conf = wsgi.settings({"RIICHI_JOURNAL": "/x.sqlite"})
    assert conf["referee_https"] is True and conf["https_port"] == 8443
    assert conf["ca_cert"] is None
    conf = wsgi.settings({"RIICHI_JOURNAL": "/x.sqlite", "RIICHI_REFEREE_HTTPS": "0",
                          "RIICHI_WEB_HTTPS_PORT": "9443", "RIICHI_WEB_CA_CERT": "/ca.crt"})
    assert (conf["referee_https"], conf["https_port"], conf["ca_cert"]) \
        == (False, 9443, Path("/ca.crt"))
    config = tmp_path / "table.toml"
    config.write_text('[journal]\npath = "j.sqlite"\n[web]\nhttps_port = 443\n'
                      'ca_cert = "tls/hall-ca.crt"\n')
    conf = wsgi.settings({"RIICHI_CONFIG": str(config)})
    assert (conf["https_port"], conf["ca_cert"]) == (443, tmp_path / "tls" / "hall-ca.crt")
    config.write_text("[web]\nreferee_https = 'yes'\n")
    with pytest.raises(wsgi.SetupError, match="referee_https must be true or false"):
        wsgi.settings({"RIICHI_CONFIG": str(config)})
    with pytest.raises(wsgi.SetupError, match="HTTPS port 70000 is not a port"):
        wsgi.settings({"RIICHI_JOURNAL": "/x.sqlite", "RIICHI_WEB_HTTPS_PORT": "70000"})


# -- gunicorn.conf.py: the https server ---------------------------------------------------

def load_gunicorn_conf(monkeypatch, **env):
    import runpy

    for key in ("RIICHI_WEB_BIND", "RIICHI_CONFIG", "RIICHI_WEB_CERTFILE", "RIICHI_WEB_KEYFILE"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return runpy.run_path(str(MAKE_CERT.parent.parent / "web" / "gunicorn.conf.py"))


def test_gunicorn_serves_https_on_its_own_port_with_the_tables_certificate(monkeypatch,
                                                                           tmp_path):
    cert, key = tmp_path / "table.crt", tmp_path / "table.key"
    cert.write_text("x")
    key.write_text("x")
    plain = load_gunicorn_conf(monkeypatch)
    assert plain["bind"] == ["0.0.0.0:8000"] and "certfile" not in plain
    tls = load_gunicorn_conf(monkeypatch, RIICHI_WEB_CERTFILE=str(cert),
                             RIICHI_WEB_KEYFILE=str(key))
    assert tls["bind"] == ["0.0.0.0:8443"]
    assert (tls["certfile"], tls["keyfile"]) == (str(cert), str(key))
    config = tmp_path / "table.toml"
    config.write_text('[web]\nhost = "192.168.4.1"\nport = 8080\nhttps_port = 8444\n')
    tls = load_gunicorn_conf(monkeypatch, RIICHI_CONFIG=str(config),
                             RIICHI_WEB_CERTFILE=str(cert), RIICHI_WEB_KEYFILE=str(key))
    assert tls["bind"] == ["192.168.4.1:8444"]
    with pytest.raises(SystemExit, match="RIICHI_WEB_CERTFILE and RIICHI_WEB_KEYFILE go "
                                         "together"):
        load_gunicorn_conf(monkeypatch, RIICHI_WEB_CERTFILE=str(cert))
    with pytest.raises(SystemExit, match=r"RIICHI_WEB_KEYFILE=/nowhere/table.key cannot be "
                                         r"read \(install.sh writes it\)"):
        load_gunicorn_conf(monkeypatch, RIICHI_WEB_CERTFILE=str(cert),
                           RIICHI_WEB_KEYFILE="/nowhere/table.key")
