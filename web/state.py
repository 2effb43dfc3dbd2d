"""What one dashboard process keeps beside the table: open streams, PIN guard, sessions."""
from __future__ import annotations

import collections
import os
import threading
from pathlib import Path

from referee.events import dumps
from table.view import TableView

from .auth import PinGuard, RefereeSessions
from .capacity import StreamGate
from .pin import read_pin_hash

CLOSE = {"kind": "_close"}


class Dashboard:
    """Per-app state, kept in ``app.extensions["riichi"]``.

    ``table``: the :class:`table.view.TableView` it shows. ``pin_hash``: the hash itself, a path to
    the hash file (read at each login,
    so ``set-pin`` needs no restart), or None when no PIN is set. ``gate``: who may open a
    stream (:class:`web.capacity.StreamGate`).
    """

    def __init__(self, table: TableView, pin_hash, guard: PinGuard, sessions: RefereeSessions,
                 gate: StreamGate):
        self.table = table
        self._pin_hash = pin_hash
        self.guard = guard
        self.sessions = sessions
        self.gate = gate
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._streams: set = set()
        self._parts: collections.OrderedDict[int, tuple[bytes, bytes]] = \
            collections.OrderedDict()
        self._state_cache: tuple[int, tuple[bytes, bytes]] | None = None

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

    def state_parts(self, build) -> tuple[bytes, bytes]:
        """The full ``state`` event a stream starts with, in the two parts around ``now``;
        ``build()`` makes its dict. Built again only when the hub has published something
        since: a crowd of phones reconnecting at once (the Wi-Fi came back) costs one read
        of the journal, not one each."""
        last = self.table.hub.last_id
        cached = self._state_cache
        if cached is not None and cached[0] == last:
            return cached[1]
        state = build()
        del state["now"]
        body = dumps(state)
        parts = (b'retry: 2000\nevent: state\ndata: {"now":', b"," + body[1:].encode() + b"\n\n")
        self._state_cache = (last, parts)
        return parts

    def message_parts(self, message: dict, rate: float) -> tuple[bytes, bytes]:
        """A hub message as one server-sent event, in the two parts around the table clock
        (``now``, which each stream stamps as it sends): built once, however many phones
        receive it."""
        key = message.get("id")
        parts = self._parts.get(key) if key is not None else None  # a dict read: no lock
        if parts is None:
            head = f"id: {key}\n" if key is not None else ""
            parts = (f'{head}event: {message["kind"]}\ndata: {{"now":'.encode(),
                     f',"rate":{rate!r},"data":{dumps(message["data"])}}}\n\n'.encode())
            if key is not None:
                with self._lock:
                    self._parts[key] = parts
                    while len(self._parts) > 64:
                        self._parts.popitem(last=False)
        return parts
