"""``riichi-referee hall`` and ``hall-broker`` as an administrator runs them."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from app import cli
from hall.broker import password_line
from hall.mosquitto import LocalBroker, find_mosquitto, free_port


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


@pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto not installed")
def test_the_hall_server_serves_under_gunicorn_and_stops_on_sigterm(tmp_path):
    broker = LocalBroker(tmp_path / "broker", "open", ["t01"]).start()
    try:
        (tmp_path / "pw").write_text(broker.passwords["hall"])
        port = free_port()
        (tmp_path / "hall.toml").write_text(f"""
[hall]
name = "open"
[broker]
port = {broker.port}
password_file = "pw"
[web]
host = "127.0.0.1"
port = {port}
pin_hash_file = "pin.hash"
""")
        proc = subprocess.Popen([sys.executable, "-m", "app", "hall", "--config",
                                 str(tmp_path / "hall.toml")], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            deadline = time.monotonic() + 30
            health = None
            while time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz",
                                                timeout=1) as r:
                        health = json.load(r)
                    if health["broker"]:
                        break
                except OSError:
                    pass
                time.sleep(0.2)
            assert health is not None and health["broker"] is True, health
            # no PIN set yet: the login page says how to set one
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                assert "set-pin" in r.read().decode()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
    finally:
        broker.stop()
