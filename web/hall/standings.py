"""``/standings``: the tournament's standings in the hall, and their exports.

The page shows every player of the roster in order of total (position, name, country, the
points of each round and the total) and, above them, the tables whose signed result has not
come yet, round by round. ``/standings.json`` is the same as data, ``/standings.csv`` the
EMA's results columns (:data:`hall.standings.EMA_COLUMNS`), both as downloads. Behind the
head referee's PIN like the rest of the hall. The standings object comes from the app
(``create_hall_app(..., standings=...)``); the page never reads a file itself.
"""
from __future__ import annotations

import io

from flask import Blueprint, Response, abort, current_app, render_template

bp = Blueprint("hall_standings", __name__, template_folder="templates")

#: The page draws itself again this often (seconds): results come in while it is open.
REFRESH_S = 30


def _standings():
    return current_app.extensions["riichi"].standings


def points(value) -> str:
    """+45.0, -15.0, 0.0: a round's points as the score sheet writes them."""
    if value is None:
        return "–"
    return f"{value:+.1f}" if value else "0.0"


@bp.get("/standings")
def page():
    board = current_app.extensions["riichi"].board
    standings = _standings()
    summary = standings.summary() if standings is not None else None
    return render_template("standings.html", title=board.title, table_name=board.title,
                           summary=summary, points=points, refresh=REFRESH_S)


def _download(text: str, mimetype: str, name: str) -> Response:
    response = Response(text, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/standings.json")
def as_json():
    standings = _standings()
    out = io.StringIO()
    if standings is None:
        out.write('{"rounds": [], "players": [], "missing": {}, "unseated": [], '
                  '"results": 0, "conflicts": 0}\n')
    else:
        standings.write_json(out)
    return _download(out.getvalue(), "application/json", "standings.json")


@bp.get("/standings.csv")
def as_csv():
    standings = _standings()
    if standings is None:
        abort(404, description="This hall has no standings: start it with the tournament's "
                               "roster (--roster).")
    out = io.StringIO(newline="")
    standings.write_csv(out)
    return _download(out.getvalue(), "text/csv; charset=utf-8", "standings-ema.csv")
