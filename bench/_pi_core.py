"""Holding work to a slower machine's speed: :class:`SlowCore` makes this machine behave, for
the work it wraps, like one core ``slowdown`` times slower.

Each piece of work is timed in CPU time of its own thread (so other programs on a shared
machine do not count), and finishes only ``slowdown`` times that long after it began (or when
it really finished, if this machine was slower still). Two kinds share the one core the way the
operating system would share it between a high-priority camera thread and a worker:
``"detect"`` (per camera frame) runs at once, and ``"recognise"`` gets what is left, so its
end is pushed back by all the detection work done meanwhile.
"""
from __future__ import annotations

import contextlib
import threading
import time


class SlowCore:
    def __init__(self, slowdown: float):
        self.slowdown = float(slowdown)
        self._lock = threading.Lock()
        self.used_ns = {"detect": 0, "recognise": 0}   # emulated core time used
        self.cpu_ns = {"detect": 0, "recognise": 0}    # CPU time used here
        self.pieces = {"detect": [], "recognise": []}  # emulated ms of each piece
        self.overran = 0                               # pieces slower here than emulated

    @contextlib.contextmanager
    def __call__(self, kind: str):
        w0 = time.monotonic_ns()
        c0 = time.thread_time_ns()
        with self._lock:
            detect_before = self.used_ns["detect"]
        yield
        cpu = time.thread_time_ns() - c0
        own = int(self.slowdown * cpu)
        while True:
            now = time.monotonic_ns()
            with self._lock:
                stolen = self.used_ns["detect"] - detect_before if kind == "recognise" else 0
            owed = own + stolen - (now - w0)
            if owed <= 0:
                break
            time.sleep(owed / 1e9)
        took = time.monotonic_ns() - w0
        with self._lock:
            if took - own - stolen > 2_000_000:
                self.overran += 1
            self.used_ns[kind] += took - stolen
            self.cpu_ns[kind] += cpu
            self.pieces[kind].append((took - stolen) / 1e6)
