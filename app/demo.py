"""``riichi-referee demo``: a simulated table playing a whole game, no hardware needed.

The same table service as ``run``, with the table simulated around it:

* the game is a real Tenhou game (``../shared/data/tenhou``, via :mod:`referee.tenhou`) when
  the shared data is there, else one the project builds (:func:`referee.simulate.simulate`);
* every call press goes through gpiozero ``MockFactory`` pins (driven low and high like a
  contact closing) and the real :class:`hardware.buttons.SeatButtons` code, debounce and all,
  and every ruling lights the seats through :class:`hardware.lights.SeatLights` on mock pins;
* discards are drawn into rendered top-down table frames that go through the real tracker
  (:class:`vision.tracking.tracker.TableTracker`) when the tile art is in ``../shared/data/tiles``;
  melds, dora flips and reveals (and discards without the art, or with ``--no-camera``) are
  handed to the table as the tracker would hand them over;
* the dashboard runs in this process at http://127.0.0.1:8000 on the same table.

``--hall`` (with ``--tables N``) plays a whole hall instead: see :mod:`app.hall_demo`.

``--speed 10`` plays ten times faster (the claim window shrinks with it: the table clock runs
``speed`` times faster). Ctrl-C stops cleanly. The journal goes to a temporary folder unless
``--journal`` names one (then ``riichi-referee export --journal PATH`` gives the game back).
"""
from __future__ import annotations

import dataclasses
import logging
import queue
import socket
import threading
import time
from pathlib import Path

from referee.errors import RefereeError, unreadable
from referee.events import parse_event, read_events
from referee.tiles import same_kind
from table.clock import TableClock, monotonic
from table.paths import shared_data_dir
from table.service import TableService

log = logging.getLogger("riichi-referee.demo")

DEMO_PIN = "1234"


class DemoClock(TableClock):
    """The table clock of the demo, which stops while the simulated camera's frames are being
    rendered and tracked: a real camera sees the table as it plays, while here drawing and
    reading a frame takes real time the players would not wait for (at 25x, a tenth of a
    second is 2.5 s of play, most of a claim window).

    It also stops at the time the simulated players' next move is due until they make it
    (:meth:`hold_at`): at 40x a pon pressed a second after the discard has 50 ms of real time
    before its window closes, and a busy machine that wakes the players' thread that much
    late would otherwise have them press too late, and the table judge a game that was not
    the one recorded."""

    def __init__(self, offset: float = 0.0, speed: float = 1.0):
        super().__init__(offset=offset, speed=speed)
        self._lock = threading.Lock()
        self._paused_at: float | None = None
        self._paused_total = 0.0
        self._hold: float | None = None

    def hold_at(self, t: float | None) -> None:
        """Let the clock run up to table time ``t`` and stop there until moved on by the next
        call (None: run freely). Time spent stopped is not counted, as in :meth:`pause`."""
        with self._lock:
            if self._hold is not None:
                over = self._running(monotonic()) - self._hold
                if over > 0:
                    self._paused_total += over / self.speed
            self._hold = t

    def pause(self) -> None:
        with self._lock:
            if self._paused_at is None:
                self._paused_at = monotonic()

    def resume(self) -> None:
        with self._lock:
            if self._paused_at is not None:
                self._paused_total += monotonic() - self._paused_at
                self._paused_at = None

    def _running(self, m: float) -> float:
        """Table time at monotonic ``m`` but for the hold (the lock is held)."""
        if self._paused_at is not None and m > self._paused_at:
            m = self._paused_at
        return self.origin + self.offset + (m - self.origin - self._paused_total) * self.speed

    def from_mono(self, m: float) -> float:
        with self._lock:
            t = self._running(m)
            return t if self._hold is None else min(t, self._hold)


class ExpectedDiscards:
    """The discards the demo is about to show the camera, against which the tracker's reports
    are checked: the demo knows the truth, so a report that is not one of them is a false
    report, kept off the table (which would otherwise judge a game that was never played).

    A discard the demo stopped waiting for (:meth:`withdraw`: handed over directly when the
    tracker was slow, or the demo is stopping) may still be reported afterwards: that is the
    tracker being late, not wrong, and is dropped without counting as a false report."""

    def __init__(self):
        self._lock = threading.Lock()
        self._expected: list[tuple[int, str]] = []
        self._withdrawn: list[tuple[int, str]] = []
        self.false_reports: list[dict] = []
        self.late_reports: list[dict] = []

    def expect(self, seat: int, tile: str) -> None:
        with self._lock:
            self._expected.append((seat, tile))

    def withdraw(self, seat: int, tile: str) -> bool:
        """Stop waiting for a discard; False if the tracker reported it meanwhile."""
        with self._lock:
            if (seat, tile) in self._expected:
                self._expected.remove((seat, tile))
                self._withdrawn.append((seat, tile))
                return True
            return False

    def filter(self, events: list[dict]) -> list[dict]:
        """Of the tracker's ``events``, the discards being made (each one once)."""
        with self._lock:
            kept = []
            for event in events:
                key = (event.get("seat"), event.get("tile"))
                if event["type"] == "discard" and key in self._expected:
                    self._expected.remove(key)
                    kept.append(event)
                elif event["type"] == "discard" and key in self._withdrawn:
                    self._withdrawn.remove(key)
                    self.late_reports.append(event)
                    log.debug("the tracker reported %s after the demo stopped waiting for it",
                              event)
                else:
                    self.false_reports.append(event)
                    log.warning("the tracker reported %s, not a discard being made; "
                                "kept off the table", event)
            return kept


class SimulatedCamera:
    """The camera over the simulated table: renders the ponds as the game goes and runs every
    frame through the real tracker (:class:`vision.tracking.tracker.TableTracker`), yielding per
    frame
    ``(t_mono, events)`` as :func:`vision.tracking.service_feed.camera_feed` does on a real table.

    Tiles are read as on a real table with no set enrolled
    (:func:`vision.reading.tileset.load_classifier`:
    the shipped model); over the whole first Tenhou game it reads all 811 discards with no false
    report (``expect`` below is the safety net). Only the ponds are drawn (melds, dora and
    revealed hands reach the table directly), so the tracker reports discards, riichi
    included.
    """

    FRAMES_PER_CHANGE = 3  # the tracker confirms a tile seen in 3 frames in a row

    def __init__(self, speed: float):
        from vision.camera.zones import default_zones
        from vision.finding.learned import shared_finder
        from vision.reading.tileset import load_classifier
        from vision.synthesis.synthetic import TableState
        from vision.tracking.tracker import TableTracker

        self._state_type = TableState
        self.tracker = TableTracker(default_zones(), load_classifier(threads=1), px_per_mm=2.0,
                                    stable_frames=self.FRAMES_PER_CHANGE,
                                    finder=shared_finder(threads=1))
        self.state = self._new_state()
        self.period = 0.1 / speed  # real seconds between frames of one change
        self.changes: queue.Queue = queue.Queue()
        self.stop_event = threading.Event()
        self.expected = ExpectedDiscards()
        # changes shown, and those whose frames the tracker has all read (wait_read)
        self._shown = 0
        self._read = 0
        self._read_changed = threading.Condition()

    def _new_state(self):
        state = self._state_type()
        state.walls = False
        return state

    @staticmethod
    def available() -> bool:
        """True when the tile art is there to render (else the demo skips the camera)."""
        try:
            from vision.synthesis.synthetic import regular_art_dir
            return regular_art_dir() is not None
        except ImportError:
            return False

    def show(self, change, t_mono: float, render: bool = True) -> int:
        """Apply ``change(state)`` (or ``"new_hand"``) at ``t_mono``; render if asked. Returns
        the change's number, for :meth:`wait_read`."""
        with self._read_changed:
            self._shown += 1
            number = self._shown
            self.changes.put((change, t_mono, render))
        return number

    def wait_read(self, number: int, timeout: float) -> bool:
        """Wait until the tracker has read every frame of change ``number`` and the table has
        been handed what it reported (False: not within ``timeout`` seconds, or stopping)."""
        with self._read_changed:
            return self._read_changed.wait_for(
                lambda: self._read >= number or self.stop_event.is_set(), timeout) and \
                self._read >= number

    def _done_with(self, number: int) -> None:
        with self._read_changed:
            self._read = number
            self._read_changed.notify_all()

    def __iter__(self):
        from vision.synthesis.synthetic import render_state, tile_face

        number = 0
        while not self.stop_event.is_set():
            try:
                change, t_mono, render = self.changes.get(timeout=0.1)
            except queue.Empty:
                # nothing moved: an empty frame keeps health "ok" and tells the table that
                # no discard is on its way (seat-button presses wait for that)
                yield monotonic(), []
                continue
            number += 1
            if change == "new_hand":
                self.state = self._new_state()
                self.tracker.new_hand()
            else:
                change(self.state)
            if render and change != "new_hand":
                frame = render_state(self.state)
                # Drawn at one scale, each face is shrunk into its sprite once (the sprites are
                # kept); the full-size art kept for every code held 67 MB of the demo's memory
                # (bench/service.py). A code first seen later reads its face again (~40 ms).
                tile_face.cache_clear()
                # The frames of one change are one picture: the finder would find the same
                # tiles in each, so it looks once (it is most of a frame's time).
                finding = self.tracker.find_tiles(frame, self.tracker.px_per_mm)
                # Enough frames for the tracker to confirm a new tile, or to see a called one
                # gone (else a discard landing where it lay would be taken for it).
                for k in range(max(self.FRAMES_PER_CHANGE, self.tracker.gone_frames)):
                    t = t_mono + k * self.period
                    yield t, self.expected.filter(self.tracker.update(frame, int(t * 1e9),
                                                                      finding=finding))
            # here the service has asked for the next frame: it has handed the table what the
            # tracker reported in the last one
            self._done_with(number)

    def expect(self, seat: int, tile: str) -> None:
        """The discard the game is about to show (see :class:`ExpectedDiscards`). A safety
        net only: over whole Tenhou games the tracker makes no false report
        (tests/test_tracker.py checks a stretch of one, and the demo prints the count)."""
        self.expected.expect(seat, tile)

    def cancel(self, seat: int, tile: str) -> bool:
        """Stop waiting for a discard; False if the tracker reported it meanwhile."""
        return self.expected.withdraw(seat, tile)

    @property
    def false_reports(self) -> list[dict]:
        return self.expected.false_reports

    def close(self) -> None:
        with self._read_changed:
            self.stop_event.set()
            self._read_changed.notify_all()


def _take_from_pond(seat: int, tile: str):
    def change(state):
        pond = state.ponds[seat]
        for i in range(len(pond) - 1, -1, -1):
            if same_kind(pond[i][0], tile):
                del pond[i]
                return
    return change


class SimulatedTable:
    """Plays a game's events at the table: presses on mock pins, the rest as the camera would.

    ``service``: the running :class:`TableService`; ``buttons``: the real SeatButtons on a
    MockFactory; ``clock``: the table clock (``speed`` times real time).
    """

    #: Real seconds a discard shown to the camera may take to reach the table before the
    #: camera is taken to be stuck and the discard is handed over directly. The table clock is
    #: paused meanwhile, so nothing is gained by giving up sooner: on a busy machine drawing
    #: and reading a change's frames took over 2 s.
    CAMERA_WAIT = 30.0
    #: Real seconds a press may take to reach the table before the buttons are taken to be
    #: stuck and play goes on.
    PRESS_WAIT = 30.0

    def __init__(self, service: TableService, buttons, clock: TableClock, events: list[dict],
                 press_seconds: float = 0.08, camera: SimulatedCamera | None = None):
        self.service = service
        self.table = service.table
        self.buttons = buttons
        self.clock = clock
        self.events = [parse_event(dict(e)) for e in events]
        self.press_seconds = press_seconds
        self.stop_event = threading.Event()
        self.done = threading.Event()
        self.presses = 0
        self.camera = camera
        self.seen = 0      # discards the tracker reported
        self.missed = 0    # discards the tracker did not report in time (handed over directly)
        self.thread = threading.Thread(target=self._run, name="simulated-table", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _wait_for(self, before: int, seconds: float) -> bool:
        """Wait until the table has journaled an event past ``before``."""
        deadline = time.monotonic() + seconds
        while len(self.table.events()) <= before:
            if time.monotonic() > deadline or self.stop_event.is_set():
                return False
            time.sleep(0.001)
        return True

    def _camera_discard(self, event: dict, due_mono: float) -> None:
        seat, tile, riichi = event["seat"], event["tile"], bool(event.get("riichi"))
        before = len(self.table.events())
        self.camera.expect(seat, tile)
        pause = getattr(self.clock, "pause", None)
        if pause is not None:
            pause()
        try:
            number = self.camera.show(lambda state: state.ponds[seat].append((tile, riichi)),
                                      due_mono)
            # The clock is paused, so however long drawing and reading the frames takes on a
            # busy machine, play waits for it: it is the tracker's answer that counts, not how
            # soon it came.
            stuck = time.monotonic() + self.CAMERA_WAIT
            while not (self.camera.wait_read(number, 0.1) or self.stop_event.is_set()
                       or time.monotonic() > stuck):
                pass
            seen = len(self.table.events()) > before or not self.camera.cancel(seat, tile)
            if seen:
                self._wait_for(before, self.CAMERA_WAIT)
        finally:
            if pause is not None:
                self.clock.resume()
        if seen:
            self.seen += 1
        elif self.stop_event.is_set():
            # The demo is stopping: the discard on its way is simply not played (a kept
            # --journal resumes with it), so nothing is missed or handed over.
            return
        else:
            self.missed += 1
            log.warning("the tracker did not report seat %d's %s within %g s; handing it "
                        "over directly", seat, tile, self.CAMERA_WAIT)
            self.service.submit(dict(event, t=self.clock()), "camera")

    def _press(self, seat: int, call: str) -> None:
        button = self.buttons.button(seat, call)
        pin = button.pin
        pressed_low = not self.buttons.wiring.pressed_level
        before = len(self.table.events())
        # A finger's press and release, each edge stamped with its own time: at 600x a
        # press of a quarter millisecond that a busy machine let go of 10 ms late would be
        # four table seconds long, a button stuck down (hardware.debounce), and no call.
        t = monotonic()
        edge_at(pin, True, t, pressed_low)
        edge_at(pin, False, t + self.press_seconds, pressed_low)
        # The press reaches the table once let go and tested, through the service's button
        # thread; wait for it so the next event (a meld, a reveal) is judged after it, as at
        # a table.
        self._wait_for(before, self.PRESS_WAIT)
        self.presses += 1

    def _run(self) -> None:
        hold = getattr(self.clock, "hold_at", None)
        try:
            events = self.events
            start = 0
            journaled = self.table.events()
            if journaled and journaled[0] == events[0]:
                start = len(journaled)  # a --journal kept from an interrupted demo
            if start >= len(events):
                return
            t0 = float(events[start]["t"])
            shift = self.clock() + 1.0 - t0
            for event in events[start:]:
                due = float(event["t"]) + shift
                if hold is not None:
                    hold(due)   # however late this thread wakes, the move is made on time
                wait = self.clock.real_seconds(due - self.clock())
                if self.stop_event.wait(wait):
                    return
                if event["type"] == "call":
                    self._press(event["seat"], event["call"])
                elif self.camera is not None and event["type"] == "discard":
                    self._camera_discard(event, time.monotonic())
                else:
                    if self.camera is not None and event["type"] == "hand_start":
                        self.camera.show("new_hand", time.monotonic())
                    if self.camera is not None and event["type"] == "meld" and \
                            event.get("called") and event.get("from") is not None:
                        self.camera.show(_take_from_pond(event["from"], event["called"]),
                                         time.monotonic())
                    event = dict(event, t=max(due, self.clock()))
                    self.service.submit(event, "camera")
            if hold is not None:
                hold(None)
            # Let the last windows close on the timer.
            while not self.stop_event.is_set() and self.table.next_deadline() is not None:
                self.stop_event.wait(0.05)
        except Exception:
            log.exception("the simulated table failed")
        finally:
            if hold is not None:
                hold(None)
            self.done.set()

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=3)


def edge_at(pin, pressed: bool, t: float, pressed_low: bool) -> None:
    """Move a MockFactory pin as a press (or release) made at monotonic ``t``: the edge's
    time is ``t`` however late this thread runs (gpiozero's mock stamps an edge when it is
    driven, which a busy interpreter makes later than the contact moved)."""
    high = pressed != pressed_low
    if pin._change_state(high):
        pin._last_change = t
        if pin._edges in ("both", "rising" if high else "falling") and \
                pin._when_changed is not None:
            pin._call_when_changed()


def scaled_wiring(wiring, speed: float):
    """The buttons' and lights' timings as the players see them at ``speed``: at 10x a
    player's two quick presses are ten times closer in real time, and must not look like a
    chattering switch."""
    if speed == 1:
        return wiring
    d, li = wiring.debounce, wiring.light
    debounce = dataclasses.replace(d, debounce=d.debounce / speed,
                                   chatter_window=d.chatter_window / speed,
                                   chatter_run=d.chatter_run / speed, recover=d.recover / speed,
                                   stuck=d.stuck / speed)
    light = dataclasses.replace(li, winner=li.winner / speed, blink=li.blink / speed,
                                blink_hz=li.blink_hz * speed, beep=li.beep / speed,
                                call_period=li.call_period / speed)
    return dataclasses.replace(wiring, debounce=debounce, light=light,
                               referee_call_hold=wiring.referee_call_hold / speed,
                               sign_hold=wiring.sign_hold / speed)


def load_game(args) -> tuple[list[dict], str]:
    """The events to play and a line saying where they come from."""
    if args.game:
        path = Path(args.game)
        if path.suffix == ".jsonl":
            try:
                with open(path, encoding="utf-8") as f:
                    return list(read_events(f)), f"events from {path}"
            except OSError as exc:
                raise RefereeError(unreadable(f"--game {path}", exc, "event log")) from None
        from referee.tenhou import import_log
        return import_log(path).events, f"Tenhou game {path.name}"
    data = shared_data_dir()
    if data is not None and not args.simulated:
        logs = sorted((data / "tenhou" / "mjlog").glob("*.mjlog"))
        if logs:
            from referee.tenhou import import_log
            game = import_log(logs[0])
            return game.events, f"real Tenhou game {logs[0].name} (from {data / 'tenhou'})"
    from referee.simulate import simulate
    return (simulate(seed=args.seed, hands=args.hands),
            f"simulated game (seed {args.seed}, {args.hands} hands; no ../shared/data/tenhou)")


def port_problem(host: str, port: int) -> str | None:
    """Why the dashboard could not listen on ``host:port`` (None: it can)."""
    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None
