"""The live dashboard: the table as the referee assistant sees it, every ruling as it happens.

``create_app(table, pin_hash=..., secret_key=..., config=...)`` builds the Flask app for any
:class:`table.view.TableView` (:class:`table.live.LiveTable` in the demo, the journal-backed
:class:`table.journal_table.JournalTable` under gunicorn, the hall's
:class:`hall.board.RemoteTable`); :func:`serve` runs it in a thread for the
demo and the browser tests. Blueprints: ``views`` (the page, ``/healthz``, ``/state.json``),
``stream`` (``/stream``, server-sent events), ``referee`` (login and actions under
``/referee``), ``photo`` (a hand scored from a photo, ``/referee/photo``), ``downloads`` (``/download/events.jsonl``, ``/download/rulings.csv``), ``https``
(``/ca.crt``, ``/trust``; and the referee kept on HTTPS, see :mod:`web.https`).
"""
from __future__ import annotations

import secrets
import threading
from datetime import timedelta

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from table.view import TableView

from .auth import PinGuard, RefereeSessions, csrf_token
from .capacity import StreamGate, size
from .state import Dashboard

#: Defaults a caller may override through ``config``.
DEFAULTS = {
    "RIICHI_TABLE_NAME": "Riichi table",
    # Seconds between keep-alive comments on an idle stream (at most 5: a phone that vanished
    # must free its thread soon), and how often an idle stream checks its client is still there.
    "RIICHI_KEEPALIVE": 4.0,
    "RIICHI_STREAM_POLL": 1.0,
    # Data a phone has not acknowledged for this long ends its stream (TCP_USER_TIMEOUT):
    # a phone that walked out of Wi-Fi range never closes its connection.
    "RIICHI_UNACKED_TIMEOUT": 5.0,
    # Streams one client address may hold (a referee's are never refused): a phone with a
    # few tabs, or one that reconnected before its old stream was noticed gone.
    "RIICHI_STREAMS_PER_CLIENT": 4,
    # Streams in all: None sizes it from the memory set aside for them (web.capacity.size).
    "RIICHI_MAX_STREAMS": None,
    "RIICHI_STREAM_MEMORY_MB": 64.0,
    "RIICHI_LOCKOUT_FAILURES": 5,
    "RIICHI_LOCKOUT_SECONDS": 300.0,
    "RIICHI_REFEREE_HOURS": 12.0,
    "RIICHI_MAX_TEXT": 500,
    # The hall's copy of a table (web.hall): shown to the head referee, no referee actions;
    # RIICHI_HALL_URL is where its "all tables" link goes.
    "RIICHI_READ_ONLY": False,
    "RIICHI_HALL_URL": None,
    "SESSION_COOKIE_NAME": "riichi_session",
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Strict",
    # The referee's pages over HTTPS only, and no session over plain HTTP (web.https): on for
    # the production dashboard (web.wsgi); off for the demo and tests on loopback, which is
    # not the air. RIICHI_HTTPS_PORT: where plain-HTTP referee pages are sent.
    "RIICHI_REFEREE_HTTPS": False,
    "RIICHI_HTTPS_PORT": 8443,
    # The hall's CA certificate (PEM path), offered at /ca.crt for referees' phones to trust.
    "RIICHI_CA_CERT": None,
    # Set True by RIICHI_REFEREE_HTTPS; alone, for a dashboard behind someone else's TLS.
    "SESSION_COOKIE_SECURE": False,
    "MAX_CONTENT_LENGTH": 64 * 1024,
    # Phones revalidate the page script and style, so an update reaches them on reload.
    "SEND_FILE_MAX_AGE_DEFAULT": 0,
}


def create_app(table: TableView, *, pin_hash=None, secret_key: str | bytes | None = None,
               config: dict | None = None, photo_reader=None) -> Flask:
    """The dashboard for one table.

    ``table``: a :class:`table.view.TableView` (``snapshot()``, ``hub``, ``submit(event)``,
    ``events()``, ``rulings()``, ``clock()``). ``pin_hash``: the referee PIN's hash (:func:`web.pin.hash_pin`),
    or a :class:`pathlib.Path` of the hash file, read at every login; None disables referee
    login. ``secret_key`` signs session cookies; a random one (sessions end when the process
    does) when None. ``config``: overrides of :data:`DEFAULTS` and Flask settings.
    ``photo_reader``: reads the tiles of a referee's photo (``bytes -> {"tiles", "width",
    "height"}``, see :mod:`web.photo`; the app floor makes one); None: the page says photo
    reading is not available.
    """
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    app.secret_key = secret_key or secrets.token_bytes(32)
    hours = float(app.config["RIICHI_REFEREE_HOURS"])
    app.permanent_session_lifetime = timedelta(hours=hours)
    keepalive = float(app.config["RIICHI_KEEPALIVE"])
    if not 0 < keepalive <= 5:
        raise ValueError(f"RIICHI_KEEPALIVE must be above 0 and at most 5 s, not {keepalive}")

    guard = PinGuard(int(app.config["RIICHI_LOCKOUT_FAILURES"]),
                     float(app.config["RIICHI_LOCKOUT_SECONDS"]))
    app.extensions["riichi"] = Dashboard(table, pin_hash, guard, RefereeSessions(hours * 3600),
                                         stream_gate(app.config))

    from . import actions, downloads, https, photo, stream, views
    https.install(app)  # first: its check runs ahead of the CSRF check on every POST
    photo.install(app, photo_reader)  # ahead of the CSRF check too: it reads a photo's body
    app.register_blueprint(views.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(actions.bp)
    app.register_blueprint(downloads.bp)

    app.jinja_env.globals.update(csrf_token=csrf_token)

    @app.errorhandler(HTTPException)
    def _error(exc: HTTPException):
        if request.path.endswith(".json") or \
                request.accept_mimetypes.best == "application/json":
            return jsonify(error=exc.description, status=exc.code), exc.code
        return render_template("error.html", code=exc.code, name=exc.name,
                               description=exc.description,
                               table_name=app.config["RIICHI_TABLE_NAME"]), exc.code

    app.after_request(secure_headers)
    return app


def stream_gate(config) -> StreamGate:
    """The limits on live streams an app's ``config`` asks for (see :mod:`web.capacity`)."""
    max_streams = config["RIICHI_MAX_STREAMS"]
    sizing = size(float(config["RIICHI_STREAM_MEMORY_MB"]),
                  int(max_streams) if max_streams is not None else None)
    return StreamGate(sizing.streams, int(config["RIICHI_STREAMS_PER_CLIENT"]))


def secure_headers(response):
    """Everything is served from here: no inline script, no framing by other sites."""
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


#: Seconds between the serving loop's looks at whether it is to stop.
SHUTDOWN_POLL = 0.05


class DashboardServer:
    """A threaded werkzeug server running the dashboard (the demo, the browser tests)."""

    def __init__(self, app: Flask, host: str, port: int, ssl_context=None):
        from werkzeug.serving import make_server

        self.app = app
        self.scheme = "https" if ssl_context is not None else "http"
        self._server = make_server(host, port, app, threaded=True, ssl_context=ssl_context)
        self.host = host
        self.port = self._server.server_port
        # shutdown() waits for the serving loop to look at its flag, which it does every
        # poll interval (werkzeug's default: half a second); a twentieth lets Ctrl-C, the demo
        # and each test's server stop at once, for twenty idle select() calls a second.
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": SHUTDOWN_POLL},
                                        name="dashboard", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    def shutdown(self) -> None:
        """Close every stream, stop accepting, and wait for the serving thread."""
        self.app.extensions["riichi"].stop()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8000,
          ssl_context=None) -> DashboardServer:
    """Run ``app`` on a threaded werkzeug server in a background thread; ``port`` 0 picks a
    free one (see ``server.port``). ``ssl_context``: werkzeug's (``(certfile, keyfile)``)
    for HTTPS. Call ``server.shutdown()`` to stop it."""
    return DashboardServer(app, host, port, ssl_context)


__all__ = ["create_app", "serve", "secure_headers", "DashboardServer", "DEFAULTS"]
