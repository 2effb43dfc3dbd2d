"""What one dashboard process keeps beside the table: open streams, PIN guard, sessions."""
from __future__ import annotations

import collections
import os
import threading
from pathlib import Path

from referee.events import dumps

from .auth import PinGuard, RefereeSessions
from .pin import read_pin_hash

CLOSE = {"kind": "_close"}


class Dashboard:
    """Per-app state, kept in ``app.extensions["riichi"]``.

    ``table``: the TableSource (``snapshot``, ``hub``, ``submit``, ``events``, ``rulings``,
    ``clock``). ``pin_hash``: the hash itself, a path to the hash file (read at each login,
    so ``set-pin`` needs no restart), or None when no PIN is set.
    """

    def __init__(self, table, pin_hash, guard: PinGuard, sessions: RefereeSessions):
        self.table = table
        self._pin_hash = pin_hash
        self.guard = guard
        self.sessions = sessions
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._streams: set = set()
        self._json: collections.OrderedDict[int, str] = collections.OrderedDict()

    def pin_hash(self) -> str | None:
        if isinstance(self._pin_hash, os.PathLike):
            return read_pin_hash(Path(self._pin_hash))
        return self._pin_hash or None

    # -- streams ----------------------------------------------------------------------
    def stream_opened(self, sub) -> None:
        with self._lock:
            self._streams.add(sub)
        if self.stopping.is_set():
            self._close(sub)

    def stream_closed(self, sub) -> None:
        with self._lock:
            self._streams.discard(sub)

    @property
    def stream_count(self) -> int:
        with self._lock:
            return len(self._streams)

    def stop(self) -> None:
        """End every open stream now (the server is shutting down)."""
        self.stopping.set()
        with self._lock:
            subs = list(self._streams)
        for sub in subs:
            self._close(sub)

    @staticmethod
    def _close(sub) -> None:
        try:
            sub.queue.put_nowait(CLOSE)
        except Exception:  # a full queue: the stream sees `stopping` on its next poll
            pass

    def message_json(self, message: dict) -> str:
        """The JSON of a hub message's data, encoded once however many phones receive it."""
        key = message.get("id")
        if key is None:
            return dumps(message["data"])
        with self._lock:
            text = self._json.get(key)
            if text is not None:
                return text
        text = dumps(message["data"])
        with self._lock:
            self._json[key] = text
            while len(self._json) > 64:
                self._json.popitem(last=False)
        return text
