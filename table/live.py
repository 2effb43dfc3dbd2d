"""One table's live game: the place where sources, the journal, the rules core and the
dashboard meet.

:class:`LiveTable` takes events from any thread (seat buttons, camera tracker, the referee's
phone), journals each one *before* judging it, feeds it to the :class:`~referee.core.Referee`,
journals the rulings, and publishes everything on a :class:`Hub` that dashboard streams read.
The table service adds sources, the journal and a timer; the dashboard only needs the
LiveTable's read side (``snapshot``, ``hub``, ``events``, ``rulings``) and ``submit``.
"""
from __future__ import annotations

import threading
from typing import Callable, Protocol

from referee.events import parse_event

from .clock import monotonic
from .hub import Hub
from .score_sheet import SignNotes, score_sheet


class Journal(Protocol):
    """Where events and rulings are made durable (see the table service's SQLite journal)."""

    def append_event(self, event: dict) -> int:
        """Commit one event; return its sequence number. Must be durable on return."""

    def append_rulings(self, seq: int, rulings: list[dict]) -> None:
        """Store rulings with the sequence number of the event that produced them."""


class LiveTable:
    """Judges one table live.

    ``referee``: the :class:`~referee.core.Referee` (a fresh one on ``ema2012`` when None).
    ``hub``: where dashboard messages go (a new :class:`Hub` when None).
    ``journal``: makes each event durable before it is judged; None keeps memory only.
    ``clock``: the table clock in seconds, for windows that close with no further event.
    """

    def __init__(self, referee=None, hub: Hub | None = None, journal: Journal | None = None,
                 clock: Callable[[], float] = monotonic):
        if referee is None:
            from referee.core import Referee
            referee = Referee()
        self.referee = referee
        self.hub = hub if hub is not None else Hub()
        self.journal = journal
        self.clock = clock
        self._lock = threading.RLock()
        self._events: list[dict] = []
        self._rulings: list[dict] = []
        self._last_t: float | None = None
        self._last_seq = 0
        self.health: dict[str, dict] = {}
        #: why the last ``sign`` changed nothing, shown until one counts (table.score_sheet)
        self.sign_notes = SignNotes()
        #: seconds a player holds the ron button to sign (the wiring's ``sign_hold``), which
        #: the score sheet tells the players
        self.sign_hold = 2.0

    # -- write side -------------------------------------------------------------------
    def submit(self, event: dict) -> list[dict]:
        """Check, journal, judge and publish one event; return its rulings.

        Raises :class:`~referee.errors.MalformedEvent` for an event that breaks the format;
        nothing is journaled for it. Events from different sources can arrive slightly out of
        order (a button edge stamped before a camera frame that was processed first): ``t`` is
        raised to the last event's so the journal stays a valid log, and the source's own time
        is kept as ``t_source``.
        """
        event = parse_event(dict(event))
        with self._lock:
            if self._last_t is not None and event["t"] < self._last_t:
                event["t_source"] = event["t"]
                event["t"] = self._last_t
            seq = self.journal.append_event(event) if self.journal is not None else len(self._events) + 1
            self._last_seq = seq
            self._last_t = event["t"]
            self._events.append(event)
            self.hub.publish("event", event)
            rulings = self._judge(event)
            self._record(seq, rulings)
            return rulings

    def _judge(self, event: dict) -> list[dict]:
        """Feed one journaled event to the rules core (noting first why a ``sign`` would
        change nothing)."""
        game = getattr(self.referee, "table", None)
        if game is not None:
            self.sign_notes.before(event, game)
        return self.referee.feed(event)

    def tick(self, now: float | None = None) -> list[dict]:
        """Close the windows whose deadline has passed on the table clock."""
        with self._lock:
            now = self.clock() if now is None else now
            deadline = self.referee.next_deadline()
            if deadline is None or deadline > now:
                return []
            rulings = self.referee.advance(now)
            self._record(self._last_seq, rulings)
            return rulings

    def _record(self, seq: int, rulings: list[dict]) -> None:
        if rulings and self.journal is not None:
            self.journal.append_rulings(seq, rulings)
        self._rulings.extend(rulings)
        for ruling in rulings:
            self.hub.publish("ruling", ruling)
        self.hub.publish("state", self.snapshot())

    def set_health(self, component: str, ok: bool, text: str = "") -> None:
        """Report a source's health (``camera``, ``buttons``, ``journal``...) to the dashboard."""
        with self._lock:
            entry = {"component": component, "ok": ok, "text": text, "t": self.clock()}
            if self.health.get(component, {}).get("ok") == ok and \
                    self.health.get(component, {}).get("text") == text:
                self.health[component] = entry
                return
            self.health[component] = entry
        self.hub.publish("health", entry)

    # -- read side --------------------------------------------------------------------
    def snapshot(self) -> dict:
        with self._lock:
            snap = self.referee.snapshot()
            snap["health"] = list(self.health.values())
            game = getattr(self.referee, "table", None)
            if game is not None and hasattr(game, "signatures"):
                # the score sheet at the game's end, and why a signature changed nothing
                snap["sheet"] = sheet = score_sheet(game, self.sign_hold)
                if sheet is not None:   # when the game ended, on the table clock
                    sheet["ended_at"] = self._game_end_t()
                snap["sign_note"] = self.sign_notes.current(game)
            return snap

    def _game_end_t(self) -> float | None:
        """The ``t`` of the last ``game_end`` ruling (None if none was given)."""
        for ruling in reversed(self._rulings):
            if ruling.get("type") == "game_end":
                return ruling.get("t")
        return None

    def events(self) -> list[dict]:
        with self._lock:
            return list(self._events)

    def rulings(self) -> list[dict]:
        with self._lock:
            return list(self._rulings)
