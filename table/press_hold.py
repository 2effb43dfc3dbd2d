"""Seat-button presses wait, briefly, for the camera to report the discards before them.

The camera stamps a discard with the first frame that showed it, but reports it only once the
tile has been read, up to a second or so later on a Pi. A pon pressed half a second after the
discard reaches the table before the discard does; judged at once, it would land on the window
of the discard before (or count as late) and the discard, coming after it, would have its time
pushed past the press. :class:`PressHold` keeps presses until every camera has reported all it
saw up to the press's time (its *settled* time), then lets them through in time order, so the
judge sees events in the order they happened. A press never waits longer than ``hold``
seconds, and a camera that sends no frames for ``stall`` seconds holds nothing back.
"""
from __future__ import annotations

import threading
import time
from typing import Callable


class PressHold:
    """Presses waiting for the cameras.

    ``hold``: real seconds a press waits at most. ``stall``: real seconds without a frame after
    which a camera no longer holds presses. ``clock``: real time in seconds (tests pass a fake).
    """

    def __init__(self, hold: float = 1.5, stall: float = 0.5,
                 clock: Callable[[], float] = time.monotonic):
        self.hold = float(hold)
        self.stall = float(stall)
        self.clock = clock
        self._lock = threading.Lock()
        self._held: list[tuple[float, float, dict]] = []    # (t, arrived, press)
        self._cameras: dict[int, tuple[float, float]] = {}  # index -> (settled t, heard at)

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
            out = []
            while self._held:
                t, arrived, press = self._held[0]
                if t <= settled or now - arrived >= self.hold or \
                        (before is not None and t < before):
                    out.append(press)
                    self._held.pop(0)
                else:
                    break
            return out

    def waiting(self, upto: float) -> bool:
        """A press stamped at or before ``upto`` is still held (a window closing at ``upto``
        must wait for it)."""
        with self._lock:
            return bool(self._held) and self._held[0][0] <= upto

    def next_release(self) -> float | None:
        """Real seconds until the longest-held press must go, None when none is held."""
        with self._lock:
            if not self._held:
                return None
            return max(0.0, min(a for _, a, _ in self._held) + self.hold - self.clock())
