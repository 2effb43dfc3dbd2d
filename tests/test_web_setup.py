"""Installing the dashboard: the PIN file, the gunicorn entry point and its settings."""
from __future__ import annotations

import io
import os
import runpy
import stat
import subprocess
import sys
import types
from pathlib import Path

import pytest

from app import cli
from web import pin, wsgi

ROOT = Path(__file__).resolve().parent.parent


# -- the PIN --------------------------------------------------------------------------------

def test_pin_is_stored_as_a_salted_hash_only():
    a, b = pin.hash_pin("4711"), pin.hash_pin("4711")
    # werkzeug's method$salt$hash: the PIN is none of the fields (a hex hash contains "4711"
    # by chance about once in 500 hashes, so a substring test failed at random)
    method, salt, digest = a.split("$")
    assert method.startswith("scrypt:") and "4711" not in (salt, digest)
    assert len(digest) >= 64 and set(digest) <= set("0123456789abcdef")
    assert a != b                               # salted
    assert pin.verify_pin(a, "4711") and not pin.verify_pin(a, "4712")
    assert not pin.verify_pin("garbage", "4711") and not pin.verify_pin(None, "4711")


@pytest.mark.parametrize("bad", ["123", "1234567890123", "12a4", "", " 1234", "١٢٣٤"])
def test_pin_must_be_4_to_12_plain_digits(bad):
    with pytest.raises(pin.PinError):
        pin.hash_pin(bad)


def test_set_pin_command_writes_an_owner_only_hash_file(tmp_path, monkeypatch, capsys):
    target = tmp_path / "etc" / "pin.hash"
    monkeypatch.setattr(sys, "stdin", io.StringIO("135790\n"))
    assert cli.main(["set-pin", "--stdin", "--file", str(target)]) == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    stored = pin.read_pin_hash(target)
    assert pin.verify_pin(stored, "135790")
    assert "135790" not in target.read_text()
    assert str(target) in capsys.readouterr().out


def test_set_pin_refuses_a_bad_pin_in_one_line(tmp_path, monkeypatch, capsys):
    target = tmp_path / "pin.hash"
    monkeypatch.setattr(sys, "stdin", io.StringIO("12\n"))
    assert cli.main(["set-pin", "--stdin", "--file", str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "riichi-referee set-pin: the PIN must have 4 to 12 digits, not 2"
    assert not target.exists()


def test_set_pin_asks_twice_and_refuses_a_mismatch(tmp_path, monkeypatch, capsys):
    answers = iter(["2580", "2581"])
    monkeypatch.setattr("app.commands.set_pin._interactive", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    target = tmp_path / "pin.hash"
    assert cli.main(["set-pin", "--file", str(target)]) == 2
    assert "differ" in capsys.readouterr().err and not target.exists()


def test_set_pin_on_a_terminal_closed_before_the_second_answer_is_one_line(
        tmp_path, monkeypatch, capsys):
    answers = iter(["2580"])

    def getpass(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("app.commands.set_pin._interactive", lambda: True)
    monkeypatch.setattr("getpass.getpass", getpass)
    target = tmp_path / "pin.hash"
    assert cli.main(["set-pin", "--file", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == "riichi-referee set-pin: no PIN was typed; nothing was changed\n"
    assert not target.exists()


@pytest.mark.parametrize("piped, rc", [("2468\n", 0), ("", 2), ("24\n", 2)],
                         ids=["a-pin", "nothing", "too-short"])
def test_set_pin_with_the_pin_piped_in_without_stdin_flag(tmp_path, piped, rc):
    # `echo 2468 | riichi-referee set-pin` on an install script: no terminal to ask twice on
    target = tmp_path / "pin.hash"
    done = subprocess.run([sys.executable, "-m", "app", "set-pin", "--file", str(target)],
                          input=piped, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == rc, done.stderr
    assert "Traceback" not in done.stderr
    if rc == 0:
        assert pin.verify_pin(pin.read_pin_hash(target), "2468")
    else:
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stderr.startswith("riichi-referee set-pin: ")
        assert not target.exists()


def test_default_pin_file_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("RIICHI_PIN_HASH_FILE", str(tmp_path / "p"))
    assert pin.default_pin_file() == tmp_path / "p"
    monkeypatch.delenv("RIICHI_PIN_HASH_FILE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert pin.default_pin_file() == tmp_path / "riichi-referee" / "pin.hash"


def test_a_damaged_pin_file_is_named(tmp_path):
    bad = tmp_path / "pin.hash"
    bad.write_text("hello\n")
    with pytest.raises(pin.PinError, match=r"pin.hash: not a PIN hash"):
        pin.read_pin_hash(bad)


# -- web.wsgi ---------------------------------------------------------------------------------

class FakeJournalTable:
    def __init__(self, path):
        from table.hub import Hub

        self.path = Path(path)
        self.hub = Hub()

    def clock(self):
        return 1.0

    def snapshot(self):
        return {}

    def events(self):
        return []

    def rulings(self):
        return []

    def submit(self, event):
        return []


@pytest.fixture
def fake_journal_module(monkeypatch):
    module = types.ModuleType("table.journal_table")
    module.JournalTable = FakeJournalTable
    monkeypatch.setitem(sys.modules, "table.journal_table", module)
    return module


def test_wsgi_needs_a_journal(tmp_path):
    with pytest.raises(wsgi.SetupError, match="set RIICHI_JOURNAL"):
        wsgi.build_app({})


def test_wsgi_builds_the_app_from_the_environment(tmp_path, fake_journal_module):
    journal = tmp_path / "journal.sqlite"
    journal.write_bytes(b"")
    pin_file = tmp_path / "pin.hash"
    pin.write_pin_hash(pin_file, pin.hash_pin("1357"))
    app = wsgi.build_app({"RIICHI_JOURNAL": str(journal), "RIICHI_PIN_HASH_FILE": str(pin_file),
                          "RIICHI_COOKIE_SECURE": "1", "RIICHI_TABLE_NAME": "Table 7",
                          "RIICHI_WEB_STREAMS_PER_CLIENT": "2", "RIICHI_WEB_MAX_STREAMS": "90"})
    dash = app.extensions["riichi"]
    assert (dash.gate.per_client, dash.gate.total) == (2, 90)
    assert dash.table.path == journal
    assert pin.verify_pin(dash.pin_hash(), "1357")
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert "Table 7" in app.test_client().get("/").get_data(as_text=True)


def test_wsgi_reads_the_table_config(tmp_path, fake_journal_module):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "j.sqlite").write_bytes(b"")
    config = tmp_path / "table.toml"
    config.write_text('[journal]\npath = "data/j.sqlite"\n\n[web]\nport = 8000\n'
                      'pin_hash_file = "pin.hash"\nsecret_key_file = "secret"\n'
                      'cookie_secure = true\nstreams_per_client = 3\n')
    conf = wsgi.settings({"RIICHI_CONFIG": str(config)})
    assert conf["streams_per_client"] == 3
    assert conf["journal"] == tmp_path / "data" / "j.sqlite"
    assert conf["pin_hash_file"] == tmp_path / "pin.hash"
    assert conf["cookie_secure"] is True
    # the environment wins over the file
    conf = wsgi.settings({"RIICHI_CONFIG": str(config), "RIICHI_JOURNAL": "/x/y.sqlite"})
    assert conf["journal"] == Path("/x/y.sqlite")
    # a secret key file is made once, owner-only, and then kept: sessions survive restarts
    a = wsgi.build_app({"RIICHI_CONFIG": str(config)})
    b = wsgi.build_app({"RIICHI_CONFIG": str(config)})
    assert a.secret_key == b.secret_key
    assert stat.S_IMODE((tmp_path / "secret").stat().st_mode) == 0o600


def test_wsgi_names_a_bad_config(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text("[web\n")
    with pytest.raises(wsgi.SetupError, match="not valid TOML"):
        wsgi.settings({"RIICHI_CONFIG": str(config)})
    config.write_text("[web]\ncookie_secure = 'yes'\n")
    with pytest.raises(wsgi.SetupError, match="cookie_secure must be true or false"):
        wsgi.settings({"RIICHI_CONFIG": str(config)})
    config.write_text("[web]\nstreams_per_client = 0\n")
    with pytest.raises(wsgi.SetupError, match="streams_per_client must be a whole number"):
        wsgi.settings({"RIICHI_CONFIG": str(config)})
    with pytest.raises(wsgi.SetupError, match="RIICHI_WEB_STREAMS_PER_CLIENT='two'"):
        wsgi.settings({"RIICHI_JOURNAL": "/x.sqlite", "RIICHI_WEB_STREAMS_PER_CLIENT": "two"})


def test_wsgi_says_when_the_journal_is_missing(tmp_path, fake_journal_module):
    with pytest.raises(wsgi.SetupError, match="no such file .*start the table service"):
        wsgi.build_app({"RIICHI_JOURNAL": str(tmp_path / "none.sqlite")})


def test_wsgi_says_when_the_journal_table_cannot_be_imported(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "table.journal_table", None)  # import fails
    (tmp_path / "j.sqlite").write_bytes(b"")
    with pytest.raises(wsgi.SetupError, match="table.journal_table.JournalTable is not available"):
        wsgi.build_app({"RIICHI_JOURNAL": str(tmp_path / "j.sqlite")})


def test_gunicorn_stops_with_one_line_when_the_app_cannot_start(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIICHI_")}
    env.update(RIICHI_JOURNAL=str(tmp_path / "missing.sqlite"), RIICHI_WEB_BIND="127.0.0.1:0",
               RIICHI_PIN_HASH_FILE=str(tmp_path / "pin.hash"))
    proc = subprocess.run(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "web" / "gunicorn.conf.py"),
         "web.wsgi:app"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines()
             if line.startswith("riichi-referee dashboard:")]
    assert lines == [f"riichi-referee dashboard: journal {tmp_path / 'missing.sqlite'}: no such "
                     "file (start the table service first: it creates the journal)"]
    assert "Traceback" not in proc.stderr


# -- gunicorn.conf.py ---------------------------------------------------------------------------

def load_conf(monkeypatch, **env):
    for key in ("RIICHI_WEB_BIND", "RIICHI_WEB_MAX_STREAMS", "RIICHI_WEB_STREAM_MEMORY_MB",
                "RIICHI_CONFIG"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return runpy.run_path(str(ROOT / "web" / "gunicorn.conf.py"))


def test_gunicorn_serves_streams_from_one_gevent_worker_with_room_for_pages(monkeypatch):
    conf = load_conf(monkeypatch)
    assert conf["worker_class"] == "gevent" and conf["workers"] == 1
    assert conf["bind"] == ["0.0.0.0:8000"]
    streams = conf["sizing"].streams
    assert streams >= 100
    # every stream, and as many connections again for pages, logins and actions
    assert conf["worker_connections"] >= 2 * streams
    assert conf["raw_env"] == [f"RIICHI_WEB_MAX_STREAMS={streams}"]  # the app's cap
    conf = load_conf(monkeypatch, RIICHI_WEB_MAX_STREAMS="300", RIICHI_WEB_BIND="127.0.0.1:9000")
    assert conf["sizing"].streams == 300 and conf["bind"] == ["127.0.0.1:9000"]
    half = load_conf(monkeypatch, RIICHI_WEB_STREAM_MEMORY_MB="32")["sizing"].streams
    assert half == pytest.approx(streams / 2, abs=1)


def test_gunicorn_raises_the_open_file_limit_for_its_connections(monkeypatch):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, soft), hard))  # systemd's default
        conf = load_conf(monkeypatch, RIICHI_WEB_MAX_STREAMS="2000")
        now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert conf["sizing"].file_descriptors <= now
        if hard == resource.RLIM_INFINITY or hard >= conf["sizing"].file_descriptors:
            assert conf["sizing"].streams == 2000
        else:  # a hard limit too low: fewer streams, never more connections than files
            assert conf["sizing"].streams < 2000
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_gunicorn_binds_where_the_table_config_says(monkeypatch, tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[web]\nhost = "192.168.4.1"\nport = 8080\n')
    assert load_conf(monkeypatch, RIICHI_CONFIG=str(config))["bind"] == ["192.168.4.1:8080"]


def test_gunicorn_settings_refuse_nonsense(monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match="RIICHI_WEB_MAX_STREAMS='many' is not a whole number"):
        load_conf(monkeypatch, RIICHI_WEB_MAX_STREAMS="many")
    with pytest.raises(SystemExit, match="RIICHI_WEB_STREAM_MEMORY_MB must be above 0"):
        load_conf(monkeypatch, RIICHI_WEB_STREAM_MEMORY_MB="0")
    config = tmp_path / "table.toml"
    config.write_text('[web]\nmax_streams = "lots"\n')
    with pytest.raises(SystemExit, match=r"\[web\] max_streams='lots' is not a whole number"):
        load_conf(monkeypatch, RIICHI_CONFIG=str(config))
