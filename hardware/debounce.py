"""Contact edges -> presses, for one call button. Pure: every time is passed in (seconds on the
table clock), so the rules can be tested with synthetic edge times.

What a referee needs from a button:

- A **press** is stamped with the edge that closed the contact, and reported at once: the
  claim window is judged to the millisecond, and a press that reached the table late could be
  judged against the wrong discard.
- **Bounce**: a contact that re-closes less than ``debounce`` after opening is still the same
  press (on pressing and on releasing). A button held down is one press.
- **Chatter**: a broken switch or a loose wire makes edges no finger could: ``chatter_presses``
  presses within ``chatter_window``, presses that keep coming for ``chatter_run`` without a
  ``chatter_window`` pause, a contact still bouncing after ``chatter_window``, or a contact
  moving as often as ``chatter_presses`` presses would within ``chatter_window`` (a
  *movement*: an edge after ``debounce`` of stillness; a press and its release make two),
  whether or not its movements are presses. The last catches a contact flickering at about
  the bounce time, closed a little longer than ``debounce`` and open a little shorter: its
  openings are bounce, so it seldom makes a press, and it is still between flickers, so it is
  not one long bounce; yet the odd opening a little longer than the rest makes a press. The
  input is then faulty: nothing it does counts until it has been quiet (no edge at all) for
  ``recover``.

The first press of a chattering episode looks exactly like a real press and has already been
reported when the chatter shows; :class:`Chatter` names it (``suspect``) so the referee can be
told. Any further press that follows its predecessor within ``chatter_window`` is held back
until the button pauses for ``chatter_window`` (then reported, with its own edge time) or
turns out to chatter (then dropped): so a chattering input makes at most one call.
"""
from __future__ import annotations

import collections
import math
from typing import NamedTuple

from .config import DebounceSettings


class Press(NamedTuple):
    """A press of the button; ``t`` is when its contact closed."""

    t: float


class Chatter(NamedTuple):
    """The button started chattering.

    ``t``: the edge that showed it. ``since``: when the episode began. ``reason``: what was
    seen, in words. ``suspect``: the time of the press of this episode that was already
    reported (it may be false), or None.
    """

    t: float
    since: float
    reason: str
    suspect: float | None


class Quiet(NamedTuple):
    """A chattering button has had no edge for ``recover`` seconds; its presses count again.
    ``edges``: how many edges it made while it was faulty."""

    t: float
    edges: int


Output = Press | Chatter | Quiet


class Debouncer:
    """One button's contact: feed it edges with :meth:`edge`, the passing of time with
    :meth:`advance`; both return the :data:`Output` items that are due, oldest first.

    ``settings``: the thresholds (:class:`~hardware.config.DebounceSettings`).
    ``closed``: whether the contact is closed now (a button held at start is not a press).
    """

    def __init__(self, settings: DebounceSettings, closed: bool = False):
        self.settings = settings
        self.closed = closed
        self.opened_at = -math.inf        # when the contact last opened
        self.last_edge: float | None = None
        self.burst_start = -math.inf      # first edge of the current run of close-together edges
        self.presses: collections.deque[float] = collections.deque(
            maxlen=settings.chatter_presses)
        # the latest movements (first edges of bursts): chatter_presses presses and the
        # releases between them make 2 * chatter_presses - 1
        self.movements: collections.deque[float] = collections.deque(
            maxlen=2 * settings.chatter_presses - 1)
        self.run_start: float | None = None   # first press of presses < chatter_window apart
        self.last_reported: float | None = None
        self.pending: list[float] = []    # held-back presses of the current run
        self.faulty_since: float | None = None
        self.fault_edges = 0

    @property
    def faulty(self) -> bool:
        return self.faulty_since is not None

    def next_deadline(self) -> float | None:
        """When :meth:`advance` next has something to do, or None."""
        if self.faulty:
            return self.last_edge + self.settings.recover
        if self.pending:
            return self.presses[-1] + self.settings.chatter_window
        return None

    def advance(self, now: float) -> list[Output]:
        """Let time pass to ``now``: release held-back presses after a pause, end a fault
        after a quiet spell."""
        s = self.settings
        if self.faulty:
            if now - self.last_edge >= s.recover:
                out = [Quiet(self.last_edge + s.recover, self.fault_edges)]
                self._reset()
                return out
            return []
        if self.pending and now - self.presses[-1] >= s.chatter_window:
            out = [Press(t) for t in self.pending]
            self.last_reported = self.pending[-1]
            self.pending = []
            return out
        return []

    def edge(self, t: float, closed: bool) -> list[Output]:
        """The contact closed (``closed`` True) or opened at ``t``."""
        s = self.settings
        if self.last_edge is not None and t < self.last_edge:
            t = self.last_edge           # never let a late-delivered edge run time backwards
        out = self.advance(t)
        if closed == self.closed:
            return out                   # the same level again: no edge happened
        self.closed = closed
        if self.last_edge is None or t - self.last_edge >= s.debounce:
            self.burst_start = t
            self.movements.append(t)
        self.last_edge = t
        if self.faulty:
            self.fault_edges += 1
            return out
        if t - self.burst_start > s.chatter_window:
            ms = (t - self.burst_start) * 1e3
            return out + self._chatter(t, self.burst_start,
                                       f"its contact kept bouncing for {ms:.0f} ms")
        if not closed:
            self.opened_at = t
            return out + self._restless(t)
        if t - self.opened_at < s.debounce:
            return out                   # re-closed within the bounce time: the same press
        return out + self._press(t)

    def _restless(self, t: float) -> list[Output]:
        """A fault if the contact has moved as often as ``chatter_presses`` presses would
        within ``chatter_window``, whether or not those movements were presses."""
        s = self.settings
        m = self.movements
        if len(m) < m.maxlen or t - m[0] >= s.chatter_window:
            return []
        ms = (t - m[0]) * 1e3
        return self._chatter(t, m[0], f"its contact moved {len(m)} times in {ms:.0f} ms, "
                                      "faster than a finger")

    def _press(self, t: float) -> list[Output]:
        s = self.settings
        previous = self.presses[-1] if self.presses else None
        self.presses.append(t)
        if len(self.presses) == s.chatter_presses and t - self.presses[0] < s.chatter_window:
            ms = (t - self.presses[0]) * 1e3
            return self._chatter(t, self.run_start,
                                 f"{s.chatter_presses} presses in {ms:.0f} ms, faster than a "
                                 "finger")
        # before the press is reported: one that comes amid a flicker is no call
        restless = self._restless(t)
        if restless:
            return restless
        if previous is None or t - previous >= s.chatter_window:
            self.run_start = t
            self.last_reported = t
            return [Press(t)]
        if t - self.run_start > s.chatter_run:
            return self._chatter(t, self.run_start,
                                 f"presses kept coming for {t - self.run_start:.1f} s without "
                                 f"a {s.chatter_window * 1e3:.0f} ms pause")
        self.pending.append(t)
        return []

    def _chatter(self, t: float, since: float, reason: str) -> list[Output]:
        suspect = self.last_reported
        if suspect is not None and suspect < since - self.settings.chatter_window:
            suspect = None               # reported before this episode began
        if suspect is not None:
            since = min(since, suspect)
        self.faulty_since = since
        self.fault_edges = 1
        self.pending = []
        return [Chatter(t, since, reason, suspect)]

    def _reset(self) -> None:
        # The contact keeps its level: if it settled closed, it is held, not pressed.
        self.faulty_since = None
        self.fault_edges = 0
        self.presses.clear()
        self.movements.clear()
        self.pending = []
        self.run_start = None
        self.burst_start = -math.inf
