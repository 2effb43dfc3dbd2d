"""The hall's pages: login, the tiles, marking a table seen, and two JSON views."""
from __future__ import annotations

from flask import (
    Blueprint,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from table.clock import monotonic
from web.auth import check_csrf, is_referee
from web.login import login as login_flow
from web.login import logout as logout_flow

bp = Blueprint("hall", __name__, template_folder="templates", static_folder="static",
               static_url_path="/hall/static")

#: What may be seen without the PIN.
OPEN_ENDPOINTS = {"hall.login", "hall.healthz", "hall.static", "static",
                  "https.ca_certificate", "https.trust_page"}


def _board():
    return current_app.extensions["riichi"].board


@bp.before_app_request
def _guard():
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        check_csrf()
    if request.endpoint in OPEN_ENDPOINTS or is_referee():
        return None
    if request.path.startswith("/hall/") or request.path.endswith(".json"):
        abort(401, description="Log in with the head referee's PIN first.")
    return redirect(url_for("hall.login"), 303)


@bp.route("/login", methods=["GET", "POST"])
def login():
    # All of the hall is behind the PIN: "back to the hall" leads anywhere but here again
    # only for a head referee who is logged in already.
    back = "Back to the hall" if is_referee() else None
    return login_flow(url_for("hall.overview"), url_for("hall.login"), back)


@bp.post("/logout")
def logout():
    return logout_flow(url_for("hall.login"))


@bp.get("/")
def overview():
    board = _board()
    note = current_app.config["RIICHI_HALL_NOTE"] or []
    return render_template("hall.html", title=board.title, table_name=board.title,
                           stream_url=url_for("hall_stream.stream"), note=list(note))


def tiles_message(board, since: int = -1, full: bool = True) -> dict:
    """What the page needs: the tiles (changed since ``since``) and the broker's state.
    ``now`` is the hall's monotonic clock; the page adds its own elapsed time to durations."""
    return {"full": full, "now": monotonic(), "version": board.version,
            "broker": board.broker_status(), "tables": len(board.tables),
            "tiles": board.tiles(since)}


@bp.get("/hall/tiles.json")
def tiles_json():
    response = jsonify(tiles_message(_board()))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/hall/seen/<name>")
def seen(name: str):
    if not _board().mark_seen(name):
        abort(404, description=f"No table {name[:40]} in this hall.")
    return jsonify({"ok": True, "table": name})


@bp.get("/healthz")
def healthz():
    board = _board()
    return jsonify({"ok": True, "broker": board.broker_online, "tables": len(board.tables),
                    "streams": current_app.extensions["riichi"].stream_count,
                    "messages": dict(board.stats)})
