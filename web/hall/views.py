"""The hall's pages: login, the tiles, marking a table seen, starting a round, and two JSON
views."""
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

from referee.errors import RefereeError
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
    can_start = current_app.extensions["riichi"].start_round is not None
    return render_template("hall.html", title=board.title, table_name=board.title,
                           stream_url=url_for("hall_stream.stream"), note=list(note),
                           round_url=url_for("hall.start_round") if can_start else None)


def tiles_message(board, since: int = -1, full: bool = True) -> dict:
    """What the page needs: the tiles (changed since ``since``) and the broker's state.
    ``now`` is the hall's monotonic clock; the page adds its own elapsed time to durations."""
    rnd = board.round
    return {"full": full, "now": monotonic(), "version": board.version,
            "broker": board.broker_status(), "tables": len(board.tables),
            "round": {"round": rnd["round"], "seconds": rnd["seconds"], "id": rnd["id"]}
            if rnd else None,
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


@bp.post("/hall/round")
def start_round():
    """Start round N, M minutes long, at every table (JSON or form: ``round``, ``minutes``)."""
    start = current_app.extensions["riichi"].start_round
    if start is None:
        abort(404, description="This hall cannot start rounds.")
    data = request.get_json(silent=True) if request.is_json else request.form
    data = data or {}
    try:
        round_no = int(str(data.get("round", "")).strip())
        minutes = float(str(data.get("minutes", "")).strip())
    except ValueError:
        abort(400, description="Give the round as a number and its length in minutes.")
    if not 1 <= round_no <= 999:
        abort(400, description=f"Round {round_no}: a round is numbered 1 to 999.")
    if not 0 < minutes <= 24 * 60:
        abort(400, description=f"{minutes:g} minutes: a round lasts more than 0 minutes and "
                               "at most 24 hours.")
    try:
        message = start(round_no, round(minutes * 60, 3))
    except (RefereeError, ValueError) as exc:
        abort(503, description=str(exc))
    return jsonify({"ok": True, "round": message["round"], "seconds": message["seconds"],
                    "id": message["id"]})


@bp.get("/healthz")
def healthz():
    board = _board()
    return jsonify({"ok": True, "broker": board.broker_online, "tables": len(board.tables),
                    "streams": current_app.extensions["riichi"].stream_count,
                    "messages": dict(board.stats)})
