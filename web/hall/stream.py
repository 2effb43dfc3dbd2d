"""``/hall/stream``: the tiles live, as server-sent events.

The first ``tiles`` message has every tile (``"full": true``); then, whenever tables change,
the changed tiles, at most every ``RIICHI_HALL_TICK`` seconds (a burst at one table is one
message), and all of them again every ``RIICHI_HALL_REFRESH`` seconds. A keep-alive comment
goes out on a quiet stream every ``RIICHI_KEEPALIVE`` seconds, so a phone that went away is
noticed and its thread freed.
"""
from __future__ import annotations

import time

from flask import Blueprint, Response, current_app

from referee.events import dumps

from .views import tiles_message

bp = Blueprint("hall_stream", __name__)


class _Stream:
    """Stands for one open stream in the dashboard's stream count."""

    def __init__(self):
        import queue
        self.queue = queue.Queue()


@bp.get("/hall/stream")
def stream():
    dash = current_app.extensions["riichi"]
    board = dash.board
    tick = float(current_app.config["RIICHI_HALL_TICK"])
    refresh = float(current_app.config["RIICHI_HALL_REFRESH"])
    keepalive = float(current_app.config["RIICHI_KEEPALIVE"])

    def generate():
        me = _Stream()
        dash.stream_opened(me)
        try:
            message = tiles_message(board)
            version = message["version"]
            yield "retry: 2000\nevent: tiles\ndata: " + dumps(message) + "\n\n"
            last_write = last_full = last_send = time.monotonic()
            while not dash.stopping.is_set() and me.queue.empty():
                new = board.wait(version, min(keepalive, refresh) / 2)
                now = time.monotonic()
                if now - last_full >= refresh:
                    message, last_full = tiles_message(board), now
                elif new != version:
                    wait = last_send + tick - now
                    if wait > 0:
                        time.sleep(wait)  # gather a burst into one message
                    message = tiles_message(board, since=version, full=False)
                elif now - last_write >= keepalive:
                    yield ": keep-alive\n\n"
                    last_write = now
                    continue
                else:
                    continue
                version = message["version"]
                yield "event: tiles\ndata: " + dumps(message) + "\n\n"
                last_write = last_send = time.monotonic()
        finally:
            dash.stream_closed(me)

    return Response(generate(), mimetype="text/event-stream", headers={
        "Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"})
