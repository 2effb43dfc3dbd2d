"""``riichi-referee import-tenhou LOG [-o EVENTS.jsonl]``: a Tenhou log as table events.

Reads a Tenhou mjlog (XML, plain or gzip) or a tenhou.net/6 JSON log and writes table events
(format v1, one per line): see :mod:`referee.tenhou`."""
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
    if args.output:
        try:
            Path(args.output).write_text(lines, encoding="utf-8")
        except OSError as exc:
            raise RefereeError(f"{args.output}: cannot write it ({exc.strerror})") from None
    else:
        sys.stdout.write(lines)
    return 0
