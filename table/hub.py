"""The hub: every message of one table fanned out to the dashboard streams that read it."""
from __future__ import annotations

import collections
import queue
import threading
from typing import Any


class Subscription:
    """One dashboard stream's view of the hub: a bounded queue of messages."""

    def __init__(self, hub: "Hub", maxsize: int):
        self._hub = hub
        self.queue: queue.Queue = queue.Queue(maxsize)
        self.dropped = False

    def get(self, timeout: float | None = None) -> dict | None:
        """Next message, or None after ``timeout`` seconds (the caller's cue for a keep-alive)."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def get_nowait(self) -> dict | None:
        """The next message if one is waiting, else None at once (no timer: cheap enough to
        drain a queue message by message)."""
        try:
            return self.queue.get_nowait()
        except queue.Empty:
            return None

    def close(self) -> None:
        self._hub.unsubscribe(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Hub:
    """Fans messages out to every subscriber.

    A message is ``{"id": n, "kind": kind, "data": data}`` with ``kind`` one of ``event``,
    ``ruling``, ``state``, ``health``. A subscriber that stops reading (a phone gone to sleep)
    fills its queue and is dropped rather than slowing the table down; it gets a fresh
    snapshot when it reconnects.

    ``backlog``: how many recent messages are kept for late joiners (``recent``).
    ``queue_size``: how many messages a subscriber may fall behind before it is dropped.
    """

    def __init__(self, backlog: int = 500, queue_size: int = 1000):
        self._lock = threading.Lock()
        self._subscribers: list[Subscription] = []
        self._recent: collections.deque = collections.deque(maxlen=backlog)
        self._next_id = 1
        self._queue_size = queue_size

    def publish(self, kind: str, data: Any) -> dict:
        with self._lock:
            message = {"id": self._next_id, "kind": kind, "data": data}
            self._next_id += 1
            self._recent.append(message)
            for sub in list(self._subscribers):
                try:
                    sub.queue.put_nowait(message)
                except queue.Full:
                    sub.dropped = True
                    self._subscribers.remove(sub)
        return message

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self._queue_size)
        with self._lock:
            self._subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    @property
    def last_id(self) -> int:
        """The id of the latest message (0 before any): a view of the table built when this
        was N is still current while it is N."""
        with self._lock:
            return self._next_id - 1

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def recent(self, kind: str | None = None) -> list[dict]:
        with self._lock:
            return [m for m in self._recent if kind is None or m["kind"] == kind]
