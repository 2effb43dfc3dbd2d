"""The head referee's PIN never crosses the air in clear either (issue 42): the hall's page
over plain http and https (Flask's test client), as ``riichi-referee hall`` builds it from a
hall.toml with a certificate from the hall's CA, and the plain-http server beside it, which
only sends phones to https and offers the CA."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from app import cli
from app.commands.hall import build_plain_http, web_config
from hall.board import Board
from hall.config import load_hall_config
from table.config import ConfigError
from test_hall_board import send, state
from web.hall import create_hall_app
from web.pin import hash_pin

PIN = "8642"
HTTP = "http://hall.local:8080"
HTTPS = "https://hall.local:8443"
MAKE_CERT = Path(__file__).resolve().parent.parent / "systemd" / "make-cert.sh"

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None,
                                reason="openssl not installed (apt-get install openssl)")


@pytest.fixture(scope="module")
def hall_toml(tmp_path_factory):
    """hall.toml as install-hall.sh writes it: the hall's CA, the page's certificate from it."""
    d = tmp_path_factory.mktemp("hall")
    subprocess.run([str(MAKE_CERT), "ca", str(d / "ca"), "test hall"], check=True)
    subprocess.run([str(MAKE_CERT), "server", str(d / "tls"), str(d / "ca"), "hall",
                    "hall.local", "127.0.0.1"], check=True)
    # the chain, the page's certificate then the CA's, as install-hall.sh writes it
    (d / "hall-tls").mkdir()
    (d / "hall-tls" / "hall.crt").write_bytes((d / "tls" / "hall.crt").read_bytes()
                                              + (d / "ca" / "ca.crt").read_bytes())
    (d / "pw").write_text("secret\n")
    (d / "hall.toml").write_text(
        '[hall]\nname = "h"\ntitle = "Test Hall"\n'
        '[broker]\npassword_file = "pw"\ntls_ca = "ca/ca.crt"\n'
        '[web]\nport = 8080\nhttps_port = 8443\ncertfile = "hall-tls/hall.crt"\n'
        'keyfile = "tls/hall.key"\nca_cert = "ca/ca.crt"\n')
    return d / "hall.toml"


@pytest.fixture
def app(hall_toml):
    settings = load_hall_config(hall_toml)
    board = Board("h", "Test Hall")
    send(board, "t1", "online", {"online": True})
    send(board, "t1", "state", state())
    return create_hall_app(board, pin_hash=hash_pin(PIN), secret_key="k",
                           config=web_config(settings))


def csrf(page: str) -> str:
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def test_the_hall_toml_of_the_install_asks_for_https_and_the_broker_over_tls(hall_toml):
    s = load_hall_config(hall_toml)
    assert s.https and (s.web_port, s.https_port) == (8080, 8443)
    assert (s.broker.tls_ca, s.broker.port) == (hall_toml.parent / "ca/ca.crt", 8883)
    config = web_config(s)
    assert config["RIICHI_REFEREE_HTTPS"] and config["RIICHI_HTTPS_PORT"] == 8443
    assert config["RIICHI_CA_CERT"] == str(hall_toml.parent / "ca/ca.crt")


def test_over_http_every_page_of_the_hall_is_sent_to_https_and_a_pin_refused(app):
    client = app.test_client()
    for path in ("/login", "/", "/hall/tiles.json", "/hall/stream", "/t/t1/", "/t/t1/state.json",
                 "/healthz"):
        r = client.get(path, base_url=HTTP)
        assert r.status_code == 307, path
        assert r.headers["Location"] == f"{HTTPS}{path}"
        assert "Set-Cookie" not in r.headers, path
    # The PIN posted in clear is refused (a redirect would come after it crossed the air).
    r = client.post("/login", base_url=HTTP, data={"pin": PIN, "csrf_token": "x"})
    assert r.status_code == 403 and "in clear" in r.get_data(as_text=True)
    assert "Set-Cookie" not in r.headers
    assert client.post("/hall/seen/t1", base_url=HTTP).status_code == 403
    # ... but the hall's CA is there for a phone that does not trust it yet.
    r = client.get("/ca.crt", base_url=HTTP)
    assert r.status_code == 200 and r.data.startswith(b"-----BEGIN CERTIFICATE-----")
    page = client.get("/trust", base_url=HTTP).get_data(as_text=True)
    assert f'href="{HTTPS}/login"' in page and "Back to the hall" in page
    assert re.search(r"([0-9A-F]{2}:){31}[0-9A-F]{2}", page)


def test_over_https_the_head_referee_logs_in_with_a_secure_cookie(app):
    client = app.test_client()
    page = client.get("/login", base_url=HTTPS).get_data(as_text=True)
    r = client.post("/login", base_url=HTTPS, data={"pin": PIN, "csrf_token": csrf(page)})
    assert r.status_code == 303
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("__Host-riichi_session=")
    assert all(flag in cookie for flag in ("Secure", "HttpOnly", "SameSite=Strict", "Path=/"))
    tiles = client.get("/hall/tiles.json", base_url=HTTPS).get_json()
    assert [t["table"] for t in tiles["tiles"]] == ["t1"]
    assert client.get("/t/t1/", base_url=HTTPS).status_code == 200
    # The same cookie sent in clear makes nobody the head referee there.
    r = client.get("/hall/tiles.json", base_url=HTTP)
    assert r.status_code == 307 and b"t1" not in r.data


def test_the_plain_http_server_sends_phones_to_https_and_touches_no_broker(hall_toml):
    settings = load_hall_config(hall_toml)
    app = build_plain_http(settings)
    client = app.test_client()
    r = client.get("/", base_url=HTTP)
    assert (r.status_code, r.headers["Location"]) == (307, f"{HTTPS}/")
    r = client.get("/t/t7/?x=1", base_url=HTTP)
    assert (r.status_code, r.headers["Location"]) == (307, f"{HTTPS}/t/t7/?x=1")
    assert client.get("/ca.crt", base_url=HTTP).data == (hall_toml.parent / "ca/ca.crt").read_bytes()
    assert "riichi_hall_subscriber" not in app.extensions


def test_certificate_settings_are_checked_in_one_line(hall_toml, tmp_path, capsys):
    text = hall_toml.read_text().replace('keyfile = "tls/hall.key"\n', "")
    (tmp_path / "one.toml").write_text(text.replace('"pw"', f'"{hall_toml.parent / "pw"}"')
                                       .replace('"ca/', f'"{hall_toml.parent}/ca/')
                                       .replace('"tls/', f'"{hall_toml.parent}/tls/')
                                       .replace('"hall-tls/', f'"{hall_toml.parent}/hall-tls/'))
    with pytest.raises(ConfigError, match=r"\[web\] certfile and keyfile go together"):
        load_hall_config(tmp_path / "one.toml")
    plain = "\n".join(l for l in (tmp_path / "one.toml").read_text().splitlines()
                      if not l.startswith(("certfile", "keyfile")))
    (tmp_path / "plain.toml").write_text(plain + "\n")
    assert cli.main(["hall", "--config", str(tmp_path / "plain.toml"), "--plain-http"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no [web] certfile and keyfile" in err[0]

