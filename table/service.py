"""The table service: one process that runs a table all day.

Sources (seat buttons, the camera tracker, the dashboard's inbox, or a recorded log played
back) hand events to a :class:`ResumableTable`, which journals each one before judging it and
sends the rulings to the journal, the dashboard hub and the seat lights. A timer closes claim
windows at their deadline; the main loop pings systemd's watchdog.

Restart. :meth:`ResumableTable.restore` rebuilds the current game by feeding the journal's
events to a fresh :class:`~referee.core.Referee` without publishing anything. Rulings the
journal already holds are not sent again; rulings the replay produces that the journal lacks
(the process died between committing an event and storing its rulings) are stored and sent
once. Every ruling is keyed on ``(game, ruling_id)`` in the journal, so none is ever stored
twice. Each ``game_start`` gets a fresh Referee, so ruling ids count from the game's start
exactly as in a replay of the journal.

Journal failures (disk full, read-only file system) are reported as health ``journal`` on the
dashboard and in systemd's status line; the service stays up, refusing new events, rather than
exiting into a restart loop, and accepts events again as soon as the journal takes them.
"""
from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from typing import Any, Callable, Iterable

from referee.errors import MalformedEvent, RefereeError
from referee.events import parse_event

from .clock import TableClock, VirtualClock, monotonic
from .hub import Hub
from .journal import Journal, JournalError
from .live import LiveTable
from .press_hold import PressHold, PressUnderTest
from .pace import Pace
from .referee_calls import CallTracker
from .score_sheet import SignNotes

log = logging.getLogger("riichi-referee.service")


def _rid(ruling: dict) -> str:
    return str(ruling.get("ruling_id", ""))


def default_referee_factory(ruleset: str | None = None,
                            confidence_threshold: float | None = None) -> Callable[[], Any]:
    def make():
        from referee.core import Referee
        if confidence_threshold is None:
            return Referee(ruleset)
        return Referee(ruleset, confidence_threshold)
    return make


class ResumableTable(LiveTable):
    """A :class:`LiveTable` over a :class:`~table.journal.Journal` that can pick a game up
    where a crash left it (:meth:`restore`) and never stores or sends a ruling twice.

    ``referee_factory``: makes a fresh Referee (one per game, and one for a restore).
    """

    def __init__(self, journal: Journal | None, referee_factory: Callable[[], Any] | None = None,
                 hub: Hub | None = None, clock: Callable[[], float] = monotonic):
        self._factory = referee_factory or default_referee_factory()
        super().__init__(referee=self._factory(), hub=hub, journal=journal, clock=clock)
        self._sent: set[str] = set()
        self.journal_ok = True

    # -- write side -------------------------------------------------------------------
    def submit(self, event: dict) -> list[dict]:
        event = parse_event(dict(event))
        with self._lock:
            previous = (self.referee, self._sent, self._events, self._rulings)
            carried = None
            if event["type"] == "game_start":
                # Ruling ids count from the game's start, as they do when the journal's game
                # is replayed into a fresh Referee after a restart.
                self.referee, self._sent = self._factory(), set()
                self._events, self._rulings = [], []
                # the t the journal will give it (LiveTable.submit keeps t non-decreasing)
                t = event["t"] if self._last_t is None else max(event["t"], self._last_t)
                carried = carried_clock(previous[0], previous[2], t)
            try:
                rulings = super().submit(event)
            except JournalError as exc:
                if event["type"] == "game_start":
                    self.referee, self._sent, self._events, self._rulings = previous
                self._journal_failed(exc)
                raise
            if carried is not None:
                # the round's clock runs on in the new game (see carried_clock)
                try:
                    rulings = rulings + super().submit(carried)
                except JournalError as exc:
                    # the game has started all the same; its clock is lost until a referee
                    # starts one (said as the journal's health)
                    self._journal_failed(exc)
                    return rulings
            if not self.journal_ok and self.journal is not None:
                self.journal_ok = True
                self.set_health("journal", True, "")
            return rulings

    def _record(self, seq: int, rulings: list[dict]) -> None:
        fresh = [r for r in rulings if _rid(r) not in self._sent or not _rid(r)]
        snap = self.snapshot()  # one per event: the journal's copy is the hub's
        if self.journal is not None:
            try:
                self.journal.record(seq, fresh, snap)
            except JournalError as exc:
                # The event is journaled; its rulings are shown now and stored again by the
                # replay after a restart if the journal still lacks them.
                self._journal_failed(exc)
                snap = self.snapshot()  # with the journal's health now failing
        self._sent.update(_rid(r) for r in fresh)
        self._rulings.extend(fresh)
        for ruling in fresh:
            self.hub.publish("ruling", ruling)
        self.hub.publish("state", snap)

    def _journal_failed(self, exc: JournalError) -> None:
        self.journal_ok = False
        self.set_health("journal", False, str(exc))

    def set_health(self, component: str, ok: bool, text: str = "") -> None:
        # Journaled before it is announced: the hall link wakes on the hub's "health" and
        # reads the journal's health, so an announcement ahead of the row sent the hall the
        # old health, and the new one only HEALTH_EVERY seconds later (or never, if the game
        # was over by then).
        if self.journal is not None and not self.journal.readonly:
            try:
                self.journal.set_health(component, ok, text, self.clock())
            except JournalError:
                pass  # reported on the hub all the same; the journal is what failed
        super().set_health(component, ok, text)

    def next_deadline(self) -> float | None:
        with self._lock:
            return self.referee.next_deadline()

    def sheet_open_since(self) -> float | None:
        """When the score sheet opened for signing (the ``game_end``'s ``t``); None while the
        game is played, or once the result is final."""
        with self._lock:
            game = getattr(self.referee, "table", None)
            if game is None or not game.game_over or getattr(game, "result_given", True):
                return None
            ended = self._game_end_t()
            return -float("inf") if ended is None else float(ended)

    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def last_t(self) -> float | None:
        return self._last_t

    # -- restart ----------------------------------------------------------------------
    def restore(self) -> list[dict]:
        """Rebuild the journal's current game; return the rulings it had not stored yet
        (now stored and published, once)."""
        if self.journal is None:
            return []
        game_id = self.journal.current_game()
        if game_id is None:
            return []
        events = self.journal.game_events(game_id)
        stored = [r for _, r in self.journal.game_rulings(game_id)]
        stored_ids = {_rid(r) for r in stored}
        referee = self._factory()
        produced: list[tuple[int, dict]] = []
        notes = SignNotes()
        for seq, event in events:
            if hasattr(referee, "table"):
                notes.before(event, referee.table)
            produced.extend((seq, r) for r in referee.feed(event))
        last_seq = events[-1][0] if events else self.journal.last_seq()
        # Windows the timer had closed before the crash, with no event after them.
        seen = {_rid(r) for _, r in produced}
        while stored_ids - seen:
            deadline = referee.next_deadline()
            if deadline is None:
                break
            for r in referee.advance(deadline):
                produced.append((last_seq, r))
                seen.add(_rid(r))
        with self._lock:
            self.referee = referee
            self.sign_notes = notes
            self._events = [e for _, e in events]
            self._rulings = list(stored)
            self._sent = set(stored_ids)
            self._last_seq = last_seq
            self._last_t = max((float(e["t"]) for e in self._events), default=None)
            missing: dict[int, list[dict]] = {}
            for seq, r in produced:
                if _rid(r) not in stored_ids:
                    missing.setdefault(seq, []).append(r)
            fresh = []
            for seq, rulings in missing.items():
                self._record(seq, rulings)
                fresh.extend(rulings)
            if not missing:
                self._record(last_seq, [])  # the dashboard process reads the snapshot
        for entry in self.journal.health():
            if entry["component"] != "journal":
                self.health[entry["component"]] = {k: entry[k] for k in
                                                   ("component", "ok", "text", "t")}
        if len(events) == 1 and events[0][1]["type"] == "game_start":
            # stopped between journaling a game_start and the clock it carries on
            fresh.extend(self._carry_clock_after_restart(game_id, events[0][1]))
        return fresh

    def _carry_clock_after_restart(self, game_id: int, game_start: dict) -> list[dict]:
        before = [g["game_id"] for g in self.journal.games() if g["game_id"] < game_id]
        if not before:
            return []
        referee = self._factory()
        events = [e for _, e in self.journal.game_events(before[-1])]
        for event in events:
            referee.feed(event)
        carried = carried_clock(referee, events, float(game_start["t"]))
        return self.submit(carried) if carried is not None else []


def _signed(snapshot: dict) -> set[int]:
    """The seats whose signatures stand on an open score sheet (none once it is final)."""
    sheet = snapshot.get("sheet") if isinstance(snapshot, dict) else None
    if not sheet or sheet.get("status") == "final":
        return set()
    return set(sheet.get("signatures") or ())


def carried_clock(referee, events: list[dict], t: float) -> dict | None:
    """The ``clock`` event that carries the round's running clock, as ``referee`` (the game
    before, with its ``events``) has it, into a game whose ``game_start`` is at ``t``; None
    when no clock runs.

    The round's clock spans games, but the journal opens a new game at each ``game_start``
    and the table judges each game with a fresh rules core (so that a game replays alone): a
    clock the hall started before the game's ``game_start`` was journaled with the game
    before. So the table journals, right after the ``game_start``, a ``start`` for the time
    the round has left: its time-up moment (its ``t`` plus its ``seconds``) is the running
    clock's, and a replay of the game alone, or of the whole round through one rules core
    (where the ``start`` replaces the clock with the same one), gives the same rulings.
    Extra keys: ``carried`` (true) and ``time_up_at``. A clock stopped, or whose time-up was
    ruled or has passed, is not carried: no time-up is to come from it.
    """
    clock = getattr(referee, "round_clock", None)
    deadline = clock.deadline if clock is not None else None
    t = float(t)
    if deadline is None or deadline < t:
        return None
    event = {"type": "clock", "t": t, "action": "start", "seconds": deadline - t,
             "carried": True, "time_up_at": deadline}
    starts = [e for e in events if e.get("type") == "clock" and e.get("action") == "start"]
    if starts and starts[-1].get("source") is not None:
        event["source"] = starts[-1]["source"]
    return event


def common_prefix(journaled: list[dict], recorded: list[dict]) -> int:
    """How many of ``recorded`` the journal's game already holds (0 if it is another game).
    A clock the table carried into the game (:func:`carried_clock`) is the table's own, in no
    recording."""
    journaled = [e for e in journaled if e.get("carried") is not True]
    def same(a: dict, b: dict) -> bool:
        a = {k: v for k, v in a.items() if k not in ("t_source",)}
        b = {k: v for k, v in b.items() if k not in ("t_source",)}
        return a == b
    n = 0
    for a, b in zip(journaled, recorded):
        if not same(a, b):
            return n
        n += 1
    return n


class TableService:
    """Runs a :class:`ResumableTable` with its sources until stopped.

    ``buttons``: a ``queue.Queue`` the seat buttons put items on: call events (dicts with
    ``type == "call"``, ``t`` on ``monotonic()``) or faults (anything else: shown as health
    ``buttons``). ``cameras``: iterables, each yielding per frame a tuple
    ``(t_mono, events)`` (the tracker's events for that frame, possibly none; ``t_mono``: the
    time up to which the camera has reported every event it stamps, the frame's own time for a
    camera that reads every frame at once); a camera that
    yields nothing for ``camera_timeout`` seconds, or ends, is reported as health ``camera``
    while everything else goes on. A camera with a ``view_health()`` (``(ok, text)``: a glare
    washing out a pond, :class:`vision.tracking.service_feed.CameraFeed`) is asked it every
    :attr:`VIEW_EVERY` seconds, and what it says is health ``view`` once it has said anything
    but all well. A press waits (``hold`` real seconds at most) until the
    cameras have reported everything up to its time (:class:`~table.press_hold.PressHold`),
    and while the buttons test a press stamped before it (:class:`~table.press_hold.
    PressUnderTest` items on ``buttons``: a finger's, or a chattering or stuck contact's?),
    every press, discard and window deadline stamped after that press waits for its test.
    ``lights``: an object with ``show(ruling)``.
    ``recorded``: events to play back (rehearsal, demo, crash tests) at ``clock.speed``.
    ``inbox``: take the dashboard process's referee actions from the journal.
    ``grace``: real seconds a window stays open past its deadline for presses on their way.
    ``low_disk``: bytes of room left for the journal under which the table says the disk is
    nearly full (health ``disk``, on the dashboard), looked at every ``disk_every`` seconds.
    ``pace``: with ``recorded``, a :class:`~table.pace.Pace` saying how far it may be played
    (None: to its end).
    """

    LOW_DISK = 20 * 1024 * 1024
    #: seconds between asking a camera how it sees the table (a glare comes with a lamp moved
    #: or the sun, not from one frame to the next)
    VIEW_EVERY = 5.0

    def __init__(self, table: ResumableTable, clock: TableClock | VirtualClock | None = None,
                 buttons: queue.Queue | None = None, cameras: Iterable = (),
                 lights: Any = None, recorded: list[dict] | None = None, inbox: bool = True,
                 notifier: Any = None, camera_timeout: float = 5.0,
                 on_submit: Callable[[dict, int], None] | None = None, grace: float = 0.03,
                 hold: float = 1.5, low_disk: int | None = None, disk_every: float = 5.0,
                 pace: Pace | None = None):
        self.table = table
        self.clock = clock if clock is not None else TableClock()
        self.buttons = buttons
        self.cameras = list(cameras)
        self.lights = lights
        self.recorded = recorded
        self.inbox = inbox and table.journal is not None and not table.journal.readonly
        self.notifier = notifier
        self.camera_timeout = camera_timeout
        self.on_submit = on_submit
        self.pace = pace
        self.grace = grace
        self.low_disk = self.LOW_DISK if low_disk is None else low_disk
        self.disk_every = disk_every
        self.presses = PressHold(hold) if (self.cameras or buttons is not None) else None
        self._release_lock = threading.Lock()
        self.stop_event = threading.Event()
        self.finished = threading.Event()  # the recorded game has been played to its end
        self._wake = threading.Event()
        self._threads: dict[str, threading.Thread] = {}
        self._last_frame: dict[int, float] = {}
        self._camera_done: dict[int, str] = {}
        self.errors: list[str] = []

    # -- submitting -------------------------------------------------------------------
    def submit(self, event: dict, source: str) -> list[dict] | None:
        """Journal and judge one event; report (not raise) what goes wrong."""
        try:
            rulings = self.table.submit(event)
        except JournalError as exc:
            self._status(f"journal: {exc}")
            return None
        except MalformedEvent as exc:
            log.warning("%s: dropped a malformed event (%s)", source, exc)
            return None
        self._wake.set()
        if self.on_submit is not None:
            self.on_submit(event, self.table.last_seq)
        return rulings

    # -- threads ----------------------------------------------------------------------
    def _timer_loop(self) -> None:
        """Close each claim window at its deadline, even when no further event comes.

        The window is closed ``grace`` (real) seconds after its deadline, as of the deadline:
        a press stamped just inside the window is still on its way from the button thread
        then, and must be judged in time rather than late. A press stamped inside the window
        that is still held (for the camera, or under test by the buttons) is waited for.
        """
        while not self.stop_event.is_set():
            deadline = self.table.next_deadline()
            if deadline is None:
                wait = 1.0
            elif self.presses is not None and self.presses.waiting(deadline):
                wait = 0.01     # a press in time for this window is waiting for the camera
            else:
                late = self.clock() - deadline  # table seconds past the deadline
                wait = self.grace - late / self.clock.speed if self.clock.speed else 0.0
            if wait > 0:
                self._wake.wait(min(wait, 1.0))
                self._wake.clear()
                continue
            try:
                self.table.tick(deadline)
            except JournalError as exc:
                self._status(f"journal: {exc}")
                self.stop_event.wait(0.5)

    def _release(self, before: float | None = None) -> None:
        """Judge the presses the cameras have caught up with (and those stamped ``before``)."""
        if self.presses is None:
            return
        with self._release_lock:
            for press in self.presses.due(before):
                self.submit(press, "buttons")

    def _button_loop(self) -> None:
        # The panel starts with no input chattering: say so, so the dashboard shows the
        # buttons working from the start, not only once one fails and recovers.
        self.table.set_health("buttons", True, "")
        while not self.stop_event.is_set():
            soon = self.presses.next_release() if self.presses is not None else None
            try:
                item = self.buttons.get(timeout=0.5 if soon is None else min(0.5, soon + 0.001))
            except queue.Empty:
                self._release()
                continue
            if isinstance(item, PressUnderTest):
                button = (item.seat, item.call)
                if item.testing:
                    self.presses.testing(button, self.clock.from_mono(float(item.t)))
                else:
                    self.presses.tested(button)
                    self._release()
            elif isinstance(item, dict) and item.get("type") == "sign":
                self._sign(item)
            elif isinstance(item, dict) and item.get("type") in ("call", "referee"):
                # a press, or a seat's call for a referee (table.referee_calls); both wait
                # for the camera alike, so the table gets them in the order they were made
                event = dict(item)
                event["t"] = self.clock.from_mono(float(event["t"]))
                if self._signing_press(event):
                    continue
                if self.presses is None:
                    self.submit(event, "buttons")
                else:
                    self.presses.add(event)
                    self._release()
            elif hasattr(item, "health_ok"):  # hardware.ButtonFault: the panel's state
                if item.text:
                    log.warning("buttons: %s", item.text)
                self.table.set_health("buttons", bool(item.health_ok), item.health_text or "")
            else:
                text = item.get("text") if isinstance(item, dict) else str(item)
                ok = bool(item.get("ok", False)) if isinstance(item, dict) else False
                self.table.set_health("buttons", ok, text or "seat buttons fault")

    # At a game's end the ron buttons sign the score sheet (hardware.hold_to_sign): a ron
    # pressed then is the start of a signature, not a claim, and a hold that began before the
    # game ended (a ron claimed in the last hand, held on) is no signature.
    def _signing_press(self, event: dict) -> bool:
        if event.get("type") != "call" or event.get("call") != "ron":
            return False
        opened = self.table.sheet_open_since()
        return opened is not None and event["t"] >= opened

    def _sign(self, item: dict) -> None:
        event = dict(item)
        event["t"] = self.clock.from_mono(float(event["t"]))
        since = event.get("held_since")
        if since is not None:
            event["held_since"] = self.clock.from_mono(float(since))
        opened = self.table.sheet_open_since()
        if opened is None or (since is not None and event["held_since"] < opened):
            log.debug("buttons: seat %s held ron while no score sheet was open to sign",
                      event.get("seat"))
            return
        self.submit(event, "buttons")

    def _camera_loop(self, index: int, feed: Iterable) -> None:
        self._last_frame[index] = monotonic()
        first = True
        # what the camera says of its view (a glare washing out a pond: CameraFeed.view_health),
        # asked every VIEW_EVERY seconds and told the referee when it changes
        view, view_said, view_asked = getattr(feed, "view_health", None), (True, ""), None
        try:
            for t_mono, events in feed:
                self._last_frame[index] = monotonic()
                if first:  # frames flow: the camera works (check() reports a stop)
                    first = False
                    self.table.set_health("camera", True, "")
                if view is not None and (view_asked is None or
                                         self._last_frame[index] - view_asked >= self.VIEW_EVERY):
                    view_asked = self._last_frame[index]
                    said = tuple(view())
                    if said != view_said:
                        view_said = said
                        self.table.set_health("view", *said)
                for event in events:
                    event = dict(event)
                    event["t"] = self.clock.from_mono(float(event.get("t", t_mono)))
                    # a press made before the discard, still under test, is judged before it
                    self.presses.wait_tested(event["t"], self.stop_event)
                    with self._release_lock:
                        # presses made before the discard are judged before it
                        for press in self.presses.due(before=event["t"]):
                            self.submit(press, "buttons")
                        self.submit(event, "camera")
                self.presses.camera(index, self.clock.from_mono(float(t_mono)))
                self._release()
                if self.stop_event.is_set():
                    return
            reason = "the camera stopped sending frames"
        except RefereeError as exc:
            reason = str(exc)
        except Exception as exc:  # a camera driver failing must not take the buttons down
            log.exception("camera %d failed", index)
            reason = f"camera failed: {exc}"
        self.presses.camera_gone(index)
        self._release()
        if not self.stop_event.is_set():
            self._camera_done[index] = reason
            self.table.set_health("camera", False, reason + "; the seat buttons still work")

    def _inbox_loop(self) -> None:
        journal = self.table.journal
        while not self.stop_event.wait(0.03):
            try:
                pending = journal.inbox_pending()
            except JournalError:
                self.stop_event.wait(1.0)
                continue
            for item_id, event in pending:
                error = None
                try:
                    event.setdefault("t", self.clock())
                    self.table.submit(event)
                    seq = self.table.last_seq
                except RefereeError as exc:
                    error, seq = str(exc), None
                self._wake.set()
                try:
                    journal.inbox_done(item_id, seq, error)
                except JournalError:
                    pass

    def _lights_loop(self, sub) -> None:
        calls = CallTracker()
        for event in self.table.events():  # calls standing when the service (re)started
            calls.feed(event)
        if calls.standing:
            self._show_calls(calls)
        shown = _signed(self.table.snapshot())
        if shown:
            self._light(getattr(self.lights, "show_signatures", None), shown)
        while not self.stop_event.is_set():
            message = sub.get(timeout=0.5)
            if message is None:
                continue
            if message["kind"] == "event":
                if calls.feed(message["data"]):
                    self._show_calls(calls)
                continue
            if message["kind"] == "state":
                signed = _signed(message["data"])
                if signed != shown:
                    shown = signed
                    self._light(getattr(self.lights, "show_signatures", None), signed)
                continue
            if message["kind"] != "ruling":
                continue
            try:
                self.lights.show(message["data"])
            except Exception as exc:  # a dead LED is no reason to stop refereeing
                self.table.set_health("lights", False, f"seat lights failed: {exc}")

    def _light(self, show, *args) -> None:
        if show is None:
            return
        try:
            show(*args)
        except Exception as exc:  # a dead LED is no reason to stop refereeing
            self.table.set_health("lights", False, f"seat lights failed: {exc}")

    def _show_calls(self, calls: CallTracker) -> None:
        show = getattr(self.lights, "show_calls", None)
        if show is None:
            return
        try:
            show(set(calls.standing))
        except Exception as exc:
            self.table.set_health("lights", False, f"seat lights failed: {exc}")

    def _recorded_loop(self) -> None:
        """Play a recorded game, resuming after the events the journal already holds."""
        events = [parse_event(dict(e)) for e in self.recorded]
        done = common_prefix(self.table.events(), events)
        remaining = events[done:]
        if not remaining:
            self._finish_recorded()
            return
        if self.clock.virtual:
            for index, event in enumerate(remaining, done):
                if self.stop_event.is_set() or not self._may_play(index):
                    return
                t = float(event["t"])
                self.clock.t = max(self.clock.t, t)
                self._tick()
                self.submit(event, "recorded")
        else:
            # Shift the log onto the table clock: its next event happens now.
            shift = self.clock() - float(remaining[0]["t"])
            start_real = time.monotonic()
            t0 = float(remaining[0]["t"])
            for index, event in enumerate(remaining, done):
                if not self._may_play(index):
                    return
                due = start_real + self.clock.real_seconds(float(event["t"]) - t0)
                if self.stop_event.wait(max(0.0, due - time.monotonic())):
                    return
                event = dict(event)
                event["t"] = float(event["t"]) + shift
                self.submit(event, "recorded")
        self._finish_recorded()

    def _may_play(self, index: int) -> bool:
        """Wait until the pace lets the recorded event at ``index`` be played; False: stopped."""
        return self.pace is None or self.pace.wait(index, self.stop_event)

    def _tick(self) -> None:
        try:
            self.table.tick(self.clock())
        except JournalError as exc:
            self._status(f"journal: {exc}")

    def _finish_recorded(self) -> None:
        # At the end of a log every open window closes (as in `riichi-referee replay`).
        while not self.stop_event.is_set():
            deadline = self.table.next_deadline()
            if deadline is None:
                break
            if self.clock.virtual:
                self.clock.t = max(self.clock.t, deadline)
                self._tick()
            else:
                self.stop_event.wait(self.clock.real_seconds(deadline - self.clock()) + 0.01)
        self.finished.set()

    # -- main loop --------------------------------------------------------------------
    def start(self) -> list[dict]:
        """Restore the journal's game, then start the source threads."""
        fresh = self.table.restore()
        if fresh:
            log.info("restore: stored and sent %d ruling(s) the journal lacked", len(fresh))
        if not self.clock.virtual:
            self._spawn("timer", self._timer_loop)
        if self.buttons is not None:
            self._spawn("buttons", self._button_loop)
        for i, feed in enumerate(self.cameras):
            self._spawn(f"camera{i}", self._camera_loop, i, feed)
        if self.inbox:
            self._spawn("inbox", self._inbox_loop)
        if self.lights is not None:
            self._spawn("lights", self._lights_loop, self.table.hub.subscribe())
        if self.recorded is not None:
            self._spawn("recorded", self._recorded_loop)
        return fresh

    def _spawn(self, name: str, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads[name] = thread
        thread.start()

    def check(self) -> list[str]:
        """One pass of the main loop's checks; returns what is wrong (empty: all well)."""
        problems = []
        now = monotonic()
        for i, last in self._last_frame.items():
            if i in self._camera_done:
                problems.append(f"camera {i}: {self._camera_done[i]}")
            elif now - last > self.camera_timeout:
                text = (f"no camera frame for {now - last:.0f} s; the seat buttons still work")
                self.table.set_health("camera", False, text)
                problems.append(text)
            elif self.table.health.get("camera", {}).get("ok") is False:
                self.table.set_health("camera", True, "")
        for name, thread in self._threads.items():
            # A camera that ends is reported above; a recorded game that was played to its end
            # is done, but one whose thread stopped before that died.
            if name.startswith("camera") or (name == "recorded" and self.finished.is_set()):
                continue
            if not thread.is_alive():
                problems.append(f"thread {name} died")
        if not self.table.journal_ok:
            problems.append(self.table.health.get("journal", {}).get("text", "journal failing"))
        return problems

    def check_disk(self) -> int | None:
        """Say on the dashboard (health ``disk``, written to the journal while it still can
        be) when the journal's room is under ``low_disk``, and when it is not any more;
        return the room in bytes (None: unknown).

        Nothing is refused while the disk is only nearly full: every event is still journaled
        as long as it fits, and the write-ahead log is cut to nothing and kept small to leave
        it the room (by SQLite's defaults it grows to about 4 MB between checkpoints).
        Once it no longer fits, the journal health says so and events are refused (see the
        module docstring); what was committed stays whole."""
        journal = self.table.journal
        if journal is None or journal.readonly:
            return None
        free = journal.free_bytes()
        if free is None:
            return None
        shown = self.table.health.get("disk", {}).get("ok") is False
        if free < self.low_disk:
            try:
                journal.shrink_wal()
                journal.keep_wal_small(True)
            except JournalError:
                pass
            free = journal.free_bytes() or free
        elif shown:
            try:
                journal.keep_wal_small(False)
            except JournalError:
                pass
        if free < self.low_disk:
            text = (f"the disk holding the journal is nearly full: {free // 1024} KiB left; "
                    "every event is still journaled, but free some space soon")
            if not shown or self.table.health["disk"].get("text") != text:
                log.warning("%s", text)
                self.table.set_health("disk", False, text)
        elif shown:
            log.info("the journal's disk has room again (%d MiB)", free // (1024 * 1024))
            self.table.set_health("disk", True, "")
        return free

    def run(self, ready_status: str = "", install_signals: bool = True) -> int:
        """Start, tell systemd we are ready, and ping its watchdog until stopped."""
        if install_signals and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, lambda *_: self.stop_event.set())
        self.start()
        notifier = self.notifier
        interval = notifier.watchdog_interval if notifier is not None else None
        period = min(1.0, interval / 3) if interval else 1.0
        if notifier is not None:
            notifier.ready(ready_status or self._summary([]))
        last_beat = last_disk = 0.0
        try:
            while not self.stop_event.wait(period):
                if time.monotonic() - last_disk >= self.disk_every:
                    last_disk = time.monotonic()
                    self.check_disk()
                problems = self.check()
                dead = [p for p in problems if p.startswith("thread ")]
                if dead and self.exit_at_end:
                    # Waiting for the end of a game that can no longer end would hang whoever
                    # waits on us (a rehearsal, the crash test); say so and stop instead.
                    log.error("%s", "; ".join(dead))
                    return 1
                if notifier is not None:
                    # A dead worker thread means the table no longer works: let systemd's
                    # watchdog restart us. A failing journal does not: restarting would not
                    # free the disk, and the dashboard says what is wrong.
                    if not dead:
                        notifier.watchdog()
                    notifier.status(self._summary(problems))
                if time.monotonic() - last_beat > 5.0 and self.table.journal is not None \
                        and not self.table.journal.readonly:
                    last_beat = time.monotonic()
                    try:
                        self.table.journal.heartbeat()
                    except JournalError:
                        pass
                if self.recorded is not None and self.finished.is_set() and self.exit_at_end:
                    break
        finally:
            self.stop()
        return 0

    exit_at_end = False

    def _summary(self, problems: list[str]) -> str:
        base = f"{len(self.table.events())} events, last seq {self.table.last_seq}"
        return base + ("; " + "; ".join(problems) if problems else "; all well")

    def _status(self, text: str) -> None:
        if text not in self.errors[-1:]:
            self.errors.append(text)
            log.warning("%s", text)

    def stop(self) -> None:
        self.stop_event.set()
        self._wake.set()
        if self.notifier is not None:
            self.notifier.stopping()
        for thread in self._threads.values():
            if thread is not threading.current_thread():
                thread.join(timeout=2.0)
