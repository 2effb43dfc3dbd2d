"""``riichi-referee standings --config hall.toml``: the standings the hall has collected.

Reads the hall's roster and seating (``[standings]`` of ``hall.toml``, with ``--roster`` and
``--seating ROUND=FILE`` as the ``hall`` command takes them) and the results counted in its
standings file, and writes ``--csv FILE`` (the EMA's results columns) and ``--json FILE``
(``-``: standard output). Without either it prints the standings and the tables whose result
is missing. It only reads: run it while the hall serves (the hall replaces the file whole, so
it never meets half of one).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.commands.hall import add_standings_arguments, open_standings, with_standings
from hall.config import load_hall_config
from referee.errors import RefereeError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="TOML", required=True, help="the hall config")
    add_standings_arguments(parser)
    parser.add_argument("--csv", metavar="FILE",
                        help="write the standings in the EMA's results columns ('-': stdout)")
    parser.add_argument("--json", metavar="FILE", help="write the standings as JSON ('-': stdout)")


def _write(target: str, write, newline: str | None) -> None:
    if target == "-":
        write(sys.stdout)
        return
    try:
        with open(target, "w", encoding="utf-8", newline=newline) as fh:
            write(fh)
    except OSError as exc:
        raise RefereeError(f"{target}: cannot be written ({exc.strerror or exc})") from None


def run(args: argparse.Namespace) -> int:
    settings = with_standings(load_hall_config(args.config), args)
    standings = open_standings(settings)
    if not Path(settings.standings.file).exists():
        print(f"riichi-referee standings: no results counted yet ({settings.standings.file} "
              "does not exist)", file=sys.stderr)
    if args.csv:
        _write(args.csv, standings.write_csv, "")
    if args.json:
        _write(args.json, standings.write_json, None)
    if not args.csv and not args.json:
        _print(standings.summary())
    return 0


def _print(summary: dict) -> None:
    rounds = summary["rounds"]
    print(f"{'#':>3}  {'player':<28} {'country':<8}"
          + "".join(f"{'R' + str(r):>8}" for r in rounds) + f"{'total':>9}")
    for p in summary["players"]:
        cells = "".join(f"{p['rounds'][r]:>+8.1f}" if r in p["rounds"] else f"{'-':>8}"
                        for r in rounds)
        print(f"{p['position']:>3}  {p['name'][:28]:<28} {p['country'][:8]:<8}{cells}"
              f"{p['total']:>+9.1f}")
    for round_no, tables in summary["missing"].items():
        print(f"round {round_no}: no signed result from {', '.join(tables)}")
    for u in summary["unseated"]:
        print(f"round {u['round']}: a result from table {u['table']}, not in that round's "
              "seating")
