"""``riichi-referee replay EVENTS.jsonl [--ruleset NAME]``: print the rulings of a table-event log.

Events are fed in order; each ruling is printed as one JSON line and flushed at once, so the
rulings printed before a malformed line stand. A malformed line stops the replay with
``riichi-referee replay: FILE: line N: reason`` on standard error and exit status 2.
"""
from __future__ import annotations

import argparse
import sys

from .errors import MalformedEvent, RefereeError
from .events import EventReader, dumps
from .rulesets import RULESETS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("events", metavar="EVENTS.jsonl",
                        help="table-event log, one JSON event per line ('-' for stdin)")
    parser.add_argument("--ruleset", metavar="NAME",
                        help=f"override the game's ruleset ({', '.join(RULESETS)})")


def _fail(path: str, message: str) -> int:
    print(f"riichi-referee replay: {path}: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from .core import Referee  # after argument parsing, so --help stays quick

    path = args.events
    try:
        referee = Referee(args.ruleset)
    except RefereeError as exc:
        return _fail(path, f"--ruleset: {exc}")
    try:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as exc:
        return _fail(path, f"cannot read it ({exc.strerror or exc})")
    out = sys.stdout
    line_no = 0
    try:
        with stream:
            try:
                for line_no, event in EventReader(stream):
                    try:
                        rulings = referee.feed(event)
                    except MalformedEvent as exc:
                        return _fail(path, str(exc) if exc.line else f"line {line_no}: {exc}")
                    except RefereeError as exc:
                        return _fail(path, f"line {line_no}: {exc}")
                    for ruling in rulings:
                        out.write(dumps(ruling) + "\n")
                    if rulings:
                        out.flush()
            except MalformedEvent as exc:
                return _fail(path, str(exc))
            except UnicodeDecodeError as exc:
                return _fail(path, f"after line {line_no}: not UTF-8 text ({exc.reason})")
        for ruling in referee.finish():
            out.write(dumps(ruling) + "\n")
        out.flush()
    except BrokenPipeError:
        return 0
    return 0
