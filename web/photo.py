"""Score a hand from a photo (blueprint ``photo``, under ``/referee/photo``): the referee's
way to settle a scoring dispute in seconds.

The referee photographs the revealed hand with the phone; ``POST /referee/photo/read`` (the
photo as the multipart field ``photo``) answers the tiles read, row by row, each with its box
in the picture and ``unsure`` where the reading is doubtful. The page shows them for a
tap-to-correct, and the referee marks the winning tile, ron or tsumo and the open melds;
``POST /referee/photo/score`` (JSON, see :func:`score`) answers han, fu, yaku and points with
the table's ruleset, round wind, seat wind, dora and sticks (:mod:`referee.shown_hand`).

Nothing is journaled: a photo scoring is advice to the referee, not something that happened
at the table (the table's own scoring of the reveal stands in the record, and a ruling is
changed by an override as ever). A referee who wants it on the record adds it as a note
(the page offers the result as one), so the record says what the referee chose to say.

Reading the tiles is the camera's work, which the dashboard cannot import: the app floor
hands :func:`web.create_app` a ``photo_reader`` (``bytes -> {"tiles", "width", "height"}``,
raising :class:`referee.errors.RefereeError` for an upload that is no picture; see
``app/photo.py``). Without one the page says photo reading is not available. Under gunicorn's
gevent worker one thread serves every phone: the reading runs in a real thread
(:func:`web.offload.off_loop`) so the streams go on, and one photo is read at a time, so two
referees' photos never hold two pictures and their models' work in the Pi's memory at once.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from flask import Blueprint, abort, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from referee.errors import RefereeError
from referee.shown_hand import value_shown_hand
from referee.tiles import TILE_CODES

from .auth import is_referee
from .offload import off_loop

bp = Blueprint("photo", __name__, url_prefix="/referee/photo")

#: The largest photo taken: the page shrinks a photo before sending it (a few hundred KB),
#: so only a phone without that (or a picture sent by hand) comes near it.
MAX_PHOTO_BYTES = 12 * 1024 * 1024
#: The most tiles a hand can show: fourteen, and four kans' fourth tiles.
MAX_TILES = 18

PhotoReader = Callable[[bytes], dict]


@dataclass
class PhotoDesk:
    """The dashboard's photo reader, if any, and the lock that lets one photo in at a time."""

    reader: PhotoReader | None = None
    busy: threading.Lock = field(default_factory=threading.Lock)


def install(app, reader: PhotoReader | None) -> None:
    """Give ``app`` the photo scorer. Called before the referee blueprint is registered, so
    that :func:`_before` runs ahead of the CSRF check, which reads the request's body."""
    app.extensions["riichi_photo"] = PhotoDesk(reader)
    app.before_request(_before)
    app.register_blueprint(bp)


def _refuse_unless_referee() -> None:
    if current_app.config.get("RIICHI_READ_ONLY"):
        abort(403, description="This is a read-only copy of the table (the hall's view): "
                               "photos are scored on the table's own dashboard.")
    if not is_referee():
        abort(403, description="Only a logged-in referee can score a photo.")


def _before():
    """Before the CSRF check reads the body: only a referee may send one, and a photo may be
    bigger than the app's other requests."""
    if request.blueprint != bp.name or request.method != "POST":
        return None
    _refuse_unless_referee()
    if request.endpoint == "photo.read":
        size = request.content_length
        if size is not None and size > MAX_PHOTO_BYTES:
            abort(413, description=f"The photo is {size / 2**20:.1f} MB; at most "
                                   f"{MAX_PHOTO_BYTES // 2**20} MB is taken: send a smaller one.")
        request.max_content_length = MAX_PHOTO_BYTES + 64 * 1024  # the form's other fields
    return None


def _desk() -> PhotoDesk:
    return current_app.extensions["riichi_photo"]


@bp.post("/read")
def read():
    """The tiles of the photo, or one line saying why there are none."""
    desk = _desk()
    if desk.reader is None:
        abort(503, description="Photo reading is not available on this dashboard (no tile "
                               "reader is set up): score the hand from the tiles by hand.")
    try:
        upload = request.files.get("photo")
    except RequestEntityTooLarge:
        abort(413, description=f"The photo is larger than {MAX_PHOTO_BYTES // 2**20} MB: "
                               "send a smaller one.")
    if upload is None:
        abort(400, description="No photo came with the request: take one of the hand.")
    data = upload.read()
    name = (upload.filename or "").strip()[:60]
    if not desk.busy.acquire(blocking=False):
        abort(429, description="Another photo is being read: send this one again in a moment.")
    try:
        found = off_loop(desk.reader, data)
    except RefereeError as exc:
        abort(400, description=f"Photo{' ' + name if name else ''}: {exc}")
    finally:
        desk.busy.release()
    tiles = [{"tile": t["tile"], "box": t["box"], "confidence": t["confidence"],
              "unsure": bool(t.get("unsure"))}
             for t in found["tiles"] if t["tile"] in TILE_CODES]
    if not tiles:
        abort(422, description="No hand found in this photo: take it again from above, with "
                               "the whole hand in the picture.")
    return jsonify({"tiles": tiles, "width": found["width"], "height": found["height"]})


def _field(body: dict, name: str, kind: type, required: bool = True) -> Any:
    """``body[name]`` when it is a ``kind``; None when absent (or null) and not ``required``."""
    value = body.get(name)
    if value is None:
        if required:
            abort(400, description=f"The request has no {name}.")
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        abort(400, description=f"{name} must be {kind.__name__}, not {str(value)[:30]!r}.")
    return value


@bp.post("/score")
def score():
    """The value of the hand as corrected on the page.

    JSON: ``seat`` (0-3), ``tiles`` (every tile of the photo, corrected), ``win`` (the index of
    the winning tile among them), ``tsumo`` (bool), ``melds`` (``[{"at": [indices], "closed":
    bool}]``: the tiles the referee grouped as a meld), optional ``riichi``/``ippatsu`` (bool;
    absent or null: as the table saw it) and ``ura`` (ura dora indicators)."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, description="Send the hand as JSON.")
    seat = _field(body, "seat", int)
    tiles = _field(body, "tiles", list)
    win = _field(body, "win", int)
    tsumo = _field(body, "tsumo", bool)
    melds = _field(body, "melds", list, required=False) or []
    riichi = _field(body, "riichi", bool, required=False)
    ippatsu = _field(body, "ippatsu", bool, required=False)
    ura = _field(body, "ura", list, required=False) or []
    if not 0 < len(tiles) <= MAX_TILES or len(ura) > 5 or len(melds) > 4:
        abort(400, description=f"A hand is 14 to {MAX_TILES} tiles, not {len(tiles)}.")
    for code in [*tiles, *ura]:
        if code not in TILE_CODES:
            abort(400, description=f"{str(code)[:10]!r} is not a tile code (like 5m, 0p, 7z).")
    if not 0 <= win < len(tiles):
        abort(400, description="Mark the winning tile.")
    taken: set[int] = set()
    groups = []
    for meld in melds:
        at = meld.get("at") if isinstance(meld, dict) else None
        if not isinstance(at, list) or not all(isinstance(i, int) and 0 <= i < len(tiles)
                                               for i in at) or taken & set(at) or \
                len(set(at)) != len(at):
            abort(400, description="A meld names tiles that are not in the hand, or a tile twice.")
        taken |= set(at)
        groups.append({"tiles": [tiles[i] for i in at], "closed": bool(meld.get("closed"))})
    if win in taken:
        abort(400, description="The winning tile is in the concealed part of the hand, not in "
                               "a meld: mark another tile, or undo that meld.")
    concealed = [code for i, code in enumerate(tiles) if i not in taken]
    table = current_app.extensions["riichi"].table
    try:
        value = value_shown_hand(table.snapshot(), table.events(), seat, concealed, groups,
                                 tiles[win], tsumo, riichi=riichi, ippatsu=ippatsu, ura=ura)
    except RefereeError as exc:
        abort(400, description=f"This hand cannot be scored: {exc}.")
    return jsonify(value)
