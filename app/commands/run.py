"""``riichi-referee run --config table.toml``: the referee at a real table.

Seat buttons on the Pi's GPIO (lgpio), the camera through picamera2, the journal in the
working directory (systemd's ``StateDirectory``) unless the config says otherwise. Each
missing piece is one line with a hint; the exit status tells systemd whether restarting can
help (2: the config or the hardware needs a person; 3: the journal cannot be used at all; both
are listed in the unit's ``RestartPreventExitStatus`` so a broken setup is not a crash loop).

``[service] replay = "game.jsonl"`` plays a recorded event log instead of the sensors (a
rehearsal of the whole chain without a table; ``speed = 0`` as fast as possible).

``[hall]`` (see :mod:`hall.config`) also publishes everything journaled to the hall's MQTT
broker (:class:`hall.link.HallLink`); without it nothing leaves the table.
"""
from __future__ import annotations

import argparse
import logging
import sys
import threading
from pathlib import Path

from referee.errors import RefereeError, unreadable
from referee.events import read_events
from table.clock import TableClock, VirtualClock
from table.config import ConfigError, TableConfig, load_config
from table.journal import Journal, JournalError
from table.journal_check import note_judged_with
from table.pace import Pace
from table.sdnotify import Notifier
from table.service import ResumableTable, TableService, default_referee_factory

log = logging.getLogger("riichi-referee.service")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="TOML", required=True,
                        help="the table config (install.sh writes /etc/riichi-referee/table.toml)")
    parser.add_argument("--journal", metavar="PATH",
                        help="the journal file (default: [journal] path, else journal.sqlite "
                             "in the working directory)")
    parser.add_argument("--exit-at-end", action="store_true",
                        help="with [service] replay: stop when the recorded game has been played")
    parser.add_argument("--ack", action="store_true",
                        help="print 'ack SEQ' on standard output as each event is journaled")
    parser.add_argument("--pace-from-stdin", action="store_true",
                        help="with [service] replay: play only as far as standard input "
                             "allows; each line 'play N' lets the first N events be played, "
                             "the end of input lets it play on (step through a rehearsal; "
                             "hold the service at an exact point)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")


def open_journal(path: Path) -> Journal:
    """The journal for writing; a read-only one (refusing events, reported) if the file system
    went read-only, so the table's state can still be shown. Other failures raise."""
    try:
        return Journal(path)
    except JournalError as exc:
        if exc.kind == "readonly" and path.exists():
            log.error("%s", exc)
            journal = Journal(path, readonly=True)
            journal.open_error = str(exc)
            return journal
        raise


def read_recorded(path: Path) -> list[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            return list(read_events(f))
    except OSError as exc:
        raise ConfigError(unreadable(f"[service] replay {path}", exc, "event log")) from None


def load_wiring(config: TableConfig):
    """The ``[buttons]``/``[lights]`` wiring (hardware package), checked."""
    from hardware.config import load_table_config
    return load_table_config(config.path)


def build_buttons(wiring, queue):
    """Seat buttons on the GPIO pins of the wiring; their items go on ``queue``.

    Edges are stamped on ``monotonic()``; the service puts them on the table clock."""
    from hardware.buttons import SeatButtons
    return SeatButtons(wiring, queue, under_test=True)


def build_lights(wiring):
    from hardware.lights import SeatLights
    if not wiring.lights and wiring.buzzer is None:
        return None
    return SeatLights(wiring)


def build_camera(config: TableConfig):
    """The camera feed: frames through the tracker, as ``(t_mono, events)`` per frame."""
    if not config.section("camera"):
        return None
    try:
        from vision.tracking.service_feed import camera_feed

        from ..frames import open_source
    except ImportError as exc:
        raise RefereeError(f"no camera support ({exc}); is the project fully installed?")
    try:
        return camera_feed(config.path, open_source)
    except RefereeError:
        raise
    except Exception as exc:
        raise RefereeError(
            f"no camera: {exc} (hint: check the ribbon cable, `rpicam-hello --list-cameras`, "
            "that python3-picamera2 is installed and the user is in the 'video' group)") from None


def show_tileset(table, config: TableConfig) -> None:
    """Which tile set the camera reads with, on the dashboard (as health ``tileset``)."""
    try:
        from vision.reading.tileset import describe_config
        info = describe_config(config.path)
    except (ImportError, RefereeError) as exc:
        table.set_health("tileset", False, str(exc))
        return
    if info is None:
        table.set_health("tileset", True, "shipped model (no tile set enrolled)")
    elif info.get("error"):
        table.set_health("tileset", False, info["error"])
    else:
        table.set_health("tileset", True, f"{info['name']}, enrolled {info['enrolled_at']} "
                                          f"({info['tiles']} tiles"
                                          f"{'' if info.get('red_fives', True) else ', no red fives'})")


def feed_back_to_camera(table, camera) -> threading.Thread:
    """Every referee event the table journals (the dashboard's included) goes to the camera,
    which learns from a correction of its reading (:mod:`vision.tracking.readings`)."""
    sub = table.hub.subscribe()

    def loop():
        while True:
            message = sub.get(timeout=1.0)
            if message is None or message["kind"] != "event" or \
                    message["data"].get("type") != "referee":
                continue
            try:
                camera.referee_event(message["data"], table.rulings())
            except Exception:  # learning is a bonus; the correction itself is journaled
                log.exception("the camera could not take the referee's correction")

    thread = threading.Thread(target=loop, name="camera-feedback", daemon=True)
    thread.start()
    return thread


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(message)s", stream=sys.stderr)
    config = load_config(args.config)
    from hall.config import link_settings
    hall = link_settings(config.raw, config.path)  # checked before anything starts
    journal_path = Path(args.journal) if args.journal else config.journal
    journal = open_journal(journal_path)
    offset = journal.clock_offset() if not journal.readonly else journal.stored_clock_offset()
    if not journal.readonly:
        note_judged_with(journal, config.ruleset, config.confidence_threshold)
    recorded = read_recorded(config.replay) if config.replay else None
    if recorded is not None and config.speed == 0:
        clock = VirtualClock()
    else:
        clock = TableClock(offset=offset, speed=config.speed if recorded is not None else 1.0)
    table = ResumableTable(journal, default_referee_factory(config.ruleset,
                                                           config.confidence_threshold),
                           clock=clock)
    buttons = lights = camera = None
    import queue as queue_mod
    if recorded is None:
        buttons = queue_mod.Queue()
        wiring = load_wiring(config)
        table.sign_hold = wiring.sign_hold   # the score sheet tells the players how long
        build_buttons(wiring, buttons)
        lights = build_lights(wiring)
        camera = build_camera(config)
        if camera is None:
            log.warning("no [camera] section in %s: the camera is off, only the seat buttons "
                        "and the dashboard feed the table (see `riichi-referee calibrate`)",
                        config.path)
    if camera is not None:
        show_tileset(table, config)
        feed_back_to_camera(table, camera)
    on_submit = None
    if args.ack:
        def on_submit(event, seq):
            print(f"ack {seq}", flush=True)
    pace = None
    if args.pace_from_stdin and recorded is not None:
        pace = Pace()
        pace.follow(sys.stdin)
    service = TableService(table, clock=clock, buttons=buttons,
                           cameras=[camera] if camera is not None else [], lights=lights,
                           recorded=recorded, notifier=Notifier(),
                           camera_timeout=config.camera_timeout, on_submit=on_submit,
                           pace=pace)
    service.exit_at_end = args.exit_at_end
    if recorded is None and camera is None:
        table.set_health("camera", False, "no camera configured: only the seat buttons and "
                         "the dashboard feed the table")
    if journal.readonly:
        table.journal_ok = False
        table.set_health("journal", False, getattr(journal, "open_error", "journal read-only"))
    log.info("table service: journal %s, %d event(s) in the current game", journal_path,
             len(journal.game_events()) if journal.current_game() else 0)
    link = start_hall_link(journal_path, hall, table, clock, service) \
        if hall is not None else None
    try:
        return service.run()
    finally:
        if link is not None:
            link.stop()


def start_hall_link(journal_path: Path, settings, table: ResumableTable, clock,
                    service: TableService | None = None):
    """Publish the journal to the hall's broker (``[hall]``); its state is health ``hall``.
    With ``service``, the hall's round start is journaled and judged as any event is."""
    from hall.link import HallLink
    on_round = None
    if service is not None:
        def on_round(event: dict) -> bool:
            return service.submit(event, "hall") is not None
    return HallLink(journal_path, settings, hub=table.hub, clock=clock,
                    on_health=lambda ok, text: table.set_health("hall", ok, text),
                    on_round=on_round).start()
