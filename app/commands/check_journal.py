"""``riichi-referee check-journal JOURNAL``: is the journal whole? (:mod:`table.journal_check`)

Run it after a power cut, or before a result is signed. It prints one line per problem (the
file itself, an event missing or out of order or out of the format, a ruling a replay does not
give) and exits 1 when there is any, 0 when the journal is whole (saying so in one line). A
file that cannot be opened as a journal (damaged, or no journal) is such a problem too; a path
where there is no file at all is a mistyped argument: one line and exit 2, as every bad input.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from referee.errors import RefereeError
from referee.rulesets import RULESETS
from table.config import load_config
from table.journal import JournalError
from table.journal_check import check_journal


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("journal", metavar="JOURNAL", help="the journal file (journal.sqlite)")
    parser.add_argument("--config", metavar="TOML",
                        help="the table's config: judge with its [service] ruleset and "
                             "confidence_threshold (default: what the service noted in the "
                             "journal, else each game's own ruleset)")
    parser.add_argument("--ruleset", metavar="NAME",
                        help=f"judge with this ruleset ({', '.join(RULESETS)})")


def run(args: argparse.Namespace) -> int:
    ruleset = threshold = None
    if args.config:
        config = load_config(args.config)
        ruleset, threshold = config.ruleset, config.confidence_threshold
    if args.ruleset:
        ruleset = args.ruleset
    if not Path(args.journal).is_file():
        raise RefereeError(f"journal {args.journal}: no such file")
    try:
        problems = check_journal(args.journal, ruleset, threshold)
    except JournalError as exc:
        problems = [str(exc)]
    for line in problems:
        print(f"{args.journal}: {line}")
    if problems:
        return 1
    print(f"{args.journal}: whole: every event in order, none missing, every ruling as a "
          "replay gives it")
    return 0
