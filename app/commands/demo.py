"""``riichi-referee demo``: a simulated table playing a whole game, no hardware needed.

The table and its simulated camera, buttons and clock are :mod:`app.demo`; ``--hall`` plays a
whole hall instead (:mod:`app.hall_demo`)."""
from __future__ import annotations

import argparse
import contextlib
import logging
import queue
import signal
import sys
import tempfile
import threading
import time
import webbrowser
from pathlib import Path

from referee.errors import RefereeError
from table.journal import Journal
from table.service import ResumableTable, TableService, default_referee_factory

from ..demo import (
    DEMO_PIN,
    DemoClock,
    SimulatedCamera,
    SimulatedTable,
    load_game,
    port_problem,
    scaled_wiring,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--speed", type=float, default=1.0,
                        help="how many times faster than real time (default 1)")
    parser.add_argument("--host", default="127.0.0.1", help="dashboard address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000,
                        help="dashboard port (default 8000; 0 picks a free one)")
    parser.add_argument("--no-browser", action="store_true", help="don't open a browser")
    parser.add_argument("--no-web", action="store_true", help="no dashboard (benchmarks, tests)")
    parser.add_argument("--no-camera", action="store_true",
                        help="hand discards to the table directly instead of rendering frames "
                             "for the tracker")
    parser.add_argument("--game", metavar="LOG",
                        help="play this game: a Tenhou log or a table-event .jsonl file")
    parser.add_argument("--simulated", action="store_true",
                        help="play the project's own simulated game even if Tenhou logs exist")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated game")
    parser.add_argument("--hands", type=int, default=8, help="hands in the simulated game")
    parser.add_argument("--journal", metavar="PATH",
                        help="keep the journal here (default: a temporary folder)")
    parser.add_argument("--exit-at-end", action="store_true",
                        help="stop when the game is over (default: keep the dashboard up)")
    parser.add_argument("--hall", action="store_true",
                        help="a hall: the tables publish to a Mosquitto of the demo's own and "
                             "the head referee's page shows them (needs mosquitto)")
    parser.add_argument("--tables", type=int, default=4,
                        help="with --hall: how many tables play (default 4)")


def run(args: argparse.Namespace) -> int:
    # A service manager stops with SIGTERM: stop as Ctrl-C does, cleaning up (the temporary
    # journal folder above all), where SIGTERM's default would end the process on the spot.
    if threading.current_thread() is not threading.main_thread():
        return _run(args)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return _run(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace) -> int:
    if args.hall:
        from app.hall_demo import run_hall_demo
        return run_hall_demo(args)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per phone request
    if args.speed <= 0:
        raise RefereeError("--speed must be above 0 (1 = real time, 10 = ten times faster)")
    events, origin = load_game(args)
    # Each piece is closed (in the reverse order) however the demo ends: the game over, an
    # error, Ctrl-C or SIGTERM, even during the start, which loads the camera's models.
    with contextlib.ExitStack() as closing:
        try:
            return _play(args, events, origin, closing)
        except KeyboardInterrupt:
            print("stopping", file=sys.stderr, flush=True)
            return 0


def _play(args: argparse.Namespace, events: list[dict], origin: str,
          closing: contextlib.ExitStack) -> int:
    if args.journal:
        journal_path = Path(args.journal)
    else:
        tmpdir = closing.enter_context(tempfile.TemporaryDirectory(prefix="riichi-demo-"))
        journal_path = Path(tmpdir) / "journal.sqlite"
    journal = closing.enter_context(Journal(journal_path))
    clock = DemoClock(offset=journal.clock_offset(), speed=args.speed)
    table = ResumableTable(journal, default_referee_factory(), clock=clock)

    buttons, button_queue, lights = _seat_panel(args.speed, closing)
    camera = None
    if not args.no_camera and SimulatedCamera.available():
        camera = SimulatedCamera(args.speed)
    service = TableService(table, clock=clock, buttons=button_queue, lights=lights, inbox=False,
                           cameras=[camera] if camera is not None else [],
                           camera_timeout=10.0)
    service.start()
    closing.callback(service.stop)
    if camera is not None:
        closing.callback(camera.close)      # before the service stops, which waits for it
    if camera is None:
        why = "--no-camera" if args.no_camera else "no tile art in ../shared/data/tiles"
        table.set_health("camera", False, f"simulated camera off ({why}): discards are "
                         "handed to the table directly")
    player = SimulatedTable(service, buttons, clock, events,
                            press_seconds=min(0.08, 0.15 / args.speed), camera=camera)

    server = None if args.no_web else _dashboard(args, table, closing)
    _say_what_plays(args, origin, events, camera, journal_path)
    if server is not None:
        print(f"  dashboard: {server.url}  (referee PIN {DEMO_PIN}); Ctrl-C stops", flush=True)
        if not args.no_browser:
            threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
    started = time.monotonic()
    player.start()
    closing.callback(player.stop)
    while not player.done.wait(0.2):
        pass
    snap = table.snapshot()
    dropped = len(camera.false_reports) if camera else 0
    print(f"game over after {time.monotonic() - started:.1f} s: {len(table.events())} events,"
          f" {len(table.rulings())} rulings, {player.presses} button presses, "
          f"{player.seen} discards seen by the tracker (safety net used "
          f"{player.missed + dropped} times: {player.missed} missed, "
          f"{dropped} false reports dropped); "
          f"scores {snap.get('scores')}", flush=True)
    if not args.exit_at_end and server is not None:
        print("the dashboard stays up; Ctrl-C stops", flush=True)
        while True:
            time.sleep(3600)
    return 0


def _seat_panel(speed: float, closing: contextlib.ExitStack):
    """The sample wiring's seat buttons and lights on gpiozero mock pins, the buttons' times
    scaled to the demo's speed: ``(buttons, the queue they put presses on, lights or None)``."""
    from hardware.buttons import SeatButtons
    from hardware.config import SAMPLE_CONFIG, load_table_config
    from hardware.lights import SeatLights
    from hardware.pins import mock_pin_factory

    wiring = scaled_wiring(load_table_config(SAMPLE_CONFIG), speed)
    factory = mock_pin_factory()
    button_queue: queue.Queue = queue.Queue()
    buttons = SeatButtons(wiring, button_queue, pin_factory=factory, under_test=True)
    closing.callback(buttons.close)
    lights = SeatLights(wiring, pin_factory=factory) if (wiring.lights or wiring.buzzer) else None
    if lights is not None:
        closing.callback(lights.close)
    return buttons, button_queue, lights


def _dashboard(args: argparse.Namespace, table, closing: contextlib.ExitStack):
    """The dashboard on ``--host``/``--port``, in this process; one line if it cannot be."""
    import web
    from web.pin import hash_pin

    from ..photo import PhotoReader

    # The referee's photo of a hand is read with the shipped tile model (loaded on the first).
    app = web.create_app(table, pin_hash=hash_pin(DEMO_PIN),
                         config={"RIICHI_TABLE_NAME": "Demo table"}, photo_reader=PhotoReader())
    problem = port_problem(args.host, args.port)
    server = None
    if problem is None:
        try:
            server = web.serve(app, args.host, args.port)
        except (OSError, SystemExit) as exc:  # werkzeug exits on a port in use
            problem = getattr(exc, "strerror", None) or "address in use"
    if problem is not None:
        raise RefereeError(f"cannot serve the dashboard on {args.host}:{args.port} "
                           f"({problem}); try --port 0 for a free port")
    closing.callback(server.shutdown)
    return server


def _say_what_plays(args: argparse.Namespace, origin: str, events: list[dict], camera,
                    journal_path: Path) -> None:
    """The start-up lines: the game, and which real code each part goes through."""
    print(f"riichi-referee demo: {origin}, {len(events)} events at {args.speed:g}x speed",
          flush=True)
    print("  seat buttons: gpiozero MockFactory pins through the real SeatButtons code",
          flush=True)
    if camera is not None:
        print("  discards: rendered table frames through the real tracker "
              "(vision.tracking.tracker.TableTracker; tiles found and read by the shipped "
              "ONNX finder and tile model)", flush=True)
        print("  melds, dora flips, reveals: handed to the table directly", flush=True)
    else:
        why = "--no-camera" if args.no_camera else "no tile art in ../shared/data/tiles"
        print(f"  discards, melds, reveals: handed to the table directly ({why})", flush=True)
    print(f"  journal: {journal_path}", flush=True)
