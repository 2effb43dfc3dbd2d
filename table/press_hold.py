"""Seat-button presses wait, briefly, for the camera to report the discards before them.

The camera stamps a discard with the first frame that showed it, but reports it only once the
tile has been read, up to a second or so later on a Pi. A pon pressed half a second after the
discard reaches the table before the discard does; judged at once, it would land on the window
of the discard before (or count as late) and the discard, coming after it, would have its time
pushed past the press. :class:`PressHold` keeps presses until every camera has reported all it
saw up to the press's time (its *settled* time), then lets them through in time order, so the
judge sees events in the order they happened. A press never waits longer than ``hold``
seconds, and a camera that sends no frames for ``stall`` seconds holds nothing back.

The seat buttons hold a press back too, while they test it (``hardware.debounce``: a finger's
press, or the first edge of a chattering or sticking contact?), and say so with
:class:`PressUnderTest` items. A press under test is stamped with its own edge, so everything
stamped after it waits for it (:meth:`PressHold.testing`): a later press (judged after it, it
would keep its order among the claims on a discard), a discard (which would close the claim
window before it) and the window's deadline (:meth:`PressHold.waiting`). A test outlasting
``test_limit`` real seconds (the buttons' worker gone) holds nothing back.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, NamedTuple


class PressUnderTest(NamedTuple):
    """A queue item of the seat buttons: ``seat``'s ``call`` button made a press at ``t``
    (the buttons' clock, as a ``call`` event's) that is under test (``testing`` True), or its
    test is over (``testing`` False): the calls it passed came on the queue just before this
    item; one that failed (chatter, a stuck button, a call for a referee) made none."""

    seat: int
    call: str
    t: float
    testing: bool


class PressHold:
    """Presses waiting for the cameras.

    ``hold``: real seconds a press waits at most. ``stall``: real seconds without a frame after
    which a camera no longer holds presses. ``clock``: real time in seconds (tests pass a fake).
    """

    def __init__(self, hold: float = 1.5, stall: float = 0.5,
                 clock: Callable[[], float] = time.monotonic, test_limit: float = 10.0):
        self.hold = float(hold)
        self.stall = float(stall)
        self.test_limit = float(test_limit)
        self.clock = clock
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._held: list[tuple[float, float, dict]] = []    # (t, arrived, press)
        self._cameras: dict[int, tuple[float, float]] = {}  # index -> (settled t, heard at)
        self._tests: dict[tuple, tuple[float, float]] = {}  # button -> (t, since)

    def testing(self, button: tuple, t: float) -> None:
        """``button`` (any key: seat and call) has a press at ``t`` (table clock) under test:
        nothing stamped after it is judged before its test is over."""
        with self._lock:
            self._tests[button] = (float(t), self.clock())

    def tested(self, button: tuple) -> None:
        """``button``'s test is over (its presses, if any, were :meth:`add`-ed first)."""
        with self._lock:
            self._tests.pop(button, None)
            self._changed.notify_all()

    def _first_test(self, now: float) -> float:
        live = [t for t, since in self._tests.values() if now - since < self.test_limit]
        return min(live) if live else float("inf")

    def wait_tested(self, before: float, stop: threading.Event | None = None) -> None:
        """Wait until no press stamped before ``before`` is under test (an event at
        ``before`` may be judged then); ``test_limit`` at most."""
        with self._lock:
            while self._first_test(self.clock()) < before:
                if stop is not None and stop.is_set():
                    return
                self._changed.wait(0.05)

    def add(self, press: dict) -> None:
        """A press (``t`` on the table clock) to judge once the cameras have caught up."""
        with self._lock:
            self._held.append((float(press["t"]), self.clock(), press))
            self._held.sort(key=lambda item: item[0])

    def camera(self, index: int, settled: float) -> None:
        """Camera ``index`` has reported every event it will ever stamp before ``settled``."""
        with self._lock:
            self._cameras[index] = (float(settled), self.clock())

    def camera_gone(self, index: int) -> None:
        with self._lock:
            self._cameras.pop(index, None)

    def _settled(self, now: float) -> float:
        live = [t for t, heard in self._cameras.values() if now - heard <= self.stall]
        return min(live) if live else float("inf")

    def due(self, before: float | None = None) -> list[dict]:
        """The presses that may be judged now, in time order: those the cameras have caught up
        with, those that waited ``hold``, and (with ``before``) those stamped earlier than an
        event about to be judged."""
        now = self.clock()
        with self._lock:
            settled = self._settled(now)
            tested = self._first_test(now)
            out = []
            while self._held:
                t, arrived, press = self._held[0]
                if t >= tested:
                    break                # a press under test was made before it
                if t <= settled or now - arrived >= self.hold or \
                        (before is not None and t < before):
                    out.append(press)
                    self._held.pop(0)
                else:
                    break
            return out

    def waiting(self, upto: float) -> bool:
        """A press stamped at or before ``upto`` is still held or under test (a window closing
        at ``upto`` must wait for it)."""
        with self._lock:
            return (bool(self._held) and self._held[0][0] <= upto) or \
                self._first_test(self.clock()) <= upto

    def next_release(self) -> float | None:
        """Real seconds until the longest-held press must go, None when none is held (a press
        waiting for a test goes when the test's end is added)."""
        with self._lock:
            if not self._held:
                return None
            return max(0.0, min(a for _, a, _ in self._held) + self.hold - self.clock())
