"""How many live streams one dashboard takes, and who gets one.

Under gunicorn's gevent worker (``web/gunicorn.conf.py``) a stream costs no thread, but it
still costs memory and a file descriptor, and spectators must never crowd out the referee:

* at most ``per_client`` streams per client address (a phone with a few tabs open, or one
  that reconnected before its old stream was noticed gone); past that, 429 with Retry-After;
* at most ``total`` streams in all, sized by :func:`size` from the memory set aside for
  streams and the file descriptors the process may open; past that, 503 with Retry-After;
* a logged-in referee's stream is never refused (it still counts).

Pages, logins and referee actions are never counted here: they are short requests, and the
server's connection pool (``Sizing.connections``) keeps room for them beside every stream.

Stdlib only: ``web/gunicorn.conf.py`` loads this file by path to size the pool, before any
of Flask is imported in the master process.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

try:
    import resource
except ImportError:  # pragma: no cover - not on Linux
    resource = None

#: Memory one open stream may cost, for sizing. ``python bench/sse.py`` measures 22-23 KiB of
#: the worker's resident memory per stream under the gevent worker (``rss_per_stream_kb``,
#: x86-64; the same 64-bit layout on a Pi 5); the rest is for the kernel's socket buffers
#: while a phone lags (the hub drops one that falls 1000 messages behind) and for slack.
STREAM_BYTES = 64 * 1024
#: Memory set aside for streams by default: 64 MiB, about 1000 streams. A Pi 5 has 2-8 GiB;
#: the table service (camera, tile model) needs a few hundred MiB of it.
DEFAULT_MEMORY_MB = 64.0
#: File descriptors the process needs besides its connections (journal, logs, listening
#: socket, gevent's own).
RESERVED_FDS = 128
#: Connections kept free beside streams and the pages of the phones that watch them.
SPARE_CONNECTIONS = 64

#: Seconds a refused phone is told to wait: long enough for a stream of a phone that has gone
#: to be noticed and freed (keep-alive 4 s, unacknowledged data 5 s).
RETRY_PER_CLIENT = 10
RETRY_FULL = 30


@dataclass(frozen=True)
class Sizing:
    """``streams``: the most streams at once. ``connections``: the server's connection pool,
    twice the streams plus spare, so streams can never take the connections that pages,
    logins and referee actions need (a watching phone may hold a second connection for its
    page and script while its stream is open)."""

    streams: int
    connections: int

    @property
    def file_descriptors(self) -> int:
        """What the process's open-file limit must allow."""
        return self.connections + RESERVED_FDS


def open_file_limit() -> int | None:
    """The process's soft limit on open files (None where there is none to read)."""
    if resource is None:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def raise_open_file_limit(want: int) -> int | None:
    """Raise the soft open-file limit toward ``want`` (never above the hard limit, never
    lowering it); return the limit now in force. systemd gives services 1024 by default."""
    if resource is None:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        target = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass
    return open_file_limit()


def size(memory_mb: float = DEFAULT_MEMORY_MB, max_streams: int | None = None,
         file_limit: int | None = None, stream_bytes: int = STREAM_BYTES) -> Sizing:
    """The stream cap and connection pool.

    ``memory_mb``: memory set aside for streams. ``max_streams``: an explicit cap instead of
    the memory's. ``file_limit``: open files allowed (default: this process's soft limit).
    Whichever is smaller wins: a cap the file descriptors cannot carry is lowered.
    """
    streams = max_streams if max_streams is not None else int(memory_mb * 2**20 // stream_bytes)
    limit = open_file_limit() if file_limit is None else file_limit
    if limit is not None:
        streams = min(streams, (limit - RESERVED_FDS - SPARE_CONNECTIONS) // 2)
    streams = max(1, streams)
    return Sizing(streams=streams, connections=2 * streams + SPARE_CONNECTIONS)


class StreamRefused(Exception):
    """No stream for this phone now: ``status`` (429 or 503), ``retry_after`` in seconds and
    one sentence for the person holding the phone."""

    def __init__(self, status: int, retry_after: int, message: str):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.message = message


class Ticket:
    """One admitted stream; :meth:`release` (safe to call twice) gives its place back."""

    __slots__ = ("_gate", "client", "referee", "_released")

    def __init__(self, gate: "StreamGate", client: str, referee: bool):
        self._gate = gate
        self.client = client
        self.referee = referee
        self._released = False

    def release(self) -> None:
        self._gate._release(self)


class StreamGate:
    """Admits streams under the two limits.

    ``total``: streams at once (see :func:`size`). ``per_client``: streams per client
    address. The count is taken when a stream is admitted, not when it starts sending, so a
    burst of phones arriving together cannot all slip past the limit.
    """

    def __init__(self, total: int, per_client: int):
        if total < 1 or per_client < 1:
            raise ValueError(f"stream limits must be 1 or more, not total={total}, "
                             f"per_client={per_client}")
        self.total = total
        self.per_client = per_client
        self._lock = threading.Lock()
        self._open = 0
        self._by_client: dict[str, int] = {}

    def check(self, client: str, referee: bool = False) -> None:
        """Raise :class:`StreamRefused` if ``client`` would be refused now (takes nothing)."""
        with self._lock:
            self._refusal(client, referee)

    def admit(self, client: str, referee: bool = False) -> Ticket:
        """A ticket for one stream, or :class:`StreamRefused`. A referee is never refused."""
        with self._lock:
            self._refusal(client, referee)
            self._open += 1
            self._by_client[client] = self._by_client.get(client, 0) + 1
        return Ticket(self, client, referee)

    def _refusal(self, client: str, referee: bool) -> None:
        if referee:
            return
        if self._by_client.get(client, 0) >= self.per_client:
            raise StreamRefused(
                429, RETRY_PER_CLIENT,
                f"This address already has {self.per_client} live views of the table open "
                f"(the most one phone or network address may have): close one, or try again "
                f"in {RETRY_PER_CLIENT} s.")
        if self._open >= self.total:
            raise StreamRefused(
                503, RETRY_FULL,
                f"The table's server is watched by {self._open} phones, as many as it takes: "
                f"try again in {RETRY_FULL} s.")

    def _release(self, ticket: Ticket) -> None:
        with self._lock:
            if ticket._released:
                return
            ticket._released = True
            self._open -= 1
            left = self._by_client.get(ticket.client, 0) - 1
            if left > 0:
                self._by_client[ticket.client] = left
            else:
                self._by_client.pop(ticket.client, None)

    @property
    def open(self) -> int:
        """Streams admitted and not yet released."""
        with self._lock:
            return self._open
