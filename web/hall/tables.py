"""``/t/<table>/``: any table's live view in the hall, drawn from the broker.

Each table gets, on its first visit, the table dashboard of :mod:`web` (page, stream, state,
downloads) over the hall's read-only copy of it (:class:`hall.board.RemoteTable`), mounted
under ``/t/<table>``. It shares the hall's PIN guard, referee sessions and cookie key, so the
head referee who logged in at the hall is logged in there, and nobody else sees it; referee
actions are refused there (``RIICHI_READ_ONLY``): they belong to the table's own dashboard.
"""
from __future__ import annotations

import threading

from flask import redirect

from web import create_app, https
from web.auth import is_referee

PREFIX = "/t/"


class TableViews:
    """WSGI middleware: ``/t/<name>/...`` to that table's dashboard, the rest to the hall."""

    def __init__(self, hall_wsgi, hall_app, board, pin_hash):
        self.hall_wsgi = hall_wsgi
        self.hall_app = hall_app
        self.board = board
        self.pin_hash = pin_hash
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(PREFIX):
            return self.hall_wsgi(environ, start_response)
        name, _, rest = path[len(PREFIX):].partition("/")
        table = self.board.table(name)
        if table is None:
            return self.hall_wsgi(environ, start_response)  # the hall's 404 page
        if not rest and not path.endswith("/"):
            start_response("308 Permanent Redirect", [("Location", f"{PREFIX}{name}/")])
            return [b""]
        app = self._app(name, table)
        environ = dict(environ)
        environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + PREFIX + name
        environ["PATH_INFO"] = "/" + rest
        return app(environ, start_response)

    def _app(self, name, table):
        dash = self.hall_app.extensions["riichi"]
        with self._lock:
            app = dash.table_apps.get(name)
            if app is not None:
                return app
            hall = self.hall_app.config
            config = {k: hall[k] for k in hall if k.startswith(("RIICHI_", "SESSION_"))}
            config.update(RIICHI_TABLE_NAME=f"{name} · {self.board.title}",
                          RIICHI_READ_ONLY=True, RIICHI_HALL_URL="/")
            app = create_app(table, pin_hash=self.pin_hash, secret_key=self.hall_app.secret_key,
                             config=config)
            # All of a table's view in the hall is the head referee's, as the hall is.
            app.extensions["riichi_https_only"] = https.all_but_trust
            own = app.extensions["riichi"]
            own.guard, own.sessions = dash.guard, dash.sessions

            @app.before_request
            def _hall_login_first():
                if not is_referee():
                    return redirect("/login", 303)
                return None

            dash.table_apps[name] = app
            return app
