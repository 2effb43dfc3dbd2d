"""``riichi-referee hall --config hall.toml``: the head referee's server.

Subscribes to every table of the hall on the broker (:class:`hall.subscriber.HallSubscriber`)
and serves the hall's page (:mod:`web.hall`) under gunicorn (gthread, one worker: the board
lives in the worker's memory). ``--dev-server`` serves with werkzeug instead (the demo does).
The config is checked before anything starts: a problem is one line and exit status 2.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from hall.config import HallSettings, load_hall_config
from table.config import ConfigError

log = logging.getLogger("riichi-referee.hall")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="TOML", required=True,
                        help="the hall config (see systemd/hall.toml)")
    parser.add_argument("--bind", metavar="HOST:PORT",
                        help="where to serve the page (default: [web] host and port)")
    parser.add_argument("--phones", type=int, default=8,
                        help="phones and screens expected on the page (sizes the threads)")
    parser.add_argument("--dev-server", action="store_true",
                        help="serve with werkzeug's threaded server instead of gunicorn")


def build(settings: HallSettings, start: bool = True):
    """The board, its subscriber (started unless ``start`` is False) and the app."""
    from hall.board import Board
    from hall.subscriber import HallSubscriber
    from web.hall import create_hall_app
    from web.pin import default_pin_file
    from web.wsgi import load_secret_key

    board = Board(settings.name, settings.title, settings.game_minutes)
    subscriber = HallSubscriber(board, settings.broker)
    if start:
        subscriber.start()
    pin = settings.pin_hash_file or default_pin_file()
    app = create_hall_app(board, pin_hash=Path(pin),
                          secret_key=load_secret_key(settings.secret_key_file),
                          config={"SESSION_COOKIE_SECURE": settings.cookie_secure})
    return board, subscriber, app


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stderr)
    settings = load_hall_config(args.config)
    bind = args.bind or f"{settings.web_host}:{settings.web_port}"
    host, _, port = bind.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--bind {bind}: must be HOST:PORT")
    if args.phones < 1:
        raise ConfigError("--phones must be 1 or more")
    if args.dev_server:
        import time

        from web import serve
        board, subscriber, app = build(settings)
        server = serve(app, host, int(port))
        print(f"riichi-referee hall {settings.name!r}: {server.url} (broker "
              f"{settings.broker.host}:{settings.broker.port})", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()
            subscriber.stop()
        return 0
    return _gunicorn(settings, bind, args.phones)


def _gunicorn(settings: HallSettings, bind: str, phones: int) -> int:
    from gunicorn.app.base import BaseApplication

    class HallServer(BaseApplication):
        def load_config(self):
            options = {"bind": [bind], "worker_class": "gthread", "workers": 1,
                       "threads": 2 * phones + 8, "timeout": 30, "keepalive": 5,
                       "graceful_timeout": 10, "proc_name": "riichi-referee-hall",
                       "errorlog": "-", "loglevel": "info", "post_worker_init": _on_term}
            if "control_socket_disable" in self.cfg.settings:
                options["control_socket_disable"] = True
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self):
            # In the worker: the broker connection must live where the page is served.
            _, subscriber, app = build(settings)
            app.extensions["riichi_hall_subscriber"] = subscriber
            print(f"riichi-referee hall {settings.name!r}: serving on {bind} (pid {os.getpid()})",
                  flush=True)
            return app

    HallServer().run()
    return 0


def _on_term(worker):
    """End the open streams at once on SIGTERM (as the table dashboard does)."""
    import signal

    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        app = getattr(worker, "wsgi", None)
        dash = getattr(app, "extensions", {}).get("riichi")
        if dash is not None:
            dash.stop()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)
