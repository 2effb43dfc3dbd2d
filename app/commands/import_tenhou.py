"""``riichi-referee import-tenhou LOG [-o EVENTS.jsonl]``: a Tenhou log as table events.

Reads a Tenhou mjlog (XML, plain or gzip) or a tenhou.net/6 JSON log and writes table events
(format v1, one per line): see :mod:`referee.tenhou`. One line says what was written (events,
hands): on standard output with ``-o``, else on standard error, so the events piped on stay
events alone."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.errors import RefereeError
from referee.events import dumps
from referee.tenhou import import_log


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG",
                        help="a Tenhou mjlog (XML, plain or gzip) or tenhou.net/6 JSON file")
    parser.add_argument("-o", "--output", metavar="EVENTS.jsonl",
                        help="write the events here instead of standard output")


def run(args: argparse.Namespace) -> int:
    game = import_log(args.log)
    lines = "".join(dumps(e) + "\n" for e in game.events)
    hands = sum(1 for e in game.events if e["type"] == "hand_start")
    said = (f"{len(game.events)} events, {hands} hand{'s' if hands != 1 else ''}, "
            f"from {args.log}")
    if args.output:
        try:
            Path(args.output).write_text(lines, encoding="utf-8")
        except OSError as exc:
            raise RefereeError(f"{args.output}: cannot write it ({exc.strerror})") from None
        print(f"wrote {args.output}: {said}")
    else:
        sys.stdout.write(lines)
        sys.stdout.flush()
        print(f"riichi-referee import-tenhou: wrote {said}", file=sys.stderr)
    return 0
