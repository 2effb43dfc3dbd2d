"""Referee login and actions (blueprint ``referee``, under ``/referee``).

Every POST in the app carries the session's CSRF token (403 without it). Actions need a
referee session (403 for spectators) and become ``referee`` table events, journaled by the
table like any other event: nothing is ever deleted; an undo is a new event naming what it
undoes.
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, request, url_for

from referee.errors import RefereeError
from referee.events import CLOCK_ACTIONS, PENALTIES, VIOLATION_KINDS
from referee.tiles import TILE_CODES

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
    """Journal and judge a ``referee`` event with ``event``'s keys."""
    return _journal({"type": "referee", **event}, done)


def _journal(event: dict, done: str):
    """Hand the table ``event`` (any table event, stamped now), which journals it before it
    judges it; back to the page with ``done`` flashed."""
    table = _dash().table
    event = {"t": table.clock(), **event}
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
    if kind == "clock":
        seconds = event.get("seconds")
        length = f" ({int(seconds) // 60}:{int(seconds) % 60:02d})" \
            if isinstance(seconds, (int, float)) and event.get("action") != "stop" else ""
        return f"round clock {event.get('action')}{length}"
    if kind == "sign":
        return "the referee's countersignature" if event.get("referee") is True \
            else f"the signature of {who}"
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
        if event.get("type") in ("game_start", "hand_start") or event.get("carried") is True:
            # the start of a game or hand is not taken back from the phone, nor the round's
            # clock the table carried into the game with its start
            return None
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


def _pending_check(ruling_id: str) -> dict:
    """The check (a violation resting on an unsure camera reading) ``ruling_id`` names."""
    if not ruling_id:
        abort(400, description="Choose the check to answer.")
    ruling = _known_ruling(ruling_id)
    if ruling.get("type") != "violation" or not ruling.get("check"):
        abort(400, description=f"Ruling {ruling_id[:20]} is not a check of a camera reading.")
    return ruling


@bp.post("/confirm")
def confirm():
    """The referee looked at the table: the violation the camera was unsure of stands."""
    _require_referee()
    ruling_id = request.form.get("ruling_id", "").strip()
    check = _pending_check(ruling_id)
    text = _text(required=False) or "Confirmed at the table."
    event = {"action": "penalty", "ruling_id": ruling_id, "penalty": check["penalty"],
             "kind": check["kind"], "text": text}
    if check.get("seat") is not None:
        event["seat"] = check["seat"]
    return _submit(event, f"Check {ruling_id} confirmed: {check['penalty'].replace('_', ' ')}.")


@bp.post("/correct")
def correct():
    """The camera misread the tile: the referee says what it is. Journaled as an override
    with the tile, which the table and the camera both learn from."""
    _require_referee()
    ruling_id = request.form.get("ruling_id", "").strip()
    check = _pending_check(ruling_id)
    tile = request.form.get("tile", "").strip()
    if tile not in TILE_CODES:
        abort(400, description="Choose the tile it really is.")
    read = (check.get("reading") or {}).get("tile") or "the tile"
    text = _text(required=False) or f"The camera misread {read}: it is {tile}."
    return _submit({"action": "override", "ruling_id": ruling_id, "tile": tile, "text": text},
                   f"Reading corrected to {tile}; {ruling_id} does not stand.")


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


# -- the tournament round: its clock, the penalty ledger, the countersignature ---------------

#: The longest round and the most extra time a referee may enter at once, in minutes.
MAX_ROUND_MINUTES = 600
MAX_EXTRA_MINUTES = 120


def _minutes(field: str, what: str, most: int) -> float:
    raw = request.form.get(field, "").strip().replace(",", ".")
    try:
        minutes = float(raw)
    except ValueError:
        minutes = float("nan")
    if not 0 < minutes <= most:   # NaN fails this too
        abort(400, description=f"Give {what} in minutes, a number above 0 and at most {most} "
                               f"(not {raw[:20]!r}).")
    return minutes


def _clock_left(snap: dict) -> tuple[bool, str]:
    """(a round clock runs here, the time it has left in words)."""
    c = snap.get("clock") or {}
    runs = c.get("started") is not None and not c.get("stopped") and not c.get("time_up") \
        and snap.get("hands_left") is None
    if not runs:
        return False, ""
    left = max(0, int(round(c["time_up_at"] - _dash().table.clock())))
    return True, f"{left // 60}:{left % 60:02d}"


@bp.post("/clock")
def round_clock():
    """Start the round clock at a table without a hall, give it extra time, or stop it:
    journaled as a ``clock`` event with ``source`` ``referee``."""
    _require_referee()
    action = request.form.get("action", "")
    if action not in CLOCK_ACTIONS:
        abort(400, description="Choose what to do with the round clock: start, extend or stop.")
    runs, left = _clock_left(_dash().table.snapshot())
    event = {"type": "clock", "action": action, "source": "referee"}
    if action == "start":
        if runs:
            abort(409, description=f"The round clock already runs ({left} left): give extra "
                                   "time, or stop it before starting another round.")
        minutes = _minutes("minutes", "the round's length", MAX_ROUND_MINUTES)
        event["seconds"] = minutes * 60
        done = f"Round clock started: {minutes:g} minutes."
    else:
        if not runs:
            abort(409, description="No round clock runs at this table (not started, stopped, "
                                   "or its time is up): there is nothing to "
                                   f"{'extend' if action == 'extend' else 'stop'}.")
        if action == "extend":
            minutes = _minutes("minutes", "the extra time", MAX_EXTRA_MINUTES)
            event["seconds"] = minutes * 60
            done = f"{minutes:g} minutes added to this table's round clock."
        else:
            done = "Round clock stopped."
    return _journal(event, done)


@bp.post("/countersign")
def countersign():
    """The referee countersigns the score sheet (a ``sign`` event with ``referee`` true)."""
    _require_referee()
    snap = _dash().table.snapshot()
    if not snap.get("game_over"):
        abort(409, description="The game has not ended: the referee countersigns the score "
                               "sheet after the game ends.")
    if snap.get("result_given"):
        abort(409, description="The result is already final: there is nothing to sign.")
    if snap.get("referee_signed"):
        abort(409, description="You have already countersigned this sheet: a signature counts "
                               "once.")
    return _journal({"type": "sign", "referee": True, "source": "referee"},
                    "Countersigned." + ("" if len(snap.get("signatures") or ()) == 4 else
                                        " The result is final once the four players have "
                                        "signed."))


@bp.post("/cancel_penalty")
def cancel_penalty():
    """Take a deduction off the ledger (journaled; it clears signatures given after the game's
    end, as the sheet they signed no longer stands)."""
    _require_referee()
    ruling_id = request.form.get("ruling_id", "").strip()
    standing = [p for p in _dash().table.snapshot().get("penalties") or ()
                if str(p.get("ruling_id")) == ruling_id]
    if not ruling_id or not standing:
        abort(400, description=f"There is no penalty {ruling_id[:20] or '(none chosen)'} "
                               "standing on this game's ledger.")
    return _submit({"action": "cancel_penalty", "ruling_id": ruling_id, "text": _text()},
                   f"Penalty {ruling_id} cancelled.")
