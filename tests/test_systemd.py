"""The systemd units verify, and the service speaks sd_notify (READY, WATCHDOG, STATUS)."""
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table.sdnotify import notify, watchdog_interval

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"
UNITS = ["riichi-referee.service", "riichi-referee-web.service",
         "riichi-referee-web-tls.service", "riichi-referee-hall.service",
         "riichi-referee-hall-http.service"]


def unit_settings(name):
    settings = {}
    for line in (SYSTEMD / name).read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze not installed (apt-get install systemd)")
def test_units_pass_systemd_analyze_verify(tmp_path):
    # The units point at /opt/riichi-referee, which install.sh creates: verify copies whose
    # executables exist, everything else as shipped.
    prefix = tmp_path / "opt"
    (prefix / "venv" / "bin").mkdir(parents=True)
    for exe in ("riichi-referee", "gunicorn"):
        p = prefix / "venv" / "bin" / exe
        p.write_text("#!/bin/sh\n")
        p.chmod(0o755)
    for name in UNITS:
        text = (SYSTEMD / name).read_text().replace("/opt/riichi-referee", str(prefix))
        (tmp_path / name).write_text(text)
    result = subprocess.run(["systemd-analyze", "verify", *[str(tmp_path / n) for n in UNITS]],
                            capture_output=True, text=True, timeout=60)
    ours = [l for l in (result.stdout + result.stderr).splitlines()
            if any(n in l for n in UNITS)]
    assert result.returncode == 0 and not ours, result.stdout + result.stderr


def test_table_unit_has_what_the_issue_asks():
    s = unit_settings("riichi-referee.service")
    assert s["Type"] == ["notify"] and s["Restart"] == ["on-failure"]
    assert float(s["WatchdogSec"][0]) > 0
    assert set(s["SupplementaryGroups"][0].split()) == {"gpio", "video"}
    assert s["StateDirectory"] == ["riichi-referee"]
    assert s["WorkingDirectory"] == ["%S/riichi-referee"]
    assert s["ProtectSystem"] == ["strict"]
    assert "PrivateDevices" not in s and "DevicePolicy" not in s  # gpiochip and camera
    assert set(s["RestartPreventExitStatus"][0].split()) == {"2", "3"}
    web = unit_settings("riichi-referee-web.service")
    assert any(v.startswith("RIICHI_JOURNAL=") for v in web["Environment"])
    assert "gunicorn" in web["ExecStart"][0] and "web/gunicorn.conf.py" in web["ExecStart"][0]


def environment(unit: str) -> dict:
    return dict(v.split("=", 1) for v in unit_settings(unit)["Environment"])


def test_the_referee_is_served_over_https_and_spectators_over_http():
    """Two gunicorns of the same app (gunicorn has one TLS setting for all its addresses):
    the referee's keeps the session and has the certificate; the spectators' has neither,
    and both offer the hall's CA."""
    http, https = (environment("riichi-referee-web.service"),
                   environment("riichi-referee-web-tls.service"))
    assert "RIICHI_WEB_CERTFILE" not in http and "RIICHI_SECRET_KEY_FILE" not in http
    assert https["RIICHI_WEB_CERTFILE"] == "/etc/riichi-referee/tls/table.crt"
    assert https["RIICHI_WEB_KEYFILE"] == "/etc/riichi-referee/tls/table.key"
    assert https["RIICHI_SECRET_KEY_FILE"].startswith("%S/riichi-referee/")
    assert http["RIICHI_WEB_CA_CERT"] == https["RIICHI_WEB_CA_CERT"] \
        == "/etc/riichi-referee/tls/hall-ca.crt"
    for name in ("RIICHI_JOURNAL", "RIICHI_CONFIG", "RIICHI_PIN_HASH_FILE"):
        assert http[name] == https[name], name
    # neither turns the https requirement off (web.wsgi has it on by default)
    assert "RIICHI_REFEREE_HTTPS" not in http and "RIICHI_REFEREE_HTTPS" not in https
    tls = unit_settings("riichi-referee-web-tls.service")
    # the same gunicorn settings; the referee's app is web.wsgi's with the photo reader
    assert tls["ExecStart"] == [unit_settings("riichi-referee-web.service")["ExecStart"][0]
                                .replace("web.wsgi:app", "app.wsgi:app")]
    assert tls["ProtectSystem"] == ["strict"] and tls["User"] == ["riichi"]


def test_install_script_is_valid_bash():
    subprocess.run(["bash", "-n", str(SYSTEMD / "install.sh")], check=True)
    text = (SYSTEMD / "install.sh").read_text()
    assert "--system-site-packages" in text and "set-pin" in text and "enable" in text
    assert "riichi-referee-web-tls.service" in text and "make-cert.sh" in text
    assert "TLS_CA" in text and "/tls" in text
    subprocess.run(["bash", "-n", str(SYSTEMD / "install-hall.sh")], check=True)
    assert "make-cert.sh\" ca" in (SYSTEMD / "install-hall.sh").read_text()
    subprocess.run(["bash", "-n", str(SYSTEMD / "make-cert.sh")], check=True)


def test_the_hall_server_has_its_unit_and_the_broker_example_is_what_we_write(tmp_path):
    from app import cli
    from hall.broker import acl_text
    from hall.config import load_hall_config

    hall = unit_settings("riichi-referee-hall.service")
    assert "riichi-referee hall --config /etc/riichi-referee/hall.toml" in hall["ExecStart"][0]
    assert "mosquitto.service" in hall["After"][0] and hall["RestartPreventExitStatus"] == ["2"]
    # the shipped examples are exactly what install-hall.sh's `riichi-referee hall-broker`
    # writes: one listener, with TLS, on 8883
    install = (SYSTEMD / "install-hall.sh").read_text()
    assert "--files-at /etc/mosquitto/riichi --tls" in install
    assert cli.main(["hall-broker", "--hall", "spring-open", "--tables", "2", "--out",
                     str(tmp_path / "hb"), "--files-at", "/etc/mosquitto/riichi", "--tls"]) == 0
    conf = (SYSTEMD / "mosquitto-hall.conf").read_text()
    assert conf.endswith((tmp_path / "hb" / "riichi-hall.conf").read_text())
    assert "allow_anonymous false" in conf and "persistence true" in conf
    assert [l for l in conf.splitlines() if l.startswith("listener")] == ["listener 8883"]
    assert (SYSTEMD / "mosquitto-hall.acl").read_text() == acl_text("spring-open")
    (tmp_path / "pw").write_text("secret\n")
    sample = (SYSTEMD / "hall.toml").read_text().replace(
        "/etc/riichi-referee/hall-broker.password", str(tmp_path / "pw"))
    for path in ("/etc/riichi-referee/hall-ca.crt", "/etc/riichi-referee/hall-tls/hall.crt",
                 "/etc/riichi-referee/hall-tls/hall.key"):
        assert f'"{path}"' in sample
        sample = sample.replace(path, str(tmp_path / Path(path).name))
        (tmp_path / Path(path).name).write_text("pem\n")
    (tmp_path / "hall.toml").write_text(sample)
    settings = load_hall_config(tmp_path / "hall.toml")
    assert (settings.name, settings.web_port, settings.game_minutes, settings.broker.password) \
        == ("spring-open", 8080, 90, "secret")
    # the broker over TLS, trusting the hall's CA; the page over https only
    assert (settings.broker.tls_ca, settings.broker.port) == (tmp_path / "hall-ca.crt", 8883)
    assert settings.https and settings.https_port == 8443
    assert settings.ca_cert == settings.broker.tls_ca  # one CA


def test_the_hall_install_makes_every_certificate_from_the_one_ca():
    """install-hall.sh: the broker's and the page's certificates from the hall's CA, put where
    mosquitto-hall.conf and hall.toml name them; both hall servers enabled."""
    from hall.broker import TLS_NAMES

    install = (SYSTEMD / "install-hall.sh").read_text()
    ca = install.index('make-cert.sh" ca "$etc/hall-ca"')
    for name in ("broker", "hall"):
        made = install.index(f'make-cert.sh" server "$servers" "$etc/hall-ca" {name} ')
        assert ca < made < install.index("hall-broker --hall")
    for source, name in (('"$etc/hall-ca/ca.crt"', "cafile"), ('"$servers/broker.crt"', "certfile"),
                         ('"$servers/broker.key"', "keyfile")):
        assert f"{source} /etc/mosquitto/riichi/{TLS_NAMES[name]}" in install, name
    assert "-g mosquitto \"$servers/broker.key\"" in install  # the key: mosquitto's group only
    conf = (SYSTEMD / "mosquitto-hall.conf").read_text()
    for name, file in TLS_NAMES.items():
        assert f"{name} /etc/mosquitto/riichi/{file}" in conf
    toml = (SYSTEMD / "hall.toml").read_text()
    for key, path in (("certfile", "hall-tls/hall.crt"), ("keyfile", "hall-tls/hall.key")):
        assert f'{key} = "/etc/riichi-referee/{path}"' in toml
        assert f'"$etc/{path}"' in install
    assert "localhost 127.0.0.1" in install  # the hall server's own subscriber verifies it
    assert "riichi-referee-hall-http.service" in install.split("enable --now")[1]
    http = unit_settings("riichi-referee-hall-http.service")
    hall = unit_settings("riichi-referee-hall.service")
    assert http["ExecStart"] == [hall["ExecStart"][0] + " --plain-http"]
    assert http["User"] == hall["User"] == ["riichi"] and http["ProtectSystem"] == ["strict"]
    assert "StateDirectory" not in http  # no session, no cookie key: nothing to keep


def _listen(address):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(5)
    return sock


def test_notify_over_a_path_socket(tmp_path):
    path = str(tmp_path / "notify")
    with _listen(path) as sock:
        assert notify("READY=1\nSTATUS=ok", {"NOTIFY_SOCKET": path})
        assert sock.recv(4096) == b"READY=1\nSTATUS=ok"


def test_notify_over_an_abstract_socket():
    name = f"riichi-test-{os.getpid()}-{time.monotonic_ns()}"
    with _listen("\0" + name) as sock:
        assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(4096) == b"WATCHDOG=1"


def test_outside_systemd_notify_is_a_no_op():
    assert notify("READY=1", {}) is False
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "15000000"}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "15000000", "WATCHDOG_PID": "1"}) is None \
        or os.getpid() == 1


def test_the_service_says_ready_then_pings_the_watchdog(tmp_path):
    """`riichi-referee run` as systemd starts it: READY=1 once up, WATCHDOG=1 from the main
    loop within WatchdogSec, a STATUS line, STOPPING=1 on SIGTERM."""
    path = str(tmp_path / "notify")
    game = tmp_path / "game.jsonl"
    game.write_text('{"type":"game_start","t":0,"ruleset":"ema2012","scores":[25000,25000,25000,25000]}\n')
    config = tmp_path / "table.toml"
    config.write_text(f'[service]\nreplay = "{game}"\nspeed = 1\n')
    with _listen(path) as sock:
        env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1500000"}
        proc = subprocess.Popen([sys.executable, "-m", "app", "run", "--config", str(config),
                                 "--journal", str(tmp_path / "j.sqlite")], env=env,
                                stderr=subprocess.PIPE, text=True)
        try:
            messages = []
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and \
                    not any(m.startswith("WATCHDOG=1") for m in messages):
                try:
                    messages.append(sock.recv(4096).decode())
                except socket.timeout:
                    break
            assert messages and messages[0].startswith("READY=1"), messages
            assert "WATCHDOG=1" in messages
            assert any("STATUS=" in m and "events" in m for m in messages)
            proc.terminate()
            assert proc.wait(10) == 0
            rest = []
            sock.settimeout(0.5)
            try:
                while True:
                    rest.append(sock.recv(4096).decode())
            except socket.timeout:
                pass
            assert "STOPPING=1" in rest
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
