"""``riichi-referee export --journal PATH [--game N] [-o FILE]``: a journaled game as JSON Lines.

The output is the spec's table-event format, one event per line exactly as it was judged, so
``riichi-referee replay`` on it gives the rulings the table gave. ``--rulings`` writes the
stored rulings instead; ``--list`` shows the journal's games.
"""
from __future__ import annotations

import argparse
import sys
from datetime import datetime

from referee.errors import RefereeError
from referee.events import dumps
from table.journal import Journal, JournalError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--journal", metavar="PATH", required=True,
                        help="the journal file (on a table: /var/lib/riichi-referee/journal.sqlite)")
    parser.add_argument("--game", metavar="N", type=int,
                        help="which game (see --list); default: the newest")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write here instead of standard output")
    parser.add_argument("--rulings", action="store_true",
                        help="write the game's stored rulings instead of its events")
    parser.add_argument("--list", action="store_true", help="list the journal's games")


def run(args: argparse.Namespace) -> int:
    try:
        journal = Journal(args.journal, readonly=True)
    except JournalError as exc:
        # A journal that is not there (or not a journal) is bad input here, exit 2 as in
        # every command; JournalError's 3 is the table service's "the journal is unusable".
        raise RefereeError(str(exc)) from None
    with journal:
        games = journal.games()
        if args.list:
            for g in games:
                when = datetime.fromtimestamp(g["started"]).strftime("%Y-%m-%d %H:%M")
                print(f"game {g['game_id']}: {when}, {g['events']} events, "
                      f"ruleset {g['ruleset'] or '-'}")
            return 0
        if not games:
            raise RefereeError(f"journal {args.journal}: holds no game yet")
        ids = [g["game_id"] for g in games]
        game = ids[-1] if args.game is None else args.game
        if game not in ids:
            raise RefereeError(f"journal {args.journal}: no game {game} "
                               f"(games {ids[0]}-{ids[-1]}; see --list)")
        if args.rulings:
            records = [r for _, r in journal.game_rulings(game)]
        else:
            records = [e for _, e in journal.game_events(game)]
    text = "".join(dumps(r) + "\n" for r in records)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise RefereeError(f"cannot write {args.output} ({exc.strerror})") from None
    else:
        sys.stdout.write(text)
    return 0
