"""The head referee's page: every table of the hall as a tile, most urgent first, and any
table's live view, all drawn from the broker (:class:`hall.board.Board`).

``create_hall_app(board, pin_hash=..., secret_key=..., config=...)`` builds it. Everything but
the login page is behind the referee PIN, with the table dashboard's own rules and code: the
PIN lock-out (:class:`web.auth.PinGuard`), the referee session (:class:`web.auth.RefereeSessions`,
HttpOnly SameSite=Strict cookie) and a CSRF token on every POST (:func:`web.auth.check_csrf`).

Routes: ``/`` the tiles; ``/login``, ``/logout``; ``/hall/stream`` (server-sent events:
``tiles``, the full set first, then the tiles that changed, at most every
``RIICHI_HALL_TICK`` seconds); ``/hall/tiles.json``; ``POST /hall/round`` (start round N,
M minutes long, at every table: ``start_round``); ``POST /hall/seen/<table>`` (the head
referee saw what the table shows: someone is on the way); ``/standings`` (the tournament's
standings, with ``/standings.json`` and the EMA's ``/standings.csv``: :mod:`web.hall.standings`);
``/healthz``; and under
``/t/<table>/`` the table dashboard of :mod:`web` over the hall's read-only copy of that table
(:mod:`web.hall.tables`).
"""
from __future__ import annotations

import secrets
from datetime import timedelta

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from web import DEFAULTS, secure_headers, stream_gate
from web.auth import PinGuard, RefereeSessions, csrf_token
from web.state import Dashboard

HALL_DEFAULTS = {
    # Tiles that changed are sent at most this often (seconds): a burst of events at one table
    # is one update, and 100 tables stay light on a phone.
    "RIICHI_HALL_TICK": 0.1,
    # Every so often all tiles are sent again, so levels that change with time (a game
    # running late) need no event.
    "RIICHI_HALL_REFRESH": 10.0,
    # A note at the top of the page: a list of lines, the first its heading (the demo says
    # there what it does on purpose, so a table it takes offline is not taken for broken).
    "RIICHI_HALL_NOTE": None,
    # web.https: the hall's login, for the /trust page's link, and its way back.
    "RIICHI_LOGIN_PATH": "/login",
    "RIICHI_BACK_TEXT": "Back to the hall",
}


class HallDashboard(Dashboard):
    """The hall's per-app state: the board, the PIN guard and sessions (shared with every
    table view), and the open streams of all of them."""

    def __init__(self, board, pin_hash, guard: PinGuard, sessions: RefereeSessions, gate,
                 standings=None, start_round=None):
        super().__init__(None, pin_hash, guard, sessions, gate)
        self.board = board
        self.standings = standings
        self.start_round = start_round
        self.table_apps: dict = {}

    def stop(self) -> None:
        super().stop()
        for app in list(self.table_apps.values()):
            app.extensions["riichi"].stop()


def create_hall_app(board, *, pin_hash=None, secret_key: str | bytes | None = None,
                    config: dict | None = None, standings=None, start_round=None) -> Flask:
    """The hall's app for ``board``. ``pin_hash``: the head referee's PIN hash, or a
    :class:`pathlib.Path` of the hash file (read at each login). ``secret_key`` signs the
    session cookie (random when None: sessions end with the process). ``config``: overrides
    of :data:`web.DEFAULTS` and :data:`HALL_DEFAULTS`. ``standings``: the tournament's
    (:class:`hall.standings.Standings`, or anything with its ``summary()``, ``write_csv`` and
    ``write_json``); None: the standings page says there are none. ``start_round(round_no,
    seconds)``: starts a round at every table (:meth:`hall.subscriber.HallSubscriber.
    start_round`); None: the page cannot start rounds."""
    app = Flask("web")  # the dashboard's templates (base, login, error) and its stylesheet
    app.config.update(DEFAULTS)
    app.config.update(HALL_DEFAULTS)
    app.config["RIICHI_TABLE_NAME"] = board.title
    app.config.update(config or {})
    app.secret_key = secret_key or secrets.token_bytes(32)
    hours = float(app.config["RIICHI_REFEREE_HOURS"])
    app.permanent_session_lifetime = timedelta(hours=hours)
    guard = PinGuard(int(app.config["RIICHI_LOCKOUT_FAILURES"]),
                     float(app.config["RIICHI_LOCKOUT_SECONDS"]))
    dash = HallDashboard(board, pin_hash, guard, RefereeSessions(hours * 3600),
                         stream_gate(app.config), standings, start_round)
    app.extensions["riichi"] = dash

    from web import https

    from . import standings as standings_page
    from . import stream, views
    # First: over plain HTTP (RIICHI_REFEREE_HTTPS) everything but the CA is sent to HTTPS,
    # ahead of the CSRF check and the PIN guard. The hall has no spectators: all of it is
    # the head referee's (hall/README.md).
    https.install(app, https_only=https.all_but_trust)
    app.register_blueprint(views.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(standings_page.bp)
    app.jinja_env.globals.update(csrf_token=csrf_token)

    @app.errorhandler(HTTPException)
    def _error(exc: HTTPException):
        if request.path.endswith(".json") or request.path.startswith("/hall/") or \
                request.accept_mimetypes.best == "application/json":
            return jsonify(error=exc.description, status=exc.code), exc.code
        return render_template("error.html", code=exc.code, name=exc.name,
                               description=exc.description, table_name=board.title,
                               home_url="/", back_text="Back to the hall"), exc.code

    app.after_request(secure_headers)

    from .tables import TableViews
    app.wsgi_app = TableViews(app.wsgi_app, app, board, pin_hash)
    return app


__all__ = ["create_hall_app", "HallDashboard", "HALL_DEFAULTS"]
