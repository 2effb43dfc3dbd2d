"""``riichi-referee hall`` and ``hall-broker`` as an administrator runs them."""
from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from app import cli
from hall.broker import password_line
from hall.mosquitto import LocalBroker, find_mosquitto
from testkit.browser import Browser, csrf, free_ports
from web.pin import hash_pin, write_pin_hash

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, timeout=60, cwd=cwd)


def test_a_bad_hall_config_is_one_line_and_exit_status_2(tmp_path):
    (tmp_path / "hall.toml").write_text('[hall]\nname = "spring open"\n')
    r = run_cli("hall", "--config", str(tmp_path / "hall.toml"))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"riichi-referee hall: config {tmp_path / 'hall.toml'}: [hall] name = 'spring open' "
        "must be a name of letters, digits, - and _ (it is part of the topic)"]
    r = run_cli("hall", "--config", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr


def test_hall_broker_writes_users_acl_and_settings_and_keeps_passwords(tmp_path, capsys):
    out = tmp_path / "hb"
    assert cli.main(["hall-broker", "--hall", "open", "--tables", "3", "--out", str(out)]) == 0
    users = [line.split(":")[0] for line in (out / "riichi.passwd").read_text().splitlines()]
    assert users == ["hall", "t01", "t02", "t03"]
    assert "pattern write riichi/open/%u/#" in (out / "riichi.acl").read_text()
    conf = (out / "riichi-hall.conf").read_text()
    assert "acl_file /etc/mosquitto/riichi/riichi.acl" in conf
    assert oct((out / "passwords" / "t02.password").stat().st_mode & 0o777) == "0o600"
    before = (out / "passwords" / "t02.password").read_text()
    assert cli.main(["hall-broker", "--hall", "open", "--tables", "t01", "t02", "t03", "east-1",
                     "--out", str(out)]) == 0
    assert (out / "passwords" / "t02.password").read_text() == before
    assert cli.main(["hall-broker", "--hall", "open", "--tables", "hall", "--out",
                     str(out)]) == 2
    assert "none may be the hall's user" in capsys.readouterr().err


def test_passwords_are_in_mosquittos_own_format():
    # the line mosquitto_passwd 2.0 wrote for user hall, password hallpw
    import base64
    salt = base64.b64decode("i0PScVtWP6O8xMFH")
    assert password_line("hall", "hallpw", salt, 101) == (
        "hall:$7$101$i0PScVtWP6O8xMFH$/pzPQi0k69C4b9DUFyxhrYuOcb8oWoxpOJ7deZYJdB6JlhtfkyP2H+"
        "rRLRbkeD5R5yyoLcTvxAcJVt0++cnS9w==")


def make_hall_ca(folder):
    """The hall's CA and the broker's and the page's certificates, as install-hall.sh makes
    them (systemd/make-cert.sh), for 127.0.0.1."""
    make_cert = str(ROOT / "systemd" / "make-cert.sh")
    subprocess.run([make_cert, "ca", str(folder / "ca"), "test hall"], check=True)
    for name in ("broker", "hall"):
        subprocess.run([make_cert, "server", str(folder / "servers"), str(folder / "ca"), name,
                        "127.0.0.1", "localhost"], check=True)
    return {"cafile": str(folder / "ca" / "ca.crt"),
            "certfile": str(folder / "servers" / "broker.crt"),
            "keyfile": str(folder / "servers" / "broker.key")}


@pytest.mark.skipif(find_mosquitto() is None or shutil.which("openssl") is None,
                    reason="mosquitto or openssl not installed")
def test_the_hall_server_serves_https_from_a_broker_over_tls_and_stops_on_sigterm(tmp_path):
    """The hall as install-hall.sh sets it up: one CA; the broker listens with TLS only and
    the hall's subscriber verifies it; the page is https only, under gunicorn, and the
    plain-http server beside it (the second unit) only sends phones there."""
    tls = make_hall_ca(tmp_path)
    broker = LocalBroker(tmp_path / "broker", "open", ["t01"], tls=tls).start()
    servers = []
    try:
        (tmp_path / "pw").write_text(broker.passwords["hall"])
        port, plain_port = free_ports(2)
        (tmp_path / "hall.toml").write_text(f"""
[hall]
name = "open"
[broker]
port = {broker.port}
password_file = "pw"
tls_ca = "ca/ca.crt"
[web]
host = "127.0.0.1"
port = {plain_port}
https_port = {port}
certfile = "servers/hall.crt"
keyfile = "servers/hall.key"
ca_cert = "ca/ca.crt"
pin_hash_file = "pin.hash"
""")
        for extra in ([], ["--plain-http"]):
            servers.append(subprocess.Popen(
                [sys.executable, "-m", "app", "hall", "--config", str(tmp_path / "hall.toml"),
                 *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"}))
        trusted = ssl.create_default_context(cafile=tls["cafile"])
        deadline = time.monotonic() + 30
        health = None
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{port}/healthz",
                                            timeout=1, context=trusted) as r:
                    health = json.load(r)
                if health["broker"]:
                    break
            except OSError:
                assert servers[0].poll() is None, servers[0].communicate()
            time.sleep(0.2)
        # the subscriber reached the broker over TLS, trusting the hall's CA
        assert health is not None and health["broker"] is True, health
        # no PIN set yet: the login page says how to set one
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/", timeout=5,
                                    context=trusted) as r:
            assert "set-pin" in r.read().decode()
        # once set (the hash file is read at each login), the head referee logs in
        write_pin_hash(tmp_path / "pin.hash", hash_pin("2580"))
        phone = Browser(port, "127.0.0.1")
        phone.conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10,
                                                 context=trusted)
        status, page = phone.request("GET", "/login")
        assert status == 200 and phone.cookie.startswith("__Host-riichi_session=")
        status, _ = phone.request("POST", "/login", {"pin": "2580", "csrf_token": csrf(page)})
        assert status == 303
        status, tiles = phone.request("GET", "/hall/tiles.json")
        assert status == 200 and json.loads(tiles)["broker"]["online"] is True, tiles
        phone.close()  # a kept-alive connection would hold up the graceful stop
        # a phone that does not trust the hall's CA gets no page
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
            urllib.request.urlopen(f"https://127.0.0.1:{port}/login", timeout=5,
                                   context=ssl.create_default_context())
        # plain http: the login is sent to https, a PIN refused, the CA offered
        deadline = time.monotonic() + 30
        while True:
            try:
                clear = http.client.HTTPConnection("127.0.0.1", plain_port, timeout=5)
                clear.request("GET", "/login")
                break
            except OSError:
                assert servers[1].poll() is None and time.monotonic() < deadline, \
                    servers[1].communicate()
                time.sleep(0.1)
        r = clear.getresponse()
        r.read()
        assert (r.status, r.getheader("Location")) == (307, f"https://127.0.0.1:{port}/login")
        clear.request("POST", "/login", body="pin=2580",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
        r = clear.getresponse()
        assert r.status == 403 and "in clear" in r.read().decode()
        assert r.getheader("Set-Cookie") is None
        clear.request("GET", "/ca.crt")
        r = clear.getresponse()
        assert r.read() == (tmp_path / "ca" / "ca.crt").read_bytes()
        clear.close()
        for proc in servers:
            proc.send_signal(signal.SIGTERM)
        for proc in servers:
            assert proc.wait(20) == 0
            err = proc.communicate()[1]
            assert "Traceback" not in err, err
    finally:
        for proc in servers:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
        broker.stop()
