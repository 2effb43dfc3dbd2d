"""One table for the soak (:mod:`testkit.soak`): the table service as ``riichi-referee run``
runs it, with the table simulated around it as ``riichi-referee demo`` does, game after game.

    python -m testkit.soak_table --config table.toml --journal journal.sqlite --speed 20 \\
        --games tenhou:5

What is real: the journal on disk (the one file ``run`` writes), the service's threads and
restore, the seat buttons (:class:`hardware.buttons.SeatButtons` on gpiozero MockFactory
pins, debounce and all), the seat lights, the camera pipeline (``--camera film``: the demo's
rendered table through the real tracker, :class:`app.demo.SimulatedCamera`) and the hall link
(the config's ``[hall]``, to a real broker). What is simulated: the players
(:class:`app.demo.SimulatedTable`), on the demo's clock (``--speed`` times real time).

It is meant to be SIGKILLed: started again on the same journal it finds where the day stands
(which game, how far into it) and plays on from there, as players at a table would go on
after the referee's box came back.

Standard output, one line each (flushed): ``ready SEQ`` once the journal's game is restored,
``ack SEQ`` for each event journaled (committed), ``game K START`` when game K is played from
its event START, ``break K`` when game K is over and a break begins, ``done COMMAND`` when a
command from standard input is carried out. Commands (one a line, the soak's faults):
``unplug``/``plug`` (the camera's cable), ``hold SEAT CALL``/``release SEAT CALL`` (a button
stuck down, and freed), ``stick SEAT CALL`` (stuck down for 2.5 times ``stuck_s``, then
freed), ``chatter SEAT CALL`` (a chattering contact), any of these
after ``in-window`` (once a claim window is open that the button's call could win, and the
game's script needs no press of that button for a while; a ``window SEAT CALL DISCARDER
OPENED DEADLINE NOW`` line says which), ``disk-low BYTES``
(room for only BYTES more in the journal: SQLite's own page quota, ``PRAGMA max_page_count``,
which fails writes with SQLITE_FULL as a full disk does; no small file system can be made
here without root) and ``disk-ok``.
"""
from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import threading
import time
from pathlib import Path

from app.demo import edge_at  # noqa: F401  (the soak's faults and the tests move pins with it)
from table.clock import monotonic

log = logging.getLogger("riichi-referee.soak")

UNLIMITED_PAGES = 1073741823  # SQLite's default max_page_count


def day_games(spec: str) -> list[list[dict]]:
    """The games of the day, played in turn (then again from the first):
    ``tenhou:N`` the first N Tenhou games of ../shared/data/tenhou (or simulated games without
    it), ``simulated:HANDS:N`` N games of the project's own simulation of HANDS hands."""
    kind, _, rest = spec.partition(":")
    if kind == "tenhou":
        from table.paths import shared_data_dir
        data = shared_data_dir()
        logs = sorted((data / "tenhou" / "mjlog").glob("*.mjlog")) if data else []
        if logs:
            from referee.tenhou import import_log
            return [import_log(p).events for p in logs[:int(rest or 5)]]
        kind, rest = "simulated", f"8:{rest or 5}"
    if kind == "simulated":
        from referee.simulate import simulate
        hands, _, count = rest.partition(":")
        return [simulate(seed=k, hands=int(hands or 2)) for k in range(int(count or 1))]
    raise SystemExit(f"--games {spec}: tenhou:N or simulated:HANDS:N")


def same_move(journaled: dict, scripted: dict) -> bool:
    """Whether a journaled event is the scripted one (its time aside: the table stamps it)."""
    for key, value in scripted.items():
        if key in ("t", "t_source"):
            continue
        got = journaled.get(key)
        if got != value and (value or got):
            return False
    return True


def played(journaled: list[dict], script: list[dict]) -> int:
    """How many of ``script``'s events the journal's game holds, from its start."""
    n = 0
    for got, want in zip(journaled, script):
        if not same_move(got, want):
            break
        n += 1
    return n


class Pluggable:
    """A camera feed whose cable can be pulled: while unplugged no frame comes through (the
    service notices after its camera timeout), and plugged back frames flow again. Everything
    else is the wrapped camera's."""

    def __init__(self, feed):
        self.feed = feed
        self.plugged = threading.Event()
        self.plugged.set()

    def __iter__(self):
        for item in self.feed:
            while not self.plugged.wait(0.05):
                pass
            yield item

    def __getattr__(self, name):
        return getattr(self.feed, name)


class IdleCamera:
    """A camera over a table it sees nothing new on: an empty frame every ``period`` seconds
    (the cheap camera of the short soak; discards are then handed to the table directly)."""

    def __init__(self, period: float = 0.05):
        self.period = period
        self.stop_event = threading.Event()

    def __iter__(self):
        while not self.stop_event.wait(self.period):
            yield monotonic(), []

    def close(self) -> None:
        self.stop_event.set()


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class Day:
    """Game after game with breaks between, resumed from the journal after a restart."""

    def __init__(self, service, buttons, clock, camera, games, speed: float,
                 break_seconds: float):
        self.service = service
        self.table = service.table
        self.buttons = buttons
        self.clock = clock
        self.camera = camera
        self.games = games
        self.speed = speed
        self.break_seconds = break_seconds
        self.stop_event = threading.Event()
        self.player = None

    def where(self) -> tuple[int, int]:
        """(the game being played, how many of its events are journaled)."""
        journal = self.table.journal
        games = journal.games()
        if not games:
            return 0, 0
        k = len(games) - 1
        script = self.games[k % len(self.games)]
        got = [e for _, e in journal.game_events(games[-1]["game_id"])]
        n = played(got, script)
        if n < len(got):
            log.error("game %d: the journal holds %d events, of which %d are the game's",
                      k, len(got), n)
        return k, n

    def clear_of(self, seat: int, call: str, span: float, back: float = 10.0) -> bool:
        """Whether the script of the game being played has no ``call`` by ``seat`` from
        ``back`` table seconds before its last journaled event to ``span`` after it (a player
        who has just pressed that button may not have let it go yet)."""
        k, n = self.where()
        script = self.games[k % len(self.games)]
        if not 0 < n <= len(script):
            return False
        last = float(script[n - 1]["t"])
        return not any(e.get("type") == "call" and e.get("seat") == seat
                       and e.get("call") == call for e in script
                       if last - back <= float(e["t"]) <= last + span)

    def run(self) -> None:
        from app.demo import SimulatedTable
        k, start = self.where()
        while not self.stop_event.is_set():
            script = self.games[k % len(self.games)]
            if start < len(script):
                say(f"game {k} {start}")
                self.player = SimulatedTable(self.service, self.buttons, self.clock,
                                             script[start:],
                                             press_seconds=min(0.08, 0.15 / self.speed),
                                             camera=self.camera)
                self.player.start()
                while not self.player.done.wait(0.2):
                    if self.stop_event.is_set():
                        self.player.stop()
                        return
            say(f"break {k}")
            if self.stop_event.wait(self.break_seconds / self.speed):
                return
            k, start = k + 1, 0


#: table seconds after an injected button fault begins during which the day's script must
#: not need that button (a stuck or chattering button makes no call, not even a player's)
FAULT_SPAN = 60.0


def open_window(table, seat: int, call: str, clear=lambda: True, timeout: float = 120.0):
    """Wait until a claim window is open that ``seat``'s ``call`` could win (another seat's
    discard, the next seat's for chii, with a table second or more left) and ``clear()``
    holds; the window (a ``referee.claims.ClaimWindow``), or None after ``timeout`` real
    seconds."""
    def open_to_it(w) -> bool:
        return (w is not None and not w.closed and w.deadline is not None and not w.chankan
                and not w.last_discard and w.discard_seat != seat
                and (call != "chii" or (seat - w.discard_seat) % 4 == 1)
                and w.deadline - table.clock() > 1.0)

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        w = getattr(table.referee, "window", None)
        # looked at again after the (slower) look at the script: at 600x a table second
        # is under two real milliseconds
        if open_to_it(w) and clear() and open_to_it(w) and table.referee.window is w:
            return w
        time.sleep(0.0005)
    return None


def control(line: str, table, buttons, camera, day=None) -> None:
    """Carry out one command of standard input (see the module docstring)."""
    words = line.split()
    if not words:
        return
    command, args = words[0], words[1:]
    wiring = buttons.wiring
    pressed_low = not wiring.pressed_level
    if command == "in-window":
        # a button fault while a discard is open to the very call the button makes, at a
        # moment the day's script does not need that button
        seat, call = int(args[1]), args[2]
        clear = (lambda: day.clear_of(seat, call, FAULT_SPAN)) if day is not None else \
            (lambda: True)
        w = open_window(table, seat, call, clear)
        if w is None:
            say(f"failed {line}: no claim window open to seat {seat}'s {call}")
            return
        command, args = args[0], args[1:]
        say(f"window {seat} {call} {w.discard_seat} {w.opened:.3f} {w.deadline:.3f} "
            f"{table.clock():.3f}")

    def pin(seat, call):
        return buttons.button(int(seat), call).pin

    def press(p, down: bool):
        (p.drive_low if pressed_low == down else p.drive_high)()

    journal = table.journal
    if command == "unplug":
        camera.plugged.clear()
    elif command == "plug":
        camera.plugged.set()
    elif command == "hold":
        press(pin(*args[:2]), True)
    elif command == "release":
        press(pin(*args[:2]), False)
    elif command == "stick":
        # stuck down for two and a half times stuck_s (the wiring's, scaled to the day's
        # speed), then freed: held and let go in this thread, with no command between, so
        # a busy machine cannot stretch it far into the game
        p = pin(*args[:2])
        press(p, True)
        time.sleep(2.5 * wiring.debounce.stuck)
        press(p, False)
    elif command == "chatter":
        # A contact that is never still for the chatter window, for longer than the chatter
        # run: a loose wire, whatever the speed of the day (the wiring is scaled to it). Each
        # edge carries the time it was made, as the kernel stamps a GPIO edge for lgpio: a
        # busy process may hand it over late, but its time is the edge's own.
        # The edges are handed over at once, each stamped with the time it is made (some a
        # little ahead): a thread woken late would leave still spells in the chatter, which
        # at 600x are under a millisecond, and a still spell would end the episode and let
        # its presses through as a finger's.
        d = wiring.debounce
        p, gap = pin(*args[:2]), max(d.chatter_window / 3, d.debounce * 1.5)
        edges = int((d.chatter_run * 2 + d.chatter_window) / gap) + 1
        t0 = monotonic()
        for i in range(edges + 1):
            edge_at(p, (i % 2 == 0) if i < edges else False, t0 + i * gap, pressed_low)
    elif command == "disk-low":
        with journal._lock:
            db = journal._db
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            size = db.execute("PRAGMA page_size").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages + int(args[0]) // size}")
    elif command == "disk-ok":
        with journal._lock:
            journal._db.execute(f"PRAGMA max_page_count = {UNLIMITED_PAGES}")
    else:
        say(f"unknown {line}")
        return
    say(f"done {line} @{table.clock():.3f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="the table config ([hall] for the link)")
    parser.add_argument("--journal", required=True)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--games", default="tenhou:5")
    parser.add_argument("--break-minutes", type=float, default=30.0,
                        help="table minutes between games")
    parser.add_argument("--camera", choices=("film", "idle"), default="film")
    parser.add_argument("--camera-timeout", type=float, default=2.0,
                        help="real seconds without a frame before the camera is reported")
    parser.add_argument("--low-disk", type=int, default=None, help="bytes (default the service's)")
    parser.add_argument("--disk-every", type=float, default=5.0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s",
                        stream=sys.stderr)

    from app.commands.demo import _seat_panel
    from app.commands.run import open_journal, start_hall_link
    from app.demo import DemoClock, SimulatedCamera
    from hall.config import link_settings
    from table.config import load_config
    from table.journal_check import note_judged_with
    from table.sdnotify import Notifier
    from table.service import ResumableTable, TableService, default_referee_factory

    config = load_config(args.config)
    hall = link_settings(config.raw, config.path)
    games = day_games(args.games)
    journal_path = Path(args.journal)
    journal = open_journal(journal_path)
    note_judged_with(journal, config.ruleset, config.confidence_threshold)
    clock = DemoClock(offset=journal.clock_offset(), speed=args.speed)
    table = ResumableTable(journal, default_referee_factory(config.ruleset,
                                                           config.confidence_threshold),
                           clock=clock)
    with contextlib.ExitStack() as closing:
        buttons, button_queue, lights = _seat_panel(args.speed, closing)
        film = args.camera == "film" and SimulatedCamera.available()
        camera = Pluggable(SimulatedCamera(args.speed) if film else IdleCamera())
        closing.callback(camera.close)
        service = TableService(
            table, clock=clock, buttons=button_queue, cameras=[camera], lights=lights,
            notifier=Notifier(), camera_timeout=args.camera_timeout,
            on_submit=lambda event, seq: say(f"ack {seq}"), low_disk=args.low_disk,
            disk_every=args.disk_every)
        link = start_hall_link(journal_path, hall, table, clock) if hall else None
        if link is not None:
            closing.callback(link.stop)
        day = Day(service, buttons, clock, camera if film else None, games, args.speed,
                  args.break_minutes * 60)
        started = service.start

        def start():
            fresh = started()
            say(f"ready {table.last_seq}")
            threading.Thread(target=day.run, name="day", daemon=True).start()
            return fresh

        service.start = start

        def commands():
            for line in sys.stdin:
                try:
                    control(line.strip(), table, buttons, camera, day)
                except Exception as exc:  # a command gone wrong is the soak's fault, not ours
                    say(f"failed {line.strip()}: {exc}")

        threading.Thread(target=commands, name="commands", daemon=True).start()
        closing.callback(day.stop_event.set)
        return service.run()


if __name__ == "__main__":
    sys.exit(main())
