"""How far a recorded game may be played: a rehearsal stepped through by whoever drives it.

A table service playing a recorded log (``[service] replay``) normally plays it to its end.
Given a :class:`Pace`, it plays an event only once the pace allows it, so a driver can hold
the service at an exact point of a real run: the crash test lets it reach the event it means
to pull the plug after, then lets it run on and kills it there, whatever the machine's load.
"""
from __future__ import annotations

import threading
from typing import IO


class Pace:
    """The number of the recorded game's events the service may have played (from its start).

    ``until``: how many it may play at first (None: all of them).
    """

    def __init__(self, until: int | None = 0):
        self._until = until
        self._changed = threading.Condition()

    def allow(self, until: int | None) -> None:
        """Let the first ``until`` events be played (None: all); never takes back what it gave."""
        with self._changed:
            if until is None or (self._until is not None and until > self._until):
                self._until = until
            self._changed.notify_all()

    def wait(self, index: int, stop: threading.Event) -> bool:
        """Wait until the event at ``index`` (0: the game's first) may be played; False if
        ``stop`` was set first."""
        with self._changed:
            while self._until is not None and index >= self._until:
                if stop.is_set():
                    return False
                self._changed.wait(0.2)   # a stop is seen within this; allow() wakes at once
        return not stop.is_set()

    def follow(self, lines: IO[str]) -> threading.Thread:
        """Take ``play N`` lines from ``lines`` (standard input) in a thread: each lets the first
        N events be played; the end of the input lets the game play on to its end. Any other
        line is ignored (a driver's typo must not stop the table)."""
        def read():
            for line in lines:
                word, _, number = line.strip().partition(" ")
                if word == "play" and number.strip().isdigit():
                    self.allow(int(number))
            self.allow(None)

        thread = threading.Thread(target=read, name="pace", daemon=True)
        thread.start()
        return thread
