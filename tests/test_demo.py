"""`riichi-referee demo`: a whole game through mock-pin buttons, the service and the dashboard."""
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from referee.core import Referee
from referee.simulate import simulate
from table.journal import Journal


def _ctrl_c_as_at_a_terminal():
    # A suite started in the background by a non-interactive shell ignores SIGINT, and a
    # child inherits that: Python then never turns Ctrl-C into KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_demo(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "app", "demo", "--no-browser",
                             "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
                            preexec_fn=_ctrl_c_as_at_a_terminal)


def read_until(proc, prefix, timeout=60):
    lines = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.strip().startswith(prefix):
            return line, lines
    raise AssertionError(f"no line starting {prefix!r} in {lines}; stderr: {proc.stderr.read()}")


def without_time(ruling):
    return {k: v for k, v in ruling.items() if k not in ("t", "window")}


def check_judged_as_recorded(journal, game):
    j = Journal(journal)
    events = [e for _, e in j.game_events()]
    stored = [r for _, r in j.game_rulings()]
    # every press and discard reached the journal from the right seat, in the game's order
    key = lambda e: (e["type"], e.get("seat"), e.get("tile"), e.get("call"))
    assert [key(e) for e in events] == [key(e) for e in game]
    # the table judged the game as a replay of the recorded game does: the button path, the
    # camera path and the sped-up clock changed no decision
    referee = Referee()
    expected = [r for e in game for r in referee.feed(e)] + referee.finish()
    assert [without_time(r) for r in stored] == [without_time(r) for r in expected]
    assert len({r["ruling_id"] for r in stored}) == len(stored)
    return events


def test_demo_plays_a_whole_game_through_the_buttons_and_the_dashboard(tmp_path):
    journal = tmp_path / "demo.sqlite"
    proc = start_demo("--simulated", "--hands", "2", "--speed", "120", "--exit-at-end",
                      "--no-camera", "--journal", str(journal))
    try:
        line, _ = read_until(proc, "dashboard:")
        url = line.split()[1]
        with urllib.request.urlopen(url + "/state.json", timeout=10) as resp:
            assert resp.status == 200
            state = json.load(resp)["data"]
        assert "seats" in state
        # the dashboard says how the simulated sources are, not "?" all game
        health = {h["component"]: h for h in state["health"]}
        assert health["buttons"]["ok"] is True
        assert health["camera"]["ok"] is False and "--no-camera" in health["camera"]["text"]
        with urllib.request.urlopen(url + "/", timeout=10) as resp:
            assert resp.status == 200
        over, _ = read_until(proc, "game over", timeout=120)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    game = simulate(seed=0, hands=2)
    calls = sum(1 for e in game if e["type"] == "call")
    assert f"{calls} button presses" in over
    check_judged_as_recorded(journal, game)


def test_demo_discards_go_through_rendered_frames_and_the_tracker(tmp_path, shared_data):
    journal = tmp_path / "demo.sqlite"
    proc = start_demo("--simulated", "--hands", "1", "--speed", "80", "--exit-at-end",
                      "--no-web", "--journal", str(journal))
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    assert "rendered table frames through the real tracker" in out
    over = [l for l in out.splitlines() if l.startswith("game over")][0]
    seen = int(over.split(" discards seen by the tracker")[0].rsplit(" ", 1)[1])
    game = simulate(seed=0, hands=1)
    discards = sum(1 for e in game if e["type"] == "discard")
    # the tracker, not the demo's safety net, delivered every discard and nothing else
    assert seen == discards
    assert "(safety net used 0 times: 0 missed, 0 false reports dropped)" in over
    events = check_judged_as_recorded(journal, game)
    assert sum(1 for e in events if "confidence" in e) == seen  # the tracker's own reports
    # the journal, which the production dashboard reads, has the simulated camera and
    # buttons working
    health = {h["component"]: h["ok"] for h in Journal(journal).health()}
    assert health["camera"] is True and health["buttons"] is True


def wait_for_state(url, condition, timeout=60):
    """The dashboard's state once ``condition(state)`` holds (polled: the demo is another
    process)."""
    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(url + "/state.json", timeout=10) as resp:
            state = json.load(resp)
        if condition(state):
            return state
        assert time.monotonic() < deadline, f"the dashboard never showed it: {state['events']}"
        time.sleep(0.05)


def discards_shown(state):
    return sum(e["type"] == "discard" for e in state["events"])


def test_demo_uses_a_real_tenhou_game_and_stops_on_ctrl_c(shared_data):
    proc = start_demo("--speed", "60")
    try:
        first, _ = read_until(proc, "riichi-referee demo:")
        assert "real Tenhou game" in first
        journal, _ = read_until(proc, "journal:")
        folder = Path(journal.split(":", 1)[1].strip()).parent
        line, _ = read_until(proc, "dashboard:")
        # mid-game: a discard shown to the camera is most likely on its way as Ctrl-C comes
        wait_for_state(line.split()[1], lambda state: discards_shown(state) >= 3)
        proc.send_signal(signal.SIGINT)
        # both pipes are read while it stops, so a full one cannot hold it up
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0
        assert "Traceback" not in err
        # stopping says so and nothing more: a discard cut short is not a tracker's miss
        # (a slow machine's misses during play, before it, are real and may be reported)
        assert err.splitlines()[-1] == "stopping", err
        assert not folder.exists()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_demo_stops_on_sigterm_as_on_ctrl_c_and_removes_its_temporary_journal():
    """A service manager stops with SIGTERM: the demo stops cleanly, as on Ctrl-C, and leaves
    no temporary journal folder behind."""
    proc = start_demo("--simulated", "--hands", "2", "--speed", "40", "--no-camera")
    try:
        journal, _ = read_until(proc, "journal:")
        folder = Path(journal.split(":", 1)[1].strip()).parent
        assert folder.name.startswith("riichi-demo-") and folder.exists()
        line, _ = read_until(proc, "dashboard:")
        wait_for_state(line.split()[1], lambda state: discards_shown(state) >= 1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert err.strip() == "stopping"
        assert not folder.exists()
    finally:
        if proc.poll() is None:
            proc.kill()


class _Table:
    def __init__(self):
        self.journaled = []

    def events(self):
        return list(self.journaled)


class _Service:
    def __init__(self):
        self.table = _Table()
        self.submitted = []

    def submit(self, event, source):
        self.submitted.append(event)


class _SlowCamera:
    """A camera whose tracker has not reported what it was shown (yet)."""

    def __init__(self):
        from app.demo import ExpectedDiscards
        self.expected = ExpectedDiscards()
        self.shown = threading.Event()

    def expect(self, seat, tile):
        self.expected.expect(seat, tile)

    def cancel(self, seat, tile):
        return self.expected.withdraw(seat, tile)

    def show(self, change, t_mono, render=True):
        self.shown.set()
        return 1

    def wait_read(self, number, timeout):
        time.sleep(min(timeout, 0.01))   # its tracker never gets through the frames
        return False


DISCARD = {"type": "discard", "t": 1.0, "seat": 3, "tile": "2s"}


def test_stopping_while_a_discard_is_shown_is_not_a_miss(caplog):
    """Ctrl-C while the camera is being shown a discard: the discard is not played, and
    nothing is reported missed, handed over, or dropped as the tracker's mistake."""
    from app.demo import SimulatedTable
    from table.clock import TableClock

    service, camera = _Service(), _SlowCamera()
    player = SimulatedTable(service, None, TableClock(), [], camera=camera)
    showing = threading.Thread(target=player._camera_discard, args=(DISCARD, 0.0))
    with caplog.at_level(logging.INFO, logger="riichi-referee.demo"):
        showing.start()
        assert camera.shown.wait(10)
        player.stop_event.set()
        showing.join(10)
        # the tracker reports it as the demo stops: late, not false
        assert camera.expected.filter([dict(DISCARD, confidence=0.97)]) == []
    assert not showing.is_alive()
    assert service.submitted == [] and player.missed == 0 and player.seen == 0
    assert camera.expected.false_reports == []
    assert caplog.records == []


def test_a_discard_the_tracker_is_slow_with_is_handed_over_once(caplog):
    """While playing, the safety net still works and says so: a discard the tracker has not
    reported in time is handed over directly, and its late report is not a false one."""
    from app.demo import SimulatedTable
    from table.clock import TableClock

    service, camera = _Service(), _SlowCamera()
    player = SimulatedTable(service, None, TableClock(), [], camera=camera)
    player.CAMERA_WAIT = 0.05
    with caplog.at_level(logging.INFO, logger="riichi-referee.demo"):
        player._camera_discard(DISCARD, 0.0)
        assert camera.expected.filter([dict(DISCARD, confidence=0.97)]) == []
    assert [(e["seat"], e["tile"]) for e in service.submitted] == [(3, "2s")]
    assert player.missed == 1 and camera.expected.false_reports == []
    assert [r.getMessage() for r in caplog.records] == [
        "the tracker did not report seat 3's 2s within 0.05 s; handing it over directly"]


def test_a_report_of_no_discard_being_made_is_dropped_and_said(caplog):
    from app.demo import ExpectedDiscards

    expected = ExpectedDiscards()
    expected.expect(0, "5m")
    wrong = {"type": "discard", "t": 2.0, "seat": 1, "tile": "5m"}
    right = {"type": "discard", "t": 2.0, "seat": 0, "tile": "5m"}
    with caplog.at_level(logging.INFO, logger="riichi-referee.demo"):
        assert expected.filter([wrong, right, right]) == [right]
    assert expected.false_reports == [wrong, right]     # the second 5m was made only once
    assert len(caplog.records) == 2 and "kept off the table" in caplog.records[0].getMessage()


def test_demo_port_in_use_is_one_clear_line():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "app", "demo", "--no-browser",
                                 "--simulated", "--hands", "1", "--port", str(port)],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--port 0" in result.stderr


def test_demo_plays_a_hall_of_tables_into_a_broker_and_the_hall_gets_every_event():
    from hall.mosquitto import find_mosquitto
    if find_mosquitto() is None:
        import pytest
        pytest.skip("mosquitto not installed (apt-get install mosquitto)")
    proc = start_demo("--hall", "--tables", "3", "--simulated", "--hands", "1", "--speed", "60",
                      "--exit-at-end")
    try:
        line, _ = read_until(proc, "hall:")
        url = line.split()[1]
        with urllib.request.urlopen(url + "/healthz", timeout=5) as r:
            assert json.load(r)["ok"] is True
        with urllib.request.urlopen(url + "/", timeout=5) as r:
            assert r.url.endswith("/login")          # the hall is behind the PIN
        line, _ = read_until(proc, "all 3 games over", timeout=120)
        shown, played = map(int, re.search(r"the hall has (\d+) events of (\d+)", line).groups())
        assert shown == played > 0
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(10)
