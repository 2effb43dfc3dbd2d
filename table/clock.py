"""The table clock: one monotonic clock for every judgement, never the wall clock."""
from __future__ import annotations

import time


def monotonic() -> float:
    """The table clock: seconds on ``time.monotonic_ns()``, the clock lgpio edge ticks and camera
    sensor timestamps share. Never the wall clock."""
    return time.monotonic_ns() / 1e9


class TableClock:
    """The table clock: ``monotonic()`` shifted by ``offset`` (kept continuous across reboots
    by the journal) and, for a demo or rehearsal, sped up by ``speed``.

    ``from_mono(m)`` turns a source's monotonic stamp (a button edge, a camera frame) into
    table time; ``real_seconds(dt)`` is how long to wait for ``dt`` seconds of table time.
    """

    virtual = False

    def __init__(self, offset: float = 0.0, speed: float = 1.0, origin: float | None = None):
        self.offset = offset
        self.speed = speed if speed > 0 else 1.0
        self.origin = monotonic() if origin is None else origin

    def from_mono(self, m: float) -> float:
        return self.origin + self.offset + (m - self.origin) * self.speed

    def __call__(self) -> float:
        return self.from_mono(monotonic())

    def real_seconds(self, table_seconds: float) -> float:
        return max(0.0, table_seconds / self.speed)


class VirtualClock:
    """Table time that moves only when told: a recorded log played as fast as possible."""

    virtual = True
    speed = 0.0

    def __init__(self, t: float = 0.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def from_mono(self, m: float) -> float:
        return self.t

    def real_seconds(self, table_seconds: float) -> float:
        return 0.0
