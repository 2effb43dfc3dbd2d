"""``riichi-referee demo --tables 4 --hall``: a hall of tables, each playing a game into a
Mosquitto of the demo's own, and the head referee's page over them.

Every table is the real table service (journal, rules core, claim-window timer) playing a
recorded game at ``--speed``, with the real :class:`hall.link.HallLink`; the hall is the real
board, subscriber and page. A few things happen on purpose, so there is something to see
(:data:`STAGED`): table 2's seat 1 calls for a referee (answered later), table 3 loses the
broker for a while and catches up, table 4's camera stops for a while. The start-up message
and the hall's page say so, so nobody takes them for faults.
"""
from __future__ import annotations

import logging
import sys
import tempfile
import threading
import time
from pathlib import Path

from hall.mosquitto import LocalBroker, find_mosquitto
from referee.errors import RefereeError
from table.clock import TableClock
from table.journal import Journal
from table.referee_calls import call_event
from table.service import ResumableTable, TableService, default_referee_factory

log = logging.getLogger("riichi-referee.demo")

#: What the demo does on purpose: (table index, from, to, what), the times as fractions of the
#: shortest game.
STAGED = ((1, 0.15, 0.45, "seat 1 calls for a referee at {start}; a referee answers at {end}"),
          (2, 0.25, 0.40, "loses the hall's broker from {start} to {end}, plays on and "
                          "catches up"),
          (3, 0.35, 0.55, "its camera stops from {start} to {end}; the seat buttons still "
                          "work"))
#: What the tables' pages say of the camera and the buttons: a recorded game stands in for both.
RECORDED = "a recorded game stands in for it"


def staged_lines(names: list[str], length: float, lead: float = 0.0) -> list[str]:
    """What the demo stages, a line per table it stages something at (``names``: the tables;
    ``length``: the shortest game in real seconds; ``lead``: seconds before the first step's
    clock starts), with times as m:ss from the start; none for a lone table."""
    def at(fraction: float) -> str:
        seconds = round(lead + fraction * length)
        return f"about {seconds // 60}:{seconds % 60:02d}"
    return [f"{names[i]}: " + what.format(start=at(a), end=at(b))
            for i, a, b, what in STAGED if i < len(names)]


def games(args, n: int) -> tuple[list[list[dict]], str]:
    """One game per table: the shared Tenhou logs in turn, else simulated games."""
    from table.paths import shared_data_dir

    from .demo import load_game

    data = shared_data_dir()
    logs = sorted((data / "tenhou" / "mjlog").glob("*.mjlog")) if data and not args.simulated \
        and not args.game else []
    if logs:
        from referee.tenhou import import_log
        return [import_log(logs[i % len(logs)]).events for i in range(n)], \
            f"real Tenhou games from {data / 'tenhou' / 'mjlog'}"
    if args.game:
        events, origin = load_game(args)
        return [events] * n, origin
    from referee.simulate import simulate
    return [simulate(seed=args.seed + i, hands=args.hands) for i in range(n)], \
        f"simulated games (seeds {args.seed}-{args.seed + n - 1}, {args.hands} hands)"


class DemoTable:
    """One table of the demo hall: the table service playing ``events``, linked to the hall."""

    def __init__(self, name: str, folder: Path, broker: LocalBroker, events, speed: float):
        from hall.config import LinkSettings
        from hall.link import HallLink

        self.name = name
        self.journal = Journal(folder / f"{name}.sqlite")
        self.clock = TableClock(offset=self.journal.clock_offset(), speed=speed)
        self.table = ResumableTable(self.journal, default_referee_factory(), clock=self.clock)
        self.service = TableService(self.table, clock=self.clock, recorded=events, inbox=False)
        self.settings = LinkSettings(broker.hall, name, broker.settings(name))
        self._make_link = lambda: HallLink(
            self.journal.path, self.settings, hub=self.table.hub, clock=self.clock,
            on_health=lambda ok, text: self.table.set_health("hall", ok, text),
            on_round=lambda event: self.service.submit(event, "hall") is not None)
        self.link = self._make_link()

    def start(self) -> None:
        self.link.start()
        self.service.start()
        # Without a word from them, the table's page shows both as never heard from.
        for part in ("camera", "buttons"):
            self.table.set_health(part, True, RECORDED)

    def cut_link(self, seconds: float, stop: threading.Event) -> None:
        """The table's Wi-Fi drops for ``seconds``: it plays on and catches up after."""
        self.link.stop()
        if not stop.wait(seconds):
            self.link = self._make_link()
            self.link.start()

    def close(self) -> None:
        self.service.stop()
        self.link.stop()
        self.journal.close()


def run_hall_demo(args) -> int:
    from hall.board import Board
    from hall.subscriber import HallSubscriber
    from web import serve
    from web.hall import create_hall_app
    from web.pin import hash_pin

    from .demo import DEMO_PIN

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    _check_arguments(args)
    n = args.tables
    all_games, origin = games(args, n)
    names = [f"t{i + 1}" for i in range(n)]
    # What happens on purpose, at fractions of the shortest game's length.
    length = min((float(g[-1]["t"]) - float(g[0]["t"])) / args.speed for g in all_games)
    stagger = min(2.0, 20.0 / n)   # tables start a little apart, as in a hall
    staged = staged_lines(names, length, lead=n * stagger)
    note = ["This demo stages what follows on purpose; nothing is broken.", *staged] \
        if staged else None
    tmp = tempfile.TemporaryDirectory(prefix="riichi-hall-demo-")
    folder = Path(tmp.name)
    stop = threading.Event()
    broker = LocalBroker(folder / "broker", "demo", names).start()
    board = Board("demo", "Demo hall", game_minutes=90)
    subscriber = HallSubscriber(board, broker.settings("hall")).start()
    tables = [DemoTable(name, folder, broker, events, args.speed)
              for name, events in zip(names, all_games)]
    app = create_hall_app(board, pin_hash=hash_pin(DEMO_PIN), config={"RIICHI_HALL_NOTE": note},
                          start_round=subscriber.start_round)
    server = serve(app, args.host, args.port)
    print(f"riichi-referee demo: a hall of {n} tables, {origin}, at {args.speed:g}x speed",
          flush=True)
    print(f"  broker: mosquitto on 127.0.0.1:{broker.port} (a user per table, ACL)", flush=True)
    print(f"  hall: {server.url}  (head referee PIN {DEMO_PIN}); Ctrl-C stops", flush=True)
    if staged:
        print("  on purpose, so there is something to see (nothing is broken):", flush=True)
        for line in staged:
            print(f"    {line}", flush=True)
    if not args.no_browser:
        import webbrowser
        threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()

    started = time.monotonic()
    try:
        for i, table in enumerate(tables):
            table.start()
            if stop.wait(stagger):
                break
        threading.Thread(target=play_staged, args=(tables, length, stop), name="demo-timeline",
                         daemon=True).start()
        while not all(t.service.finished.is_set() for t in tables):
            time.sleep(0.2)
        for t in tables:
            t.link.wait_idle(10)
        print(f"all {n} games over after {time.monotonic() - started:.1f} s; the hall has "
              f"{sum(len(r.events()) for r in board.tables.values())} events of "
              f"{sum(len(t.table.events()) for t in tables)}", flush=True)
        if not args.exit_at_end:
            print("the hall stays up; Ctrl-C stops", flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        print("stopping", file=sys.stderr, flush=True)
    finally:
        stop.set()
        for t in tables:
            t.close()
        server.shutdown()
        subscriber.stop()
        broker.stop()
        tmp.cleanup()
    return 0


def _check_arguments(args) -> None:
    """One line for what would stop the hall demo, before anything starts."""
    from .demo import port_problem

    if find_mosquitto() is None:
        raise RefereeError("the hall demo needs Mosquitto (Debian: apt-get install mosquitto)")
    if args.speed <= 0:
        raise RefereeError("--speed must be above 0 (1 = real time, 10 = ten times faster)")
    if not 1 <= args.tables <= 60:
        raise RefereeError("--tables must be 1 to 60")
    problem = port_problem(args.host, args.port)
    if problem is not None:
        raise RefereeError(f"cannot serve the hall on {args.host}:{args.port} ({problem}); "
                           "try --port 0 for a free port")


def play_staged(tables: list, length: float, stop: threading.Event) -> None:
    """What the demo stages (:data:`STAGED`), each at its fraction of ``length`` seconds from
    now, on the tables there are: a call for a referee and its answer on t2, t3's broker link
    cut and back, t4's camera lost and back. Returns early when ``stop`` is set."""
    n = len(tables)
    (call, answer), (cut, back), (stops, starts) = [(a, b) for _, a, b, _ in STAGED]
    steps = []
    if n >= 2:
        t2 = tables[1]
        steps += [(call, lambda: t2.service.submit(call_event(1, t2.clock(), "chii and kan "
                                                              "held 2 s"), "buttons")),
                  (answer, lambda: t2.service.submit(
                      {"type": "referee", "t": t2.clock(), "action": "note",
                       "text": "Came for seat 1's call: players agreed, play on"},
                      "dashboard"))]
    if n >= 3:
        steps.append((cut, lambda: threading.Thread(
            target=tables[2].cut_link, args=((back - cut) * length, stop),
            daemon=True).start()))
    if n >= 4:
        t4 = tables[3]
        steps += [(stops, lambda: t4.table.set_health(
                      "camera", False, "no camera frame for 6 s; the seat buttons still work "
                      "(staged by the demo)")),
                  (starts, lambda: t4.table.set_health("camera", True, RECORDED))]
    started = time.monotonic()
    for at, action in sorted(steps, key=lambda s: s[0]):
        if stop.wait(max(0.0, started + at * length - time.monotonic())):
            return
        try:
            action()
        except Exception:
            log.exception("demo step failed")
