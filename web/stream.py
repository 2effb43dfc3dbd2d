"""``/stream``: the table live, as server-sent events.

The first message is a full ``state``: the snapshot plus every ruling, the referee's events,
the latest table events and, however old, the discard and presses each claim ruling rests on
(``evidence``), so a phone that (re)connects needs nothing else. Then every hub
message follows as its own SSE event (``event``, ``ruling``, ``state``, ``health``). Each
message's data is ``{"now": T, "rate": R, "data": ...}`` where ``T`` is the table clock when
it was sent and ``R`` how fast that clock runs (1 but in a sped-up demo): the page runs the
claim countdown from them, never from the phone's own clock.

Who gets a stream is decided by :class:`web.capacity.StreamGate` (so many per client
address, so many in all, the referee always): a refused phone gets 429 or 503 with
Retry-After. ``HEAD /stream`` asks the same question without opening one, which is how the
page learns why its EventSource was refused.

Under gunicorn's gevent worker a stream is a greenlet, not a thread; under the demo's
threaded server it is a thread. Either way it ends as soon as its phone is known to be gone:
a closed connection is seen within ``RIICHI_STREAM_POLL`` seconds, a keep-alive comment goes
out at least every ``RIICHI_KEEPALIVE`` seconds, and data left unacknowledged for
``RIICHI_UNACKED_TIMEOUT`` seconds (a phone that left the Wi-Fi) aborts the connection.

:func:`sse_body` is the part another live page can reuse: any :class:`table.hub.Hub`, a
first message, and how to render each hub message.
"""
from __future__ import annotations

import bisect
import select
import socket
import time
from typing import Callable, Iterator

from flask import Blueprint, Response, current_app, request

from .auth import client_address, is_referee
from .capacity import StreamRefused
from .state import CLOSE

bp = Blueprint("stream", __name__)

RECENT_EVENTS = 40
SSE_HEADERS = {"Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"}


def clock_rate(table) -> float:
    """Table seconds per real second: 1 at a real table; a demo's sped-up clock says its
    ``speed`` (0 for a clock that moves only with events), so the page's countdown keeps pace."""
    speed = getattr(getattr(table, "clock", None), "speed", None)
    if isinstance(speed, (int, float)) and not isinstance(speed, bool) and speed >= 0:
        return float(speed)
    return 1.0


def when(event: dict) -> float:
    """When it happened by its source's own clock: a press the table had to put after an event
    reported later keeps its own time as ``t_source``."""
    t = event.get("t_source")
    return float(t if isinstance(t, (int, float)) else event["t"])


def claim_evidence(events: list[dict], rulings: list[dict]) -> list[int]:
    """Indexes into ``events`` of the discard and the presses each ``claim`` ruling rests on:
    the last discard of its seat and tile at or before the decision, and every ``call`` from
    that discard to the decision. The page shows them under the claim ("Presses: S2 pon
    +0.80 s"), the referee's evidence for the window; a claim on an added kan has no discard
    and none."""
    eps = 1e-9
    discards: dict[tuple, list[tuple[float, int]]] = {}
    calls: list[tuple[float, int]] = []
    for i, e in enumerate(events):
        if e.get("type") == "discard":
            discards.setdefault((e.get("seat"), e.get("tile")), []).append((when(e), i))
        elif e.get("type") == "call":
            calls.append((when(e), i))
    for found in discards.values():
        found.sort()
    calls.sort()
    needed: set[int] = set()
    for r in rulings:
        if r.get("type") != "claim" or not isinstance(r.get("t"), (int, float)):
            continue
        found = discards.get((r.get("discard_seat"), r.get("tile")), [])
        k = bisect.bisect_right(found, (r["t"] + eps, len(events))) - 1
        if k < 0:
            continue
        t0, index = found[k]
        needed.add(index)
        lo = bisect.bisect_left(calls, (t0 - eps, -1))
        hi = bisect.bisect_right(calls, (r["t"] + eps, len(events)))
        needed.update(i for _, i in calls[lo:hi])
    return sorted(needed)


def full_state(table) -> dict:
    """What a phone needs when it connects: snapshot, rulings, referee events, recent events,
    and the older events the claims rest on (``evidence``: a page opened after a claim shows
    its presses as the page that saw it live does)."""
    events = table.events()
    rulings = table.rulings()
    # Times on the page count from the game's start: table-clock seconds mean nothing to people.
    starts = [e["t"] for e in events if e.get("type") == "game_start"]
    recent_from = max(0, len(events) - RECENT_EVENTS)
    return {
        "now": table.clock(),
        "rate": clock_rate(table),
        "full": True,
        "game_t0": starts[-1] if starts else (events[0]["t"] if events else None),
        "data": table.snapshot(),
        "rulings": rulings,
        "referee": [e for e in events if e.get("type") == "referee"],
        "events": events[recent_from:],
        "evidence": [events[i] for i in claim_evidence(events, rulings) if i < recent_from],
    }


def _client_socket(environ) -> socket.socket | None:
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    return sock if isinstance(sock, socket.socket) else None


def _limit_unacked(sock: socket.socket | None, seconds: float) -> None:
    if sock is None or seconds <= 0 or not hasattr(socket, "TCP_USER_TIMEOUT"):
        return
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, int(seconds * 1000))
    except OSError:
        pass


def _peer_gone(sock: socket.socket | None) -> bool:
    """True when the client closed its end. An EventSource sends nothing after its request,
    so a readable socket means end of stream (or a reset)."""
    if sock is None:
        return False
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN | select.POLLERR | select.POLLHUP)
        ready = poller.poll(0)
    except (OSError, ValueError):
        return True
    if not ready:
        return False
    if hasattr(sock, "cipher"):
        # TLS (the https dashboard): what arrives is the client's close_notify, which TLS 1.3
        # encrypts like any data, so it cannot be told apart without reading it (and a TLS
        # socket refuses MSG_PEEK). An EventSource sends nothing more; should anything else
        # come, the page reconnects to a fresh state, as after any dropped stream.
        return True
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def sse_body(hub, first: Callable[[], bytes], render: Callable[[dict], bytes | None], *,
             keepalive: float, poll: float, stopping, sock: socket.socket | None = None,
             opened: Callable | None = None, closed: Callable | None = None,
             batch: int = 64) -> Iterator[bytes]:
    """The body of one live stream: ``first()`` once (bytes, a ``retry:`` line first if it
    wants one), then ``render(message)`` for each message of ``hub`` (bytes; None skips it),
    keep-alive comments when idle.

    Messages that are already waiting go out together, up to ``batch`` of them, in one write:
    an event comes with its rulings and the new state, and one write instead of three is what
    lets one event loop keep hundreds of phones up to date.

    It subscribes when the first byte is due (a phone gone before that costs nothing) and
    ends when ``stopping`` (a :class:`threading.Event`) is set, when the hub dropped it for
    falling behind (the phone reconnects to a fresh state), when the ``CLOSE`` message comes,
    or when ``sock``'s peer is gone. ``opened(sub)``/``closed(sub)`` bracket its life.
    """
    sub = hub.subscribe()
    if opened is not None:
        opened(sub)
    try:
        yield first()
        last_write = time.monotonic()
        while not stopping.is_set():
            message = sub.get(timeout=poll)
            if message is None:
                if sub.dropped and sub.queue.empty():
                    return
                if _peer_gone(sock):
                    return
                if time.monotonic() - last_write >= keepalive:
                    yield b": keep-alive\n\n"
                    last_write = time.monotonic()
                continue
            texts, end = [], False
            while message is not None:
                if message is CLOSE:
                    end = True
                    break
                text = render(message)
                if text is not None:
                    texts.append(text)
                if len(texts) >= batch:
                    break
                message = sub.get_nowait()
            if texts:
                yield b"".join(texts)
                last_write = time.monotonic()
            if end:
                return
    finally:
        if closed is not None:
            closed(sub)
        sub.close()


def refused(exc: StreamRefused) -> Response:
    """429 or 503 with Retry-After and one sentence (the page shows its own words)."""
    return Response(exc.message + "\n", status=exc.status, mimetype="text/plain", headers={
        "Retry-After": str(exc.retry_after), "Cache-Control": "no-store"})


@bp.get("/stream")
def stream():
    dash = current_app.extensions["riichi"]
    table = dash.table
    client, referee = client_address(), is_referee()
    if request.method == "HEAD":  # may this phone open a stream now?
        try:
            dash.gate.check(client, referee)
        except StreamRefused as exc:
            return refused(exc)
        return Response(status=200, mimetype="text/event-stream", headers=SSE_HEADERS)
    try:
        ticket = dash.gate.admit(client, referee)
    except StreamRefused as exc:
        return refused(exc)

    keepalive = float(current_app.config["RIICHI_KEEPALIVE"])
    poll = min(float(current_app.config["RIICHI_STREAM_POLL"]), keepalive)
    rate = clock_rate(table)
    sock = _client_socket(request.environ)
    _limit_unacked(sock, float(current_app.config["RIICHI_UNACKED_TIMEOUT"]))

    def render(message: dict) -> bytes:
        head, tail = dash.message_parts(message, rate)
        # repr of a float is its JSON, and costs far less than json.dumps per phone.
        return head + repr(float(table.clock())).encode() + tail

    def first() -> bytes:
        head, tail = dash.state_parts(lambda: full_state(table))
        return head + repr(float(table.clock())).encode() + tail

    body = sse_body(table.hub, first, render,
                    keepalive=keepalive, poll=poll, stopping=dash.stopping, sock=sock,
                    opened=dash.stream_opened, closed=dash.stream_closed)
    response = Response(body, mimetype="text/event-stream", headers=SSE_HEADERS)
    # The place is given back when the server closes the response, whether or not the body
    # ever started (a phone gone before its first byte never runs the generator).
    response.call_on_close(ticket.release)
    return response
