"""The table service: journal before judge, restart where it stopped, no ruling twice."""
import queue
import threading
import time

import pytest

from table.clock import TableClock, VirtualClock
from table.journal import Journal
from table.service import ResumableTable, TableService


class FakeReferee:
    """Just enough of the Referee contract: discards open 3 s windows; a window that got a
    press closes with a claim ruling; ids r1, r2... per Referee, deterministic."""

    def __init__(self, ruleset=None):
        self.window = None
        self.n = 0
        self.ponds = [[], [], [], []]
        self.t = 0.0

    def _close(self, t):
        out = []
        w = self.window
        if w is not None and w["deadline"] <= t:
            self.window = None
            if w["presses"]:
                self.n += 1
                out.append({"type": "claim", "t": w["deadline"], "ruling_id": f"r{self.n}",
                            "discard_seat": w["seat"], "tile": w["tile"],
                            "winners": [w["presses"][0]], "rejected": [], "window": 3.0})
        return out

    def feed(self, event):
        out = self._close(event["t"])
        self.t = event["t"]
        if event["type"] == "discard":
            out += self._close(float("inf"))
            self.ponds[event["seat"]].append(event["tile"])
            self.window = {"seat": event["seat"], "tile": event["tile"],
                           "deadline": event["t"] + 3.0, "presses": []}
        elif event["type"] == "call" and self.window is not None:
            self.window["presses"].append({"seat": event["seat"], "call": event["call"]})
        elif event["type"] == "referee" and event["action"] == "penalty":
            self.n += 1
            out.append({"type": "violation", "t": event["t"], "ruling_id": f"r{self.n}",
                        "seat": 0, "kind": "procedure", "penalty": "warning", "rule": "x",
                        "text": event["text"]})
        return out

    def advance(self, t):
        return self._close(t)

    def finish(self):
        return self._close(float("inf"))

    def next_deadline(self):
        return self.window["deadline"] if self.window else None

    def snapshot(self):
        return {"t": self.t, "ponds": [list(p) for p in self.ponds],
                "window": dict(self.window) if self.window else None, "n": self.n}


GAME = [
    {"type": "game_start", "t": 0.0, "ruleset": "ema2012", "scores": [25000] * 4},
    {"type": "discard", "t": 1.0, "seat": 0, "tile": "5m"},
    {"type": "call", "t": 2.0, "seat": 1, "call": "pon"},
    {"type": "discard", "t": 10.0, "seat": 1, "tile": "1z"},
    {"type": "discard", "t": 20.0, "seat": 2, "tile": "2p"},
    {"type": "call", "t": 21.0, "seat": 3, "call": "chii"},
]


def make_table(path, clock=None):
    return ResumableTable(Journal(path), referee_factory=FakeReferee,
                          clock=clock or VirtualClock())


def test_every_event_is_journaled_before_it_is_judged(tmp_path):
    table = make_table(tmp_path / "j.sqlite")
    seen = []

    class Spy(FakeReferee):
        def feed(self, event):
            seen.append(len(Journal(tmp_path / "j.sqlite", readonly=True).game_events()))
            return super().feed(event)

    table.referee = Spy()
    table._factory = Spy
    for e in GAME:
        table.submit(e)
    assert seen == [1, 2, 3, 4, 5, 6]


def test_a_health_is_journaled_before_it_is_announced(tmp_path):
    # the hall link reads the journal's health when the hub announces one: it must be there
    table = make_table(tmp_path / "j.sqlite")
    in_journal = []
    announce = table.hub.publish

    def publish(kind, data):
        if kind == "health":
            in_journal.append({(h["component"], h["ok"], h["text"]) for h in
                               Journal(tmp_path / "j.sqlite", readonly=True).health()})
        return announce(kind, data)

    table.hub.publish = publish
    table.set_health("camera", True, "a recorded game stands in for it")
    table.set_health("buttons", False, "seat 2 ron button chatters")
    assert ("camera", True, "a recorded game stands in for it") in in_journal[0]
    assert ("buttons", False, "seat 2 ron button chatters") in in_journal[1]


def test_restart_resumes_without_sending_a_ruling_twice(tmp_path):
    path = tmp_path / "j.sqlite"
    table = make_table(path)
    for e in GAME[:4]:
        table.submit(e)
    assert [r["ruling_id"] for r in table.rulings()] == ["r1"]
    # a new process: the same journal, a fresh table
    again = make_table(path)
    sub = again.hub.subscribe()
    assert again.restore() == []
    assert again.snapshot()["ponds"] == table.snapshot()["ponds"]
    assert [r["ruling_id"] for r in again.rulings()] == ["r1"]
    for e in GAME[4:]:
        again.submit(e)
    again.tick(100.0)
    ids = [r["ruling_id"] for _, r in Journal(path).game_rulings()]
    assert ids == ["r1", "r2"]
    sent = [m["data"]["ruling_id"] for m in iter(lambda: sub.get(0.01), None)
            if m["kind"] == "ruling"]
    assert sent == ["r2"]


def test_rulings_lost_in_a_crash_are_stored_and_sent_once(tmp_path):
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    for e in GAME[:4]:  # journaled, but the process died before judging the last one
        j.append_event(e)
    table = make_table(path)
    sub = table.hub.subscribe()
    fresh = table.restore()
    assert [r["ruling_id"] for r in fresh] == ["r1"]
    assert [r["ruling_id"] for _, r in j.game_rulings()] == ["r1"]
    sent = [m for m in iter(lambda: sub.get(0.01), None) if m["kind"] == "ruling"]
    assert len(sent) == 1
    # a second restart sends nothing
    table2 = make_table(path)
    assert table2.restore() == []


def test_a_window_closed_by_the_timer_before_a_crash_is_not_sent_again(tmp_path):
    path = tmp_path / "j.sqlite"
    table = make_table(path)
    for e in GAME[:3]:
        table.submit(e)
    assert [r["ruling_id"] for r in table.tick(5.0)] == ["r1"]  # timer closed it, then crash
    again = make_table(path)
    sub = again.hub.subscribe()
    assert again.restore() == []
    assert again.snapshot()["window"] is None  # the restored table knows it closed
    again.submit(GAME[3])
    assert [r["ruling_id"] for _, r in Journal(path).game_rulings()] == ["r1"]
    assert not [m for m in iter(lambda: sub.get(0.01), None) if m["kind"] == "ruling"]


def test_a_new_game_starts_ruling_ids_afresh_and_restores_only_itself(tmp_path):
    path = tmp_path / "j.sqlite"
    table = make_table(path)
    for e in GAME:
        table.submit(e)
    table.tick(100.0)
    second = [dict(e, t=e["t"] + 200) for e in GAME[:3]]
    for e in second:
        table.submit(e)
    table.tick(300.0)
    assert [r["ruling_id"] for r in table.rulings()] == ["r1"]
    again = make_table(path)
    again.restore()
    assert again.events() == second
    assert again.snapshot()["ponds"][0] == ["5m"]


def test_journal_failure_refuses_events_and_recovers(tmp_path):
    path = tmp_path / "j.sqlite"
    table = make_table(path)
    svc = TableService(table, clock=table.clock, inbox=False)
    for e in GAME[:2]:
        assert svc.submit(e, "test") is not None
    table.journal._db.execute("PRAGMA query_only = 1")
    assert svc.submit(GAME[2], "test") is None  # refused, not judged, no exception
    assert table.health["journal"]["ok"] is False
    assert "read-only" in table.health["journal"]["text"]
    assert len(table.events()) == 2
    assert svc.check()  # reported in the status line
    table.journal._db.execute("PRAGMA query_only = 0")
    assert svc.submit(GAME[2], "test") is not None
    assert table.health["journal"]["ok"] is True


def test_button_presses_are_submitted_on_the_table_clock(tmp_path):
    path = tmp_path / "j.sqlite"
    clock = TableClock(offset=1000.0)
    table = make_table(path, clock=clock)
    buttons = queue.Queue()
    svc = TableService(table, clock=clock, buttons=buttons, inbox=False)
    svc.start()
    try:
        t = time.monotonic_ns() / 1e9
        table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "5m"})
        buttons.put({"type": "call", "t": t, "seat": 1, "call": "pon"})
        buttons.put({"fault": "seat 2 pon button held down for 30 s", "ok": False,
                     "text": "seat 2 pon button stuck"})
        deadline = time.monotonic() + 30  # a failure limit: the loop waits for the condition
        while time.monotonic() < deadline and (
                table.health.get("buttons", {}).get("ok") is not False or len(table.events()) < 2):
            time.sleep(0.01)
        call = table.events()[-1]
        assert call["type"] == "call" and call["t"] >= 1000.0
        assert table.health["buttons"]["ok"] is False
    finally:
        svc.stop()


def test_the_timer_closes_a_window_with_no_further_event(tmp_path):
    clock = TableClock(speed=20.0)  # 3 s of table time in 0.15 s
    table = make_table(tmp_path / "j.sqlite", clock=clock)
    svc = TableService(table, clock=clock, inbox=False)
    svc.start()
    try:
        table.submit({"type": "discard", "t": clock(), "seat": 0, "tile": "5m"})
        table.submit({"type": "call", "t": clock(), "seat": 1, "call": "pon"})
        svc._wake.set()
        deadline = time.monotonic() + 30  # a failure limit: the loop waits for the condition
        while time.monotonic() < deadline and not table.rulings():
            time.sleep(0.01)
        assert [r["type"] for r in table.rulings()] == ["claim"]
    finally:
        svc.stop()


def test_the_dashboard_sees_camera_and_buttons_working_from_the_start(tmp_path):
    clock = TableClock()
    table = make_table(tmp_path / "j.sqlite", clock=clock)
    frames = threading.Event()

    def camera():
        frames.wait(5)  # the camera is still opening: no verdict yet
        while not svc.stop_event.is_set():
            yield time.monotonic(), []
            time.sleep(0.02)

    svc = TableService(table, clock=clock, buttons=queue.Queue(), cameras=[camera()],
                       camera_timeout=5.0, inbox=False)
    svc.start()
    try:
        deadline = time.monotonic() + 30  # a failure limit: the loop waits for the condition
        while time.monotonic() < deadline and "buttons" not in table.health:
            time.sleep(0.01)
        assert table.health["buttons"]["ok"] is True
        assert "camera" not in table.health
        frames.set()
        while time.monotonic() < deadline and "camera" not in table.health:
            time.sleep(0.01)
        assert table.health["camera"]["ok"] is True
        # journaled, so the production dashboard (another process) shows it too
        stored = {h["component"]: h["ok"] for h in table.journal.health()}
        assert stored == {"buttons": True, "camera": True}
    finally:
        frames.set()
        svc.stop()


def eventually(condition, timeout=15.0):
    """``condition()``'s value once it is true, polled until ``timeout`` s (a limit on a
    failure, not a wait: it returns as soon as the condition holds); its last value if never."""
    deadline = time.monotonic() + timeout
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return value


def test_a_camera_that_stops_is_reported_while_buttons_keep_working(tmp_path):
    clock = TableClock()
    table = make_table(tmp_path / "j.sqlite", clock=clock)
    buttons = queue.Queue()
    stop_camera = threading.Event()

    def camera():
        yield time.monotonic(), [{"type": "discard", "t": time.monotonic(), "seat": 0,
                                  "tile": "5m"}]
        stop_camera.wait(5)  # the cable came loose: no frame, no error, just silence
        return

    svc = TableService(table, clock=clock, buttons=buttons, cameras=[camera()],
                       camera_timeout=0.2, inbox=False)
    svc.start()
    try:
        # the camera's silence is noticed once it outlasts camera_timeout (0.2 s)
        problems = eventually(lambda: svc.check() and table.health["camera"]["ok"] is False)
        assert table.health["camera"]["ok"] is False
        assert "no camera frame" in table.health["camera"]["text"]
        assert problems
        buttons.put({"type": "call", "t": time.monotonic(), "seat": 1, "call": "pon"})
        deadline = time.monotonic() + 30  # a failure limit: the loop waits for the condition
        while time.monotonic() < deadline and len(table.events()) < 2:
            time.sleep(0.01)
        assert table.events()[-1]["type"] == "call"
    finally:
        stop_camera.set()
        svc.stop()


def test_a_camera_that_comes_back_clears_the_warning(tmp_path):
    """A live camera is opened again after a drop-out (vision.tracking.service_feed.reopening): once
    its frames flow again the dashboard's camera warning goes away by itself."""
    clock = TableClock()
    table = make_table(tmp_path / "j.sqlite", clock=clock)
    back, done = threading.Event(), threading.Event()

    def camera():
        yield time.monotonic(), []
        back.wait(5)  # reopening the camera
        while not done.is_set():
            yield time.monotonic(), []
            time.sleep(0.02)

    svc = TableService(table, clock=clock, cameras=[camera()], camera_timeout=0.2, inbox=False)
    svc.start()
    try:
        eventually(lambda: svc.check() and table.health["camera"]["ok"] is False)
        assert table.health["camera"]["ok"] is False
        back.set()
        eventually(lambda: svc.check() == [])
        assert svc.check() == []
        assert table.health["camera"]["ok"] is True
    finally:
        back.set()
        done.set()
        svc.stop()


def test_a_glare_the_camera_reports_is_shown_to_the_referee_and_cleared(tmp_path):
    """A camera that can say how it sees the table (a glare washing out a pond:
    CameraFeed.view_health) is asked now and then; the dashboard's health "view" says what it
    says once it is not all well, journaled, and goes back to well when the glare has gone. A
    camera all well from the start adds no "view" to the dashboard."""
    clock = TableClock()
    table = make_table(tmp_path / "j.sqlite", clock=clock)
    said = [(True, "")]
    asked = threading.Event()
    done = threading.Event()

    class Camera:
        def __iter__(self):
            while not done.is_set():
                yield time.monotonic(), []
                time.sleep(0.01)

        def view_health(self):
            asked.set()
            return said[-1]

    svc = TableService(table, clock=clock, cameras=[Camera()], inbox=False)
    svc.VIEW_EVERY = 0.05
    svc.start()
    try:
        eventually(asked.is_set)
        assert "view" not in table.health
        said.append((False, "a glare washes out pond2 (85%): tiles there are read late or not "
                            "at all; move the lamp or turn the camera"))
        eventually(lambda: table.health.get("view", {}).get("ok") is False)
        assert "pond2 (85%)" in table.health["view"]["text"]
        assert Journal(tmp_path / "j.sqlite", readonly=True).health()[-1]["component"] == "view"
        said.append((True, ""))
        eventually(lambda: table.health["view"]["ok"] is True)
        assert table.health["view"]["text"] == ""
    finally:
        done.set()
        svc.stop()


def test_dashboard_actions_come_through_the_inbox(tmp_path):
    path = tmp_path / "j.sqlite"
    table = make_table(path, clock=TableClock())
    svc = TableService(table, clock=table.clock)
    svc.start()
    try:
        writer = Journal(path)
        item = writer.inbox_put({"type": "referee", "t": 0.0, "action": "penalty",
                                 "text": "slow play"})
        deadline = time.monotonic() + 30  # a failure limit: the loop waits for the condition
        while time.monotonic() < deadline and writer.inbox_result(item)[0] is None:
            time.sleep(0.02)
        seq, error = writer.inbox_result(item)
        assert error is None and seq == table.last_seq
        assert [r["kind"] for r in writer.rulings_of(seq)] == ["procedure"]
    finally:
        svc.stop()


def test_recorded_game_resumes_after_the_journaled_events(tmp_path):
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    for e in GAME[:3]:
        j.append_event(e)
    table = make_table(path)
    svc = TableService(table, clock=table.clock, recorded=GAME, inbox=False)
    svc.start()
    assert svc.finished.wait(5)
    svc.stop()
    assert [e for _, e in Journal(path).game_events()] == GAME
    assert [r["ruling_id"] for _, r in Journal(path).game_rulings()] == ["r1", "r2"]


def test_a_paced_recorded_game_is_held_where_the_pace_says(tmp_path):
    from table.pace import Pace
    path = tmp_path / "j.sqlite"
    table = make_table(path)
    pace = Pace(2)
    played = []
    svc = TableService(table, clock=table.clock, recorded=GAME, inbox=False, pace=pace,
                       on_submit=lambda event, seq: played.append(seq))
    held = threading.Event()
    real_wait = pace.wait

    def wait(index, stop):          # the service reaching the hold is the condition waited for
        if index == 4:
            held.set()
        return real_wait(index, stop)

    pace.wait = wait
    svc.start()
    pace.allow(4)
    assert held.wait(5)
    assert played == [1, 2, 3, 4] and not svc.finished.is_set()
    pace.allow(None)
    assert svc.finished.wait(5)
    svc.stop()
    assert [e for _, e in Journal(path).game_events()] == GAME


# the player thread dying of the planted error is what the test is about
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_recorded_game_whose_player_dies_stops_the_service_instead_of_hanging(tmp_path):
    class Broken(FakeReferee):
        def feed(self, event):
            if event["type"] == "call":
                raise RuntimeError("a bug in the rules core")
            return super().feed(event)

    table = make_table(tmp_path / "j.sqlite")
    table.referee = Broken()
    table._factory = Broken
    svc = TableService(table, clock=table.clock, recorded=GAME, inbox=False)
    svc.exit_at_end = True
    result = []
    runner = threading.Thread(target=lambda: result.append(svc.run(install_signals=False)),
                              daemon=True)
    runner.start()
    runner.join(10)
    assert not runner.is_alive(), "the service kept waiting for a game that could not end"
    assert result == [1]
    assert not svc.finished.is_set()


def test_a_press_made_before_its_discard_is_reported_is_judged_on_that_discard(tmp_path):
    """The camera stamps a discard with the frame that first showed it but reports it only
    once read, a while later; a pon pressed in between waits for it instead of landing on
    no window (or the window before) and pushing the discard's time past itself."""
    clock = TableClock()
    table = make_table(tmp_path / "j.sqlite", clock=clock)
    buttons = queue.Queue()
    pressed, done = threading.Event(), threading.Event()
    shown = time.monotonic() + 0.2          # the first frame showing the tile

    def camera():
        while time.monotonic() < shown + 0.3:
            # reading the tile: nothing reported after the frame before the tile
            yield min(time.monotonic(), shown - 0.033), []
            time.sleep(0.02)
        pressed.wait(2)
        yield time.monotonic(), [{"type": "discard", "t": shown, "seat": 0, "tile": "5m"}]
        while not done.is_set():
            yield time.monotonic(), []
            time.sleep(0.02)

    svc = TableService(table, clock=clock, buttons=buttons, cameras=[camera()], inbox=False)
    svc.start()
    try:
        while time.monotonic() < shown + 0.15:
            time.sleep(0.01)
        buttons.put({"type": "call", "t": shown + 0.1, "seat": 1, "call": "pon"})
        time.sleep(0.05)
        assert table.events() == []          # the press waits for the camera
        pressed.set()
        deadline = time.monotonic() + 30  # a failure limit: the loop waits for the condition
        while time.monotonic() < deadline and len(table.events()) < 2:
            time.sleep(0.01)
        discard, call = table.events()
        assert (discard["type"], call["type"]) == ("discard", "call")
        assert discard["t"] == pytest.approx(clock.from_mono(shown))
        assert call["t"] == pytest.approx(clock.from_mono(shown + 0.1))
        assert table.referee.window["presses"] == [{"seat": 1, "call": "pon"}]
    finally:
        done.set()
        svc.stop()
