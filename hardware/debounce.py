"""Contact edges -> presses, for one call button. Pure: every time is passed in (seconds on the
table clock), so the rules can be tested with synthetic edge times.

What a referee needs from a button:

- A **press** is stamped with the edge that closed the contact: the claim window is judged
  to the millisecond on that stamp, never on when the press reached the table (which is
  after its test, below; the table waits for a press under test, so it is not judged
  against the wrong discard).
- **Bounce**: a contact that re-closes less than ``debounce`` after opening is still the same
  press (on pressing and on releasing). A button held down is one press.
- An **episode**: the button's edges from one that comes after the contact has been still (no
  edge at all) for ``chatter_window`` to the next such still spell. A finger's press, bounce
  and release are one; so are a finger's quick presses of the same button, and so is a
  chattering contact however its edges are spaced, as long as it is never still that long.
- **Chatter**: a broken switch or a loose wire makes edges no finger could: ``chatter_presses``
  presses within ``chatter_window``; a contact still bouncing after ``chatter_window``; a
  contact moving as often as ``chatter_presses`` presses would within ``chatter_window`` (a
  *movement*: an edge after ``debounce`` of stillness; a press and its release make two),
  whether or not its movements are presses; or an episode still going ``chatter_run`` after
  its first press that presses again. The movement test catches a contact flickering at
  about the bounce time, closed a little longer than ``debounce`` and open a little shorter:
  its openings are bounce, so it seldom makes a press, and it is still between flickers, so
  it is not one long bounce; yet the odd opening a little longer than the rest makes a press.
  The input is then faulty: nothing it does counts until it has been quiet (no edge at all)
  for ``recover``.

No press is reported at once: every press is *under test* until the contact has been open
and still (no edge) for ``chatter_window``, then reported with its own edge time, each press
of the test in turn. A chattering episode's first press looks exactly like a finger's, and
a button that sticks down makes one press as it sticks; reported at once, either could win a
claim no player made. Held back, a press that turns out to be chatter, or a contact that
stays closed for ``stuck`` seconds (a *stuck* button: no finger holds a call that long,
while a ron held to sign the score sheet or chii and kan held to call a referee take a
couple of seconds), is dropped: the fault names it (``suspect``) and nothing else comes of
it. The claim window is judged on the presses' edge times, so holding a press back changes
no ruling as long as the window waits for it: :class:`~hardware.buttons.ButtonPanel` says
when a press is under test (``under_test``) and the table service's claim-window timer waits
for it. A finger's tap is reported ``chatter_window`` after its release; a press held a
second or two, that long after it is let go.

A stuck button counts again once it has been released and still for ``recover``. Judging
stillness by every edge, not only by presses, is what keeps a contact whose edges come in
bursts, as a loose wire being shaken makes them, from making calls: between its presses it
is not still. Stillness while closed (a finger holding) ends the episode for the chatter
rules, but not the test: the press is reported only after the contact opens.
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

    ``t``: the edge that showed it. ``since``: when the episode began (its first edge).
    ``reason``: what was seen, in words. ``suspect``: the time of the first press it made
    that was still under test, now dropped (no call comes of it), or None.
    """

    t: float
    since: float
    reason: str
    suspect: float | None


class Stuck(NamedTuple):
    """The button's contact has been closed for ``stuck`` seconds: stuck down, not a finger.

    ``t``: when that became so (``since`` + ``stuck``). ``since``: when it closed.
    ``suspect``: the press it made as it stuck (under test, now dropped), or None."""

    t: float
    since: float
    suspect: float | None


class Quiet(NamedTuple):
    """A faulty button (chattering, or stuck and since released) has had no edge for
    ``recover`` seconds; its presses count again. ``edges``: how many edges it made while it
    was faulty."""

    t: float
    edges: int


Output = Press | Chatter | Stuck | Quiet


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
        self.closed_since: float | None = None   # the press that closed it (None: no press)
        self.last_edge: float | None = None
        self.burst_start = -math.inf      # first edge of the current run of close-together edges
        self.presses: collections.deque[float] = collections.deque(
            maxlen=settings.chatter_presses)
        # the latest movements (first edges of bursts): chatter_presses presses and the
        # releases between them make 2 * chatter_presses - 1
        self.movements: collections.deque[float] = collections.deque(
            maxlen=2 * settings.chatter_presses - 1)
        self.episode_start: float | None = None   # first edge since the contact was still
        self.first: float | None = None           # the episode's first press
        self.pending: list[float] = []            # the presses under test, oldest first
        self.faulty_since: float | None = None
        self.stuck = False                        # the fault is a stuck contact
        self.fault_edges = 0

    @property
    def faulty(self) -> bool:
        return self.faulty_since is not None

    @property
    def under_test(self) -> float | None:
        """The edge time of the oldest press still under test (None: none is)."""
        return self.pending[0] if self.pending else None

    def next_deadline(self) -> float | None:
        """When :meth:`advance` next has something to do, or None."""
        s = self.settings
        if self.faulty:
            if self.stuck and self.closed:
                return None               # released first: an edge will come
            return self.last_edge + s.recover
        if self.pending:
            if self.closed:
                return None if self.closed_since is None else self.closed_since + s.stuck
            return self.last_edge + s.chatter_window
        return None

    def advance(self, now: float) -> list[Output]:
        """Let time pass to ``now``: report the presses under test once the contact has been
        open and still for ``chatter_window``, drop them once it has been closed for
        ``stuck``, end a fault after a quiet spell."""
        s = self.settings
        if self.faulty:
            if now - self.last_edge >= s.recover and not (self.stuck and self.closed):
                out = [Quiet(self.last_edge + s.recover, self.fault_edges)]
                self._reset()
                return out
            return []
        if not self.pending:
            return []
        if self.closed:
            if self.closed_since is not None and now - self.closed_since >= s.stuck:
                return self._stuck()
            return []
        if now - self.last_edge >= s.chatter_window:
            out = [Press(t) for t in self.pending]
            self.pending = []
            return out
        return []

    def withdraw(self) -> float | None:
        """Drop the presses under test: they made another call (a call for a referee), not a
        claim. The oldest one's time, or None."""
        t = self.under_test
        self.pending = []
        return t

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
        if self.last_edge is None or t - self.last_edge >= s.chatter_window:
            self.episode_start = t       # after a still spell: a new episode, no press yet
            self.first = None
        self.last_edge = t
        if self.faulty:
            self.fault_edges += 1
            return out
        if t - self.burst_start > s.chatter_window:
            ms = (t - self.burst_start) * 1e3
            return out + self._chatter(t, f"its contact kept bouncing for {ms:.0f} ms")
        press = closed and t - self.opened_at >= s.debounce
        if not closed:
            self.opened_at = t
        elif press:
            self.closed_since = t
        if (self.first is not None and t - self.first > s.chatter_run
                and (press or self.pending)):
            return out + self._chatter(
                t, f"it kept moving for over {s.chatter_run:g} s after a press, never still "
                   f"for {s.chatter_window * 1e3:.0f} ms, and pressed again")
        if press:
            return out + self._press(t)
        if not closed:
            return out + self._restless(t)
        return out                       # re-closed within the bounce time: the same press

    def _restless(self, t: float) -> list[Output]:
        """A fault if the contact has moved as often as ``chatter_presses`` presses would
        within ``chatter_window``, whether or not those movements were presses."""
        s = self.settings
        m = self.movements
        if len(m) < m.maxlen or t - m[0] >= s.chatter_window:
            return []
        ms = (t - m[0]) * 1e3
        return self._chatter(t, f"its contact moved {len(m)} times in {ms:.0f} ms, faster "
                                "than a finger")

    def _press(self, t: float) -> list[Output]:
        s = self.settings
        self.presses.append(t)
        if len(self.presses) == s.chatter_presses and t - self.presses[0] < s.chatter_window:
            ms = (t - self.presses[0]) * 1e3
            return self._chatter(t, f"{s.chatter_presses} presses in {ms:.0f} ms, faster than "
                                    "a finger")
        # a press that comes amid a flicker is no call
        restless = self._restless(t)
        if restless:
            return restless
        if self.first is None:
            self.first = t
        self.pending.append(t)
        return []

    def _chatter(self, t: float, reason: str) -> list[Output]:
        # the episode is the chatter: it began at its first edge, and the presses under test
        # (the first may look like a finger's) are dropped
        suspect = self.under_test
        self.faulty_since = self.episode_start
        self.fault_edges = 1
        self.pending = []
        return [Chatter(t, self.episode_start, reason, suspect)]

    def _stuck(self) -> list[Output]:
        since = self.closed_since
        suspect = self.under_test
        self.faulty_since = since
        self.stuck = True
        self.fault_edges = 0
        self.pending = []
        return [Stuck(since + self.settings.stuck, since, suspect)]

    def _reset(self) -> None:
        # The contact keeps its level: if it settled closed, it is held, not pressed.
        self.faulty_since = None
        self.stuck = False
        self.fault_edges = 0
        self.presses.clear()
        self.movements.clear()
        self.pending = []
        self.episode_start = None
        self.first = None
        self.closed_since = None
        self.burst_start = -math.inf
