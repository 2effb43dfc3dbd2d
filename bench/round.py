"""A tournament round from the hall's start to the signed results: N tables at 10x speed, one
Mosquitto on loopback, the real hall subscriber and board.

The hall starts the round at every table at once (:meth:`hall.subscriber.HallSubscriber.
start_round`, the retained round start). Each table is the real table floor without its
devices: its journal, the rules core (:class:`table.service.ResumableTable`), the table
service's deadline timer (:class:`table.service.TableService`, no camera, no buttons, no
dashboard, no inbox) and the real :class:`hall.link.HallLink`, which hands the round start to
the service. What the camera and the seat buttons would send is a simulated game
(:func:`referee.simulate.simulate`) played on the table's clock from the moment the clock
starts; each table plays a tournament ruleset in turn (WRC 2015, EMA 2016, EMA 2025, EMA 2012,
Dutch), with a game picked (by seed) that its ruleset's time rule ends: the rules core rules
``time_up`` when the round's time runs out and ends the game where the ruleset says. Then
the simulated players sign (``sign`` with their seat, in a random order, a few seconds
apart) and the referee countersigns (``sign`` ``referee``). At ``--disputed`` tables one
player does not sign: the hall shows the table waiting for a referee (``dispute_after``), the
bench's referee, who watches the hall's board, comes (15 to 30 s of table time after) with a
``referee`` note, the player signs, the referee countersigns. The broker
is stopped and started again (``--down`` s) once a third of the results have reached the hall.

Left out, against a table in the hall: the camera and tracker, the seat buttons and lights
(their threads and the press hold), the dashboard process and its journal tail, systemd's
watchdog; the tables' journals are in one folder of one machine (in memory, /dev/shm, unless
``--journals``: on this machine's one disk, 60 tables' fsyncs queued behind each other and the
simulated players ran up to 23 s late; each Pi has its own SD card), and a few worker
processes run 15 tables each. The referee reads the board, not the page.

Figures (bench/results/round.json):

* ``results_signed``: tables whose journal holds a ``result`` ruling (target: all);
  ``results_in_standings``: results counted by the hall's standings
  (:class:`hall.standings.Standings`, a roster of 240 players seated for round 1, fed by the
  board's ``on_result`` as ``riichi-referee hall`` feeds it); ``lost``: signed at the table,
  never counted (target 0); ``counted_twice``: a (table, round) counted more than once
  (target 0); ``handed_to_standings_again``: results the board passed on twice (the standings
  refuse them); all across the broker restart.
* ``sign_to_standings_p50/p95_ms`` (target p95 <= 500): from the referee's countersign
  journaled at the table (the result ruling journaled with it) to the standings counting it
  (kept in their file first), both on CLOCK_MONOTONIC, which all processes share, for the
  results countersigned away from the broker restart. A result countersigned while it was
  down, or on its way to the hall when it stopped, waits for it
  (``signed_while_broker_down_or_on_the_way_then``); one in the ``--catch-up`` seconds after
  it came back may wait for its table's link to reconnect, retries up to 4 s apart
  (``signed_in_catch_up_after_broker_back``); ``..._p95_ms_all`` counts them all.
* ``clock_skew_max_ms`` (target <= 250): how far apart (real time) the tables' ``time_up``
  rulings were made; ``round_start_heard_spread_ms``: how far apart the tables heard the start
  (the clock event's ``t``).
* ``round_start_journaled``: clock starts from the hall in each journal (target: 1 each,
  though the broker hands the retained start over again after its restart).

    python bench/round.py [--tables 60] [--speed 10] [--workers 4] [--round-seconds 240]

CPU heavy: run it under ``nice`` on a shared machine.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# This script is bench/round.py: the project's packages must come before bench/ on the path.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != BENCH] + \
    [str(BENCH)]

from _results import write_results  # noqa: E402

from testkit.round_bench import TableSet, met, run  # noqa: E402


def worker(args) -> int:
    names = args.names.split(",")
    tables = TableSet(names, args.first, args.port, json.loads(Path(args.passwords).read_text()),
                      args.journals, args.speed, args.round_seconds,
                      set(args.disputed_tables.split(",")) if args.disputed_tables else set(),
                      args.dispute_after, lambda name: (Path(args.called) / name).exists()).start()
    while not tables.ready.wait(0.1):
        pass
    Path(args.out + ".ready").write_text("ready")
    Path(args.out).write_text(json.dumps(tables.finish(args.timeout)))
    return 0


def worker_argv(options: list[str]) -> list[str]:
    return [sys.executable, __file__, "--worker", *options]


def main(args) -> int:
    result = run(args, worker_argv)
    print(json.dumps(result, indent=2))
    if not args.no_write:
        write_results("round", result)
    print(f"targets {'met' if met(result) else 'NOT met'}")
    return 0


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=60)
    p.add_argument("--speed", type=float, default=10.0)
    p.add_argument("--workers", type=int, default=4,
                   help="processes the tables run in (0: in this process)")
    p.add_argument("--round-seconds", type=float, default=240.0,
                   help="the round's length on the tables' clocks")
    p.add_argument("--disputed", type=int, default=2, help="tables with a disputed result")
    p.add_argument("--dispute-after", type=float, default=90.0,
                   help="table seconds after game end before the hall calls a referee")
    p.add_argument("--catch-up", type=float, default=10.0,
                   help="real seconds after the broker is back before the hall calls a referee "
                        "to a table it may not have heard yet")
    p.add_argument("--down", type=float, default=3.0, help="seconds the broker stays down")
    p.add_argument("--timeout", type=float, default=600.0, help="real seconds at most")
    p.add_argument("--journals", help="folder for the tables' journals (default: a temporary "
                                      "one in /dev/shm)")
    p.add_argument("--no-write", action="store_true", help="print only (the tests)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--names", help=argparse.SUPPRESS)
    p.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--passwords", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    p.add_argument("--disputed-tables", default="", help=argparse.SUPPRESS)
    p.add_argument("--called", help=argparse.SUPPRESS)
    return p.parse_args(argv)


if __name__ == "__main__":
    a = parse()
    sys.exit(worker(a) if a.worker else main(a))
