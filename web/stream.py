"""``/stream``: the table live, as server-sent events.

The first message is a full ``state``: the snapshot plus every ruling, the referee's events
and the latest table events, so a phone that (re)connects needs nothing else. Then every hub
message follows as its own SSE event (``event``, ``ruling``, ``state``, ``health``). Each
message's data is ``{"now": T, "rate": R, "data": ...}`` where ``T`` is the table clock when
it was sent and ``R`` how fast that clock runs (1 but in a sped-up demo): the page runs the
claim countdown from them, never from the phone's own clock.

A stream holds a server thread for as long as the phone stays, so a stream ends as soon as
its phone is known to be gone: a closed connection is seen within ``RIICHI_STREAM_POLL``
seconds, a keep-alive comment goes out at least every ``RIICHI_KEEPALIVE`` seconds, and data
left unacknowledged for ``RIICHI_UNACKED_TIMEOUT`` seconds (a phone that left the Wi-Fi)
aborts the connection.
"""
from __future__ import annotations

import select
import socket
import time

from flask import Blueprint, Response, current_app, request

from referee.events import dumps

from .state import CLOSE

bp = Blueprint("stream", __name__)

RECENT_EVENTS = 40


def clock_rate(table) -> float:
    """Table seconds per real second: 1 at a real table; a demo's sped-up clock says its
    ``speed`` (0 for a clock that moves only with events), so the page's countdown keeps pace."""
    speed = getattr(getattr(table, "clock", None), "speed", None)
    if isinstance(speed, (int, float)) and not isinstance(speed, bool) and speed >= 0:
        return float(speed)
    return 1.0


def full_state(table) -> dict:
    """What a phone needs when it connects: snapshot, rulings, referee events, recent events."""
    events = table.events()
    # Times on the page count from the game's start: table-clock seconds mean nothing to people.
    starts = [e["t"] for e in events if e.get("type") == "game_start"]
    return {
        "now": table.clock(),
        "rate": clock_rate(table),
        "full": True,
        "game_t0": starts[-1] if starts else (events[0]["t"] if events else None),
        "data": table.snapshot(),
        "rulings": table.rulings(),
        "referee": [e for e in events if e.get("type") == "referee"],
        "events": events[-RECENT_EVENTS:],
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
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _sse(kind: str, payload: str, event_id=None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {payload}\n\n"


@bp.get("/stream")
def stream():
    dash = current_app.extensions["riichi"]
    table = dash.table
    keepalive = float(current_app.config["RIICHI_KEEPALIVE"])
    poll = min(float(current_app.config["RIICHI_STREAM_POLL"]), keepalive)
    rate = clock_rate(table)
    sock = _client_socket(request.environ)
    _limit_unacked(sock, float(current_app.config["RIICHI_UNACKED_TIMEOUT"]))

    def generate():
        # Subscribe inside the generator: a client gone before the first byte never starts
        # it, and then there is nothing to clean up.
        sub = table.hub.subscribe()
        dash.stream_opened(sub)
        try:
            yield "retry: 2000\n" + _sse("state", dumps(full_state(table)))
            last_write = time.monotonic()
            while not dash.stopping.is_set():
                message = sub.get(timeout=poll)
                if message is None:
                    if sub.dropped and sub.queue.empty():
                        return  # fell too far behind: the phone reconnects to a fresh state
                    if _peer_gone(sock):
                        return
                    if time.monotonic() - last_write >= keepalive:
                        yield ": keep-alive\n\n"
                        last_write = time.monotonic()
                    continue
                if message is CLOSE:
                    return
                payload = '{"now":%s,"rate":%s,"data":%s}' % (
                    dumps(table.clock()), dumps(rate), dash.message_json(message))
                yield _sse(message["kind"], payload, message.get("id"))
                last_write = time.monotonic()
        finally:
            dash.stream_closed(sub)
            sub.close()

    return Response(generate(), mimetype="text/event-stream", headers={
        "Cache-Control": "no-cache, no-store",
        "X-Accel-Buffering": "no",
    })
