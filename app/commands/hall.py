"""``riichi-referee hall --config hall.toml``: the head referee's server.

Subscribes to every table of the hall on the broker (:class:`hall.subscriber.HallSubscriber`)
and serves the hall's page (:mod:`web.hall`) under gunicorn (gthread, one worker: the board
lives in the worker's memory). ``--dev-server`` serves with werkzeug instead (the demo does).
The config is checked before anything starts: a problem is one line and exit status 2.

The standings (:mod:`hall.standings`): ``--roster FILE`` and ``--seating ROUND=FILE`` (once per
round) name the tournament's CSV files, as ``[standings]`` of ``hall.toml`` does (the command
line adds to and overrides it); the results counted are kept in ``[standings] file``
(``standings.json`` beside ``hall.toml``), so the server can be restarted with the next round's
seating at any time. ``riichi-referee standings`` writes the EMA CSV and the JSON from it.

With ``[web] certfile`` and ``keyfile`` (install-hall.sh sets them, from the hall's CA) the
page is served over HTTPS only, on ``[web] https_port``; ``--plain-http`` then runs the
second server (``riichi-referee-hall-http.service``) on ``[web] port``: it only sends phones
to the HTTPS page and offers the hall's CA (``/ca.crt``, ``/trust``), with no broker
connection and no session (:mod:`web.https`). gunicorn applies one TLS setting to every
address it binds, hence two servers, as at a table (web/README.md).
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path

from hall.config import HallSettings, StandingsSettings, load_hall_config
from table.config import ConfigError, beside_config

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
    parser.add_argument("--plain-http", action="store_true",
                        help="serve [web] port over plain http, sending every phone to the "
                             "https page ([web] https_port) and offering the hall's CA")
    add_standings_arguments(parser)


def add_standings_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--roster", metavar="CSV",
                        help="the tournament's players: name, EMA number, country "
                             "(default: [standings] roster)")
    parser.add_argument("--seating", metavar="ROUND=CSV", action="append", default=[],
                        help="a round's seating: table, seat (0-3), player; once per round "
                             "(adds to [standings] seating)")


def with_standings(settings: HallSettings, args: argparse.Namespace) -> HallSettings:
    """``settings`` with ``--roster`` and ``--seating`` laid over its ``[standings]``."""
    from hall.standings import parse_round_file

    own = settings.standings or StandingsSettings(file=beside_config(settings.path,
                                                                     "standings.json"))
    seating = dict(own.seating)
    for text in args.seating or []:
        round_no, file = parse_round_file(text)
        seating[round_no] = Path(file)
    roster = Path(args.roster) if getattr(args, "roster", None) else own.roster
    return replace(settings, standings=replace(own, roster=roster, seating=seating))


def open_standings(settings: HallSettings):
    """The hall's :class:`hall.standings.Standings` from its ``[standings]``."""
    from hall.standings import open_standings as open_

    own = settings.standings
    if own is None:
        return open_(None)
    return open_(own.file, own.roster, own.seating)


def web_config(settings: HallSettings) -> dict:
    """The app's settings from ``[web]``: HTTPS only when the hall has a certificate."""
    return {"SESSION_COOKIE_SECURE": settings.cookie_secure,
            "RIICHI_REFEREE_HTTPS": settings.https, "RIICHI_HTTPS_PORT": settings.https_port,
            "RIICHI_CA_CERT": str(settings.ca_cert) if settings.ca_cert else None}


def build(settings: HallSettings, start: bool = True):
    """The board, its subscriber (started unless ``start`` is False) and the app; the
    standings are the app's (``app.extensions["riichi"].standings``)."""
    from hall.board import Board
    from hall.subscriber import HallSubscriber
    from web.hall import create_hall_app
    from web.pin import default_pin_file
    from web.wsgi import load_secret_key

    board = Board(settings.name, settings.title, settings.game_minutes)
    standings = open_standings(settings)
    # Every signed result the tables send counts in the standings (once: add_result says so).
    board.on_result.append(standings.add_result)
    subscriber = HallSubscriber(board, settings.broker)
    if start:
        subscriber.start()
    pin = settings.pin_hash_file or default_pin_file()
    app = create_hall_app(board, pin_hash=Path(pin),
                          secret_key=load_secret_key(settings.secret_key_file),
                          config=web_config(settings), standings=standings,
                          start_round=subscriber.start_round)
    return board, subscriber, app


def build_plain_http(settings: HallSettings):
    """The plain-http server's app: the hall's own (over an empty board, with no broker), so
    the same code decides what http may serve; over http that is only the way to HTTPS."""
    from hall.board import Board
    from web.hall import create_hall_app

    return create_hall_app(Board(settings.name, settings.title, settings.game_minutes),
                           pin_hash=None, config=web_config(settings))


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s", stream=sys.stderr)
    settings = with_standings(load_hall_config(args.config), args)
    if args.plain_http and not settings.https:
        raise ConfigError(f"--plain-http: config {settings.path} has no [web] certfile and "
                          "keyfile, so no https page to send phones to")
    if not args.plain_http:
        standings = open_standings(settings)  # every file checked before anything starts
        log.info("standings: %d players, rounds %s, %d results counted",
                 len(standings.players), standings.rounds() or "none yet",
                 standings.summary()["results"])
    tls = settings.https and not args.plain_http
    port = settings.https_port if tls else settings.web_port
    bind = args.bind or f"{settings.web_host}:{port}"
    host, _, port = bind.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--bind {bind}: must be HOST:PORT")
    if args.phones < 1:
        raise ConfigError("--phones must be 1 or more")
    if not settings.https:
        log.warning("the hall's page is served over plain http: the head referee's PIN "
                    "crosses the network in clear (set [web] certfile and keyfile; "
                    "install-hall.sh does)")
    if args.plain_http:
        return _gunicorn(settings, bind, args.phones, plain=True)
    if args.dev_server:
        import time

        from web import serve
        board, subscriber, app = build(settings)
        tls_files = (str(settings.certfile), str(settings.keyfile)) if tls else None
        server = serve(app, host, int(port), ssl_context=tls_files)
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


def _gunicorn(settings: HallSettings, bind: str, phones: int, plain: bool = False) -> int:
    from gunicorn.app.base import BaseApplication

    class HallServer(BaseApplication):
        def load_config(self):
            options = {"bind": [bind], "worker_class": "gthread", "workers": 1,
                       "threads": 4 if plain else 2 * phones + 8, "timeout": 30,
                       "keepalive": 5, "graceful_timeout": 10,
                       "proc_name": "riichi-referee-hall" + ("-http" if plain else ""),
                       "errorlog": "-", "loglevel": "info", "post_worker_init": _on_term}
            if settings.https and not plain:
                # gunicorn's default context: TLS 1.2 at least, as at the tables.
                options.update(certfile=str(settings.certfile), keyfile=str(settings.keyfile))
            if "control_socket_disable" in self.cfg.settings:
                options["control_socket_disable"] = True
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self):
            if plain:
                print(f"riichi-referee hall {settings.name!r}: sending phones from http {bind} "
                      f"to https port {settings.https_port} (pid {os.getpid()})", flush=True)
                return build_plain_http(settings)
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
