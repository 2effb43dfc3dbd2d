"""The page, and two small JSON views for scripts and monitoring."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template

from referee.events import PENALTIES, VIOLATION_KINDS

from .auth import is_referee
from .stream import full_state

bp = Blueprint("views", __name__)


@bp.get("/")
def table_page():
    return render_template(
        "table.html",
        table_name=current_app.config["RIICHI_TABLE_NAME"],
        referee=is_referee() and not current_app.config["RIICHI_READ_ONLY"],
        hall_url=current_app.config["RIICHI_HALL_URL"],
        penalties=PENALTIES,
        violation_kinds=VIOLATION_KINDS,
        photo_reading=getattr(current_app.extensions.get("riichi_photo"), "reader", None)
        is not None,
    )


@bp.get("/state.json")
def state_json():
    """The same full state a stream starts with."""
    response = jsonify(full_state(current_app.extensions["riichi"].table))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz():
    """Liveness for systemd/monitoring: open streams, hub subscribers, the stream limits."""
    dash = current_app.extensions["riichi"]
    hub = dash.table.hub
    return jsonify({
        "ok": True,
        "streams": dash.stream_count,
        "subscribers": getattr(hub, "subscriber_count", None),
        "max_streams": dash.gate.total,
        "streams_per_client": dash.gate.per_client,
    })
