"""``riichi-referee replay EVENTS.jsonl [--ruleset NAME]``: print the rulings of a table-event log.

Events are fed in order; each ruling is printed as one JSON line and flushed at once. A
malformed line stops the replay: first the rulings the good lines before it decide are
printed as at the end of the file (every open window closes, so a claim due when it closes is
not lost), then ``riichi-referee replay: FILE: line N: reason`` on standard error, and the
exit status is 2. The replay itself is :func:`referee.replay.replay`."""
from __future__ import annotations

import argparse
import sys

from referee.errors import RefereeError, unreadable
from referee.replay import replay
from referee.rulesets import RULESETS, get_ruleset


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("events", metavar="EVENTS.jsonl",
                        help="table-event log, one JSON event per line ('-' for stdin)")
    parser.add_argument("--ruleset", metavar="NAME",
                        help=f"override the game's ruleset ({', '.join(RULESETS)})")


def _fail(path: str, message: str) -> int:
    print(f"riichi-referee replay: {path}: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    path = args.events
    try:
        get_ruleset(args.ruleset)  # a typo is named before anything is read
    except RefereeError as exc:
        return _fail(path, f"--ruleset: {exc}")
    try:
        # bytes, decoded line by line: bad UTF-8 is named at its own line, after the good
        # lines before it have been judged
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        print(f"riichi-referee replay: {unreadable(path, exc, 'event log')}", file=sys.stderr)
        return 2
    try:
        with stream:
            return replay(stream, sys.stdout, sys.stderr, path, args.ruleset)
    except BrokenPipeError:
        return 0
