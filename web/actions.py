"""Referee login and actions (blueprint ``referee``, under ``/referee``).

Every POST in the app carries the session's CSRF token (403 without it). Actions need a
referee session (403 for spectators) and become ``referee`` table events, journaled by the
table like any other event: nothing is ever deleted; an undo is a new event naming what it
undoes.
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, request, url_for

from referee.errors import RefereeError
from referee.events import PENALTIES, VIOLATION_KINDS

from .auth import check_csrf, is_referee
from .login import login as login_flow
from .login import logout as logout_flow

bp = Blueprint("referee", __name__, url_prefix="/referee")


@bp.before_app_request
def _csrf_on_every_post():
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        check_csrf()


def _dash():
    return current_app.extensions["riichi"]


@bp.route("/login", methods=["GET", "POST"])
def login():
    return login_flow(url_for("views.table_page"), url_for("referee.login"))


@bp.post("/logout")
def logout():
    return logout_flow(url_for("views.table_page"))


# -- actions ---------------------------------------------------------------------------

def _require_referee():
    if current_app.config.get("RIICHI_READ_ONLY"):
        abort(403, description="This is a read-only copy of the table (the hall's view): "
                               "referee actions are taken on the table's own dashboard.")
    if not is_referee():
        abort(403, description="Only a logged-in referee can do this.")


def _text(required: bool = True) -> str:
    text = " ".join(request.form.get("text", "").split())
    limit = int(current_app.config["RIICHI_MAX_TEXT"])
    if required and not text:
        abort(400, description="Say what was decided and why: the text cannot be empty.")
    if len(text) > limit:
        abort(400, description=f"The text is longer than {limit} characters.")
    return text


def _known_ruling(ruling_id: str) -> dict:
    for ruling in _dash().table.rulings():
        if str(ruling.get("ruling_id")) == ruling_id:
            return ruling
    abort(400, description=f"There is no ruling {ruling_id[:20]} in this game.")


def _submit(event: dict, done: str):
    table = _dash().table
    event = {"type": "referee", "t": table.clock(), **event}
    try:
        table.submit(event)
    except RefereeError as exc:
        abort(400, description=f"The table refused the action: {exc}")
    flash(done)
    return redirect(url_for("views.table_page"), 303)


def describe(event: dict) -> str:
    """A short human description of a table event (shown on the undo button and journaled)."""
    kind = event.get("type")
    seat = event.get("seat")
    who = f"seat {seat}" if seat is not None else ""
    if kind == "discard":
        return f"discard {event.get('tile')} by {who}" + (" (riichi)" if event.get("riichi") else "")
    if kind == "call":
        return f"{event.get('call')} pressed by {who}"
    if kind == "meld":
        return f"{event.get('kind')} {' '.join(event.get('tiles', []))} by {who}"
    if kind == "dora":
        return f"dora indicator {event.get('indicator')}"
    if kind == "reveal":
        return f"hand revealed by {who}"
    if kind == "tenpai":
        return "tenpai declared by seats " + ", ".join(str(s) for s in event.get("seats", []))
    if kind == "referee":
        return f"referee {event.get('action')}"
    return str(kind)


def undo_target(events: list[dict]) -> tuple[int, dict] | None:
    """The event an undo would take back: the latest table event not already undone.

    Referee events are not undone this way (an override or a note is answered by another
    override or note); each earlier undo takes back one event.
    """
    pending_undos = 0
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if event.get("type") == "referee":
            if event.get("action") == "undo":
                pending_undos += 1
            continue
        if event.get("type") in ("game_start", "hand_start"):
            return None  # the start of a game or hand is not taken back from the phone
        if pending_undos:
            pending_undos -= 1
            continue
        return index, event
    return None


def target_key(index: int, event: dict) -> str:
    return f"{index}:{event.get('type')}:{event.get('t')}"


@bp.get("/undo-target")
def undo_target_json():
    """What the undo button would take back now, for the page to show before it is pressed."""
    _require_referee()
    target = undo_target(_dash().table.events())
    if target is None:
        return jsonify({"key": None, "text": "nothing to undo since the hand began"})
    index, event = target
    return jsonify({"key": target_key(index, event), "text": describe(event)})


@bp.post("/override")
def override():
    _require_referee()
    ruling_id = request.form.get("ruling_id", "").strip()
    if not ruling_id:
        abort(400, description="Choose the ruling to override.")
    _known_ruling(ruling_id)
    return _submit({"action": "override", "ruling_id": ruling_id, "text": _text()},
                   f"Ruling {ruling_id} overridden.")


@bp.post("/penalty")
def penalty():
    _require_referee()
    try:
        seat = int(request.form.get("seat", ""))
    except ValueError:
        seat = -1
    if not 0 <= seat <= 3:
        abort(400, description="Choose the seat that gets the penalty (0-3).")
    kind = request.form.get("penalty", "")
    if kind not in PENALTIES:
        abort(400, description=f"Choose a penalty: {', '.join(PENALTIES)}.")
    event = {"action": "penalty", "seat": seat, "penalty": kind, "text": _text()}
    violation_kind = request.form.get("kind", "")
    if violation_kind:
        if violation_kind not in VIOLATION_KINDS:
            abort(400, description=f"Unknown kind of violation: {violation_kind[:30]}.")
        event["kind"] = violation_kind
    ruling_id = request.form.get("ruling_id", "").strip()
    if ruling_id:
        _known_ruling(ruling_id)
        event["ruling_id"] = ruling_id
    return _submit(event, f"Penalty ({kind}) given to seat {seat}.")


@bp.post("/undo")
def undo():
    _require_referee()
    target = undo_target(_dash().table.events())
    if target is None:
        abort(409, description="There is no table event to undo since the hand began.")
    index, event = target
    # The button named the event the referee saw; if another came in since, don't guess.
    expected = request.form.get("target", "")
    if expected and expected != target_key(index, event):
        abort(409, description=f"The last event changed (now: {describe(event)}); "
                               "look at the table again and press undo once more.")
    text = _text(required=False)
    what = describe(event)
    event_ref = {k: event[k] for k in ("type", "t", "seat") if k in event}
    return _submit({"action": "undo", "text": f"Undo {what}" + (f": {text}" if text else ""),
                    "undoes": event_ref}, f"Undone: {what}.")


@bp.post("/note")
def note():
    _require_referee()
    event = {"action": "note", "text": _text()}
    ruling_id = request.form.get("ruling_id", "").strip()
    if ruling_id:
        _known_ruling(ruling_id)
        event["ruling_id"] = ruling_id
    return _submit(event, "Note added.")


@bp.post("/end_game")
def end_game():
    _require_referee()
    if request.form.get("confirm") != "yes":
        abort(400, description="Tick the box to confirm that the game ends now.")
    return _submit({"action": "end_game", "text": _text()}, "Game ended.")
