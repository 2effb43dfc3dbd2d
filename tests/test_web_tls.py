"""The production dashboard as the two units run it: gunicorn over https for the referee and
gunicorn over plain http for spectators, with a throwaway hall CA and table certificate made
by systemd/make-cert.sh; then a referee's Chromium that trusts that CA logs in."""
from __future__ import annotations

import base64
import hashlib
import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from table.journal import Journal
from testkit import gunicorn
from testkit.browser import free_ports
from web.pin import hash_pin, write_pin_hash

ROOT = Path(__file__).resolve().parent.parent
MAKE_CERT = ROOT / "systemd" / "make-cert.sh"
PIN = "7531"

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None,
                                reason="openssl not installed (apt-get install openssl)")


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    """A hall CA and this table's certificate (for 127.0.0.1 and localhost), as the
    install scripts make them; the chain file is the table's then the CA's."""
    d = tmp_path_factory.mktemp("tls")
    subprocess.run([str(MAKE_CERT), "ca", str(d / "ca"), "test hall"], check=True)
    subprocess.run([str(MAKE_CERT), "table", str(d / "made"), str(d / "ca"), "table",
                    "127.0.0.1", "localhost"], check=True)
    chain = d / "table.crt"
    chain.write_bytes((d / "made" / "table.crt").read_bytes() + (d / "ca" / "ca.crt").read_bytes())
    return {"ca": d / "ca" / "ca.crt", "cert": chain, "key": d / "made" / "table.key"}


@pytest.fixture
def dashboards(tmp_path, hall):
    """(http port, https port) of the two gunicorns over one journal."""
    journal = Journal(tmp_path / "journal.sqlite")
    journal.close()
    pin_file = tmp_path / "pin.hash"
    write_pin_hash(pin_file, hash_pin(PIN))
    http_port, https_port = free_ports(2)
    base = {k: v for k, v in os.environ.items() if not k.startswith("RIICHI_")}
    base.update(RIICHI_JOURNAL=str(tmp_path / "journal.sqlite"),
                RIICHI_PIN_HASH_FILE=str(pin_file), RIICHI_WEB_CA_CERT=str(hall["ca"]),
                RIICHI_WEB_HTTPS_PORT=str(https_port),
                PYTHONPATH=str(ROOT) + os.pathsep + base.get("PYTHONPATH", ""))
    https_env = {**base, "RIICHI_WEB_BIND": f"127.0.0.1:{https_port}",
                 "RIICHI_WEB_CERTFILE": str(hall["cert"]), "RIICHI_WEB_KEYFILE": str(hall["key"]),
                 "RIICHI_SECRET_KEY_FILE": str(tmp_path / "secret")}
    http_env = {**base, "RIICHI_WEB_BIND": f"127.0.0.1:{http_port}"}
    servers = [gunicorn.start(tmp_path, https_env, name="https"),
               gunicorn.start(tmp_path, http_env, name="http")]
    try:
        for port, (proc, log) in zip((https_port, http_port), servers):
            gunicorn.wait_for_port(port, proc, log)
        yield http_port, https_port
    finally:
        logs = gunicorn.stop_all(servers)
    for text in logs:
        assert "Traceback" not in text, text


def test_ports_asked_for_together_are_all_different():
    """The two dashboards of one test were once told the same port: plain http went to the
    https one, and the test failed on a connection reset."""
    assert len(set(free_ports(200))) == 200


def _request(conn, method, path, body=None, cookie=None):
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
    if cookie:
        headers["Cookie"] = cookie
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    return response, response.read().decode()


def test_gunicorn_serves_the_login_over_https_only(dashboards, hall):
    http_port, https_port = dashboards
    trusted = ssl.create_default_context(cafile=str(hall["ca"]))

    # Plain http: the login page sends the phone to https; a posted PIN is refused.
    plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
    r, _ = _request(plain, "GET", "/referee/login")
    assert r.status == 307
    assert r.getheader("Location") == f"https://127.0.0.1:{https_port}/referee/login"
    r, page = _request(plain, "POST", "/referee/login", f"pin={PIN}&csrf_token=x")
    assert r.status == 403 and "in clear" in page and r.getheader("Set-Cookie") is None
    r, page = _request(plain, "GET", "/ca.crt")
    assert r.status == 200 and page.encode() == hall["ca"].read_bytes()

    # A phone that does not trust the hall's CA gets no page from the https server ...
    with pytest.raises(ssl.SSLCertVerificationError):
        bare = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=10,
                                           context=ssl.create_default_context())
        _request(bare, "GET", "/referee/login")
    # ... and nothing is served on it in clear.
    try:
        clear = http.client.HTTPConnection("127.0.0.1", https_port, timeout=10)
        r, _ = _request(clear, "GET", "/referee/login")
        assert r.status != 200
    except (http.client.HTTPException, OSError):
        pass

    # A phone that trusts it logs in; the session cookie is Secure.
    conn = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=10, context=trusted)
    r, page = _request(conn, "GET", "/referee/login")
    assert r.status == 200 and 'name="pin"' in page
    cookie = r.getheader("Set-Cookie")
    assert cookie.startswith("__Host-riichi_session=") and "Secure" in cookie
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r, _ = _request(conn, "POST", "/referee/login", f"pin={PIN}&csrf_token={token}",
                    cookie=cookie.split(";")[0])
    assert r.status == 303
    session = r.getheader("Set-Cookie")
    assert "Secure" in session and "HttpOnly" in session
    r, page = _request(conn, "GET", "/", cookie=session.split(";")[0])
    assert r.status == 200 and 'data-referee="1"' in page


def _spki_sha256(cert: Path) -> str:
    """base64 SHA-256 of the certificate's public key, as Chromium's SPKI list takes it."""
    pub = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-pubkey"],
                         capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=pub,
                         capture_output=True, check=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


@pytest.mark.browser
def test_a_referee_phone_that_trusts_the_hall_logs_in_over_https(dashboards, hall, playwright):
    """Chromium trusting the hall's CA (its key pinned with --ignore-certificate-errors-
    spki-list: Debian's Chromium has no NSS tools to add a CA): from the spectators' http
    page, the login link leads to https, and the PIN is posted there."""
    from conftest import CHROMIUM, CHROMIUM_ARGS

    http_port, https_port = dashboards
    # launched from the session's Playwright: a second sync_playwright() in a process whose
    # browser tests started one fails ("Sync API inside the asyncio loop")
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
        *CHROMIUM_ARGS, f"--ignore-certificate-errors-spki-list={_spki_sha256(hall['ca'])}"])
    try:
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        page.goto(f"http://127.0.0.1:{http_port}/")
        page.click("text=Referee login")
        page.wait_for_url(f"https://127.0.0.1:{https_port}/referee/login")
        page.fill("#pin", PIN)
        page.click("button[type=submit]")
        page.wait_for_selector(".referee-badge", timeout=10_000)
        assert page.url == f"https://127.0.0.1:{https_port}/"
        page.wait_for_selector("#live:not(.off)", timeout=10_000)  # its stream, over TLS
        (cookie,) = [c for c in page.context.cookies() if "riichi_session" in c["name"]]
        assert cookie["name"] == "__Host-riichi_session" and cookie["secure"]
    finally:
        browser.close()


def test_a_phone_that_leaves_an_https_stream_frees_it(dashboards, hall):
    """A live stream over TLS, then the phone goes: the server notices within seconds and
    says nothing alarming about it (the stream's check for a gone phone must not trip over
    the TLS socket; the fixture fails on a traceback in the log)."""
    http_port, https_port = dashboards
    trusted = ssl.create_default_context(cafile=str(hall["ca"]))
    raw = socket.create_connection(("127.0.0.1", https_port), timeout=10)
    phone = trusted.wrap_socket(raw, server_hostname="127.0.0.1")
    phone.sendall(b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    seen = b""
    while b"event: state" not in seen:
        chunk = phone.recv(65536)
        assert chunk, seen
        seen += chunk
    assert seen.startswith(b"HTTP/1.1 200")

    def streams() -> int:
        conn = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=10, context=trusted)
        r, body = _request(conn, "GET", "/healthz")
        conn.close()
        return __import__("json").loads(body)["streams"]

    assert streams() == 1
    phone.close()  # close_notify, then FIN: what a phone's browser does leaving the page
    # Within the stream's checks for a gone phone (every second), well before the second
    # keep-alive (4 s apart) would fail on the closed connection and end it that way.
    deadline = time.monotonic() + 3.5
    while streams() != 0:
        assert time.monotonic() < deadline, "the stream outlived the phone"
        time.sleep(0.1)
