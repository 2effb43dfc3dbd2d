"""Faults a table meets: a full disk, a read-only journal, a broken config, a dead camera."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_crash import table_game
from test_service import GAME, FakeReferee

from app.cli import main
from referee.events import dumps
from table.clock import TableClock
from table.journal import Journal
from table.service import ResumableTable, TableService


class FakeNotifier:
    watchdog_interval = 0.3

    def __init__(self):
        self.sent = []

    def ready(self, status=""):
        self.sent.append("READY=1")

    def watchdog(self):
        self.sent.append("WATCHDOG=1")

    def status(self, text):
        self.sent.append("STATUS=" + text)

    def stopping(self):
        self.sent.append("STOPPING=1")


def test_full_disk_is_reported_the_service_stays_up_and_recovers(tmp_path):
    path = tmp_path / "j.sqlite"
    table = ResumableTable(Journal(path), referee_factory=FakeReferee, clock=TableClock())
    notifier = FakeNotifier()
    svc = TableService(table, clock=table.clock, inbox=False, notifier=notifier)
    runner = threading.Thread(target=svc.run, kwargs={"install_signals": False})
    runner.start()
    try:
        svc.submit(GAME[0], "test")
        db = table.journal._db
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        refused = 0
        for i in range(300):
            if svc.submit({"type": "discard", "t": 1.0 + i, "seat": i % 4, "tile": "5m"},
                          "test") is None:
                refused += 1
        assert refused
        assert table.health["journal"]["ok"] is False
        assert "disk is full" in table.health["journal"]["text"]
        journaled = len(Journal(path, readonly=True).game_events())
        assert journaled == len(table.events())  # nothing judged that was not journaled
        time.sleep(0.5)
        assert runner.is_alive()  # no exit, hence no restart loop
        status = [m for m in notifier.sent if m.startswith("STATUS=")]
        assert any("disk is full" in m for m in status)
        # the watchdog keeps being fed: restarting would not free the disk
        n = notifier.sent.count("WATCHDOG=1")
        time.sleep(0.4)
        assert notifier.sent.count("WATCHDOG=1") > n
        db.execute("PRAGMA max_page_count = 1000000")  # someone freed space
        assert svc.submit({"type": "discard", "t": 999.0, "seat": 0, "tile": "1m"}, "t") \
            is not None
        assert table.health["journal"]["ok"] is True
    finally:
        svc.stop_event.set()
        runner.join(5)
    assert "STOPPING=1" in notifier.sent


def _mount_tmpfs(where: Path, size: str) -> bool:
    if os.geteuid() != 0 or sys.platform != "linux":
        return False
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                       capture_output=True)
    return r.returncode == 0


def test_a_nearly_full_disk_is_said_on_the_dashboard_and_every_event_still_journaled(tmp_path):
    """The disk nearly full (here SQLite's own page quota, which fails writes with SQLITE_FULL
    exactly where a full file system would): the service says so as health ``disk``, through
    the journal, so the dashboard's process shows it; events go on being journaled and
    judged; once space is freed the warning goes; the journal stays whole."""
    from table.journal_check import check_journal
    from table.journal_table import JournalTable

    path = tmp_path / "j.sqlite"
    table = ResumableTable(Journal(path), clock=TableClock())
    svc = TableService(table, clock=table.clock, inbox=False, low_disk=512 * 1024)
    game = table_game(hands=1)
    for event in game[:20]:
        assert svc.submit(event, "test") is not None
    assert svc.check_disk() > 512 * 1024
    assert "disk" not in table.health
    db = table.journal._db
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 64}")  # 256 KiB left
    room = svc.check_disk()
    assert room <= 256 * 1024
    dashboard = JournalTable(path, poll=0.02)
    try:
        shown = next(h for h in dashboard.snapshot()["health"] if h["component"] == "disk")
        assert shown["ok"] is False and "nearly full" in shown["text"]
        for event in game[20:]:
            assert svc.submit(event, "test") is not None  # nothing refused
        assert [e for _, e in Journal(path, readonly=True).game_events()] == game
        db.execute("PRAGMA max_page_count = 1073741823")  # someone freed space
        svc.check_disk()
        assert table.health["disk"]["ok"] is True
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and next(
                h for h in dashboard.snapshot()["health"] if h["component"] == "disk")["ok"] \
                is False:
            time.sleep(0.02)
        assert next(h for h in dashboard.snapshot()["health"]
                    if h["component"] == "disk")["ok"] is True
    finally:
        dashboard.close()
    table.journal.close()
    assert check_journal(path) == []


def test_a_really_full_disk_under_the_real_service(tmp_path):
    """`riichi-referee run` on a 256 KiB file system: the journal fills up mid-game. (160 KiB
    left room for one event after what the service writes on starting: too close to the edge
    for a test of what happens mid-game.)"""
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "256k"):
        pytest.skip("needs root and tmpfs to make a small file system")
    try:
        game = tmp_path / "game.jsonl"
        game.write_text("".join(dumps(e) + "\n" for e in table_game(hands=4)))
        config = tmp_path / "table.toml"
        config.write_text(f'[service]\nreplay = "{game}"\nspeed = 0\n')
        result = subprocess.run([sys.executable, "-m", "app", "run", "--config",
                                 str(config), "--journal", str(disk / "j.sqlite"),
                                 "--exit-at-end"], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert "disk is full" in result.stderr and "Traceback" not in result.stderr
        with Journal(disk / "j.sqlite", readonly=True) as j:   # closed before the unmount
            events = [e for _, e in j.game_events()]
        assert 0 < len(events) < len(table_game(hands=4))
        assert events == table_game(hands=4)[:len(events)]  # what was recorded is intact
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_a_really_nearly_full_file_system_is_said_and_every_event_journaled(tmp_path):
    """The same on a real 4 MiB file system filled by another file to under the service's
    threshold: the free space of the file system, not a quota, is what the service sees."""
    from table.journal_table import JournalTable

    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "4m"):
        pytest.skip("needs root and tmpfs to make a small file system")
    journal = None
    try:
        path = disk / "j.sqlite"
        journal = Journal(path)
        table = ResumableTable(journal, clock=TableClock())
        svc = TableService(table, clock=table.clock, inbox=False, low_disk=1024 * 1024)
        game = table_game(hands=1)
        for event in game[:20]:
            svc.submit(event, "test")
        assert svc.check_disk() > 1024 * 1024 and "disk" not in table.health
        ballast = disk / "ballast"
        svc.table.journal.shrink_wal()  # what the service does first when room runs low
        free = svc.table.journal.free_bytes()
        ballast.write_bytes(b"\0" * (free - 512 * 1024))  # someone's file: 512 KiB left
        assert svc.check_disk() < 1024 * 1024
        dashboard = JournalTable(path, poll=0.02)
        try:
            shown = next(h for h in dashboard.snapshot()["health"] if h["component"] == "disk")
            assert shown["ok"] is False and "nearly full" in shown["text"]
        finally:
            dashboard.close()
        for event in game[20:]:
            assert svc.submit(event, "test") is not None
        ballast.unlink()
        svc.check_disk()
        assert table.health["disk"]["ok"] is True
        with Journal(path, readonly=True) as j:
            assert [e for _, e in j.game_events()] == game
    finally:
        if journal is not None:
            journal.close()  # else the file system is busy and stays mounted
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_read_only_journal_at_start_shows_the_game_and_refuses_events(tmp_path, monkeypatch):
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    for e in GAME[:3]:
        j.append_event(e)
    j.close()
    from app.commands import run as service_cli
    from table.journal import JournalError

    real = service_cli.Journal

    def journal(p, readonly=False, **kw):  # what opening on a read-only mount does
        if not readonly:
            raise JournalError(f"journal {p}: the file or its file system is read-only; x",
                               "readonly")
        return real(p, readonly=True, **kw)

    monkeypatch.setattr(service_cli, "Journal", journal)
    opened = service_cli.open_journal(path)
    assert opened.readonly and "read-only" in opened.open_error
    table = ResumableTable(opened, referee_factory=FakeReferee, clock=TableClock())
    table.restore()
    assert len(table.events()) == 3  # the game so far is still shown
    svc = TableService(table, clock=table.clock)
    assert svc.submit(GAME[3], "test") is None
    assert table.health["journal"]["ok"] is False


@pytest.mark.parametrize("text, expected", [
    ("[service\n", "not valid TOML"),
    ("[service]\ncamera_timeout = -1\n", "camera_timeout = -1 must be a number of seconds"),
    ("[service]\nspeeed = 2\n", "unknown key 'speeed' in [service]"),
    ("[journal]\npath = 3\n", "[journal] path = 3 must be the path"),
    ("[web]\nport = 70000\n", "port = 70000 must be a port number"),
])
def test_a_broken_config_is_one_clear_line(tmp_path, capsys, text, expected):
    config = tmp_path / "table.toml"
    config.write_text(text)
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and str(config) in err


def test_missing_config_and_missing_gpio_are_one_line_with_a_hint(tmp_path, capsys):
    assert main(["run", "--config", str(tmp_path / "nope.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err
    sample = Path(__file__).resolve().parent.parent / "hardware" / "table.toml"
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    result = subprocess.run([sys.executable, "-m", "app", "run", "--config", str(sample),
                             "--journal", str(tmp_path / "j.sqlite")],
                            capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "GPIO" in result.stderr
    assert "demo" in result.stderr or "mock" in result.stderr  # the hint
