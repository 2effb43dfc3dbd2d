"""``riichi-referee check-tenhou PATH...``: replay real Tenhou games and compare with their logs.

Each log (a file, or every ``*.mjlog``/``*.xml``/``*.json``/``*.gz`` under a folder) is
imported (:mod:`referee.tenhou`) and its events fed to ``Referee("tenhou")``. The rulings are
compared with what the log records:

* every recorded win: a ``win`` ruling for the same seat with the same ``from``, ``han``,
  ``fu`` (not for yakuman, whose fu Tenhou reports its own way), ``points`` and ``payments``;
* every hand's ``hand_end``: the same result (and the reason of an abortive draw) and the same
  closing ``scores``;
* ``game_end`` (when the log has the final standings): the same scores and match points;
* violations: a Tenhou game has none, so every violation is a false flag, except where the
  log itself shows one (a hand-made log recording a "win" that is no winning hand).

It prints, per file and in total: hands, wins matched, hand-end scores matched, violations,
and exits with status 1 when anything does not match. ``--verbose`` prints each mismatch.
The comparison itself is :mod:`referee.tenhou.check`; this command finds the logs and adds up.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Iterable

from referee.errors import RefereeError
from referee.tenhou import import_log
from referee.tenhou.check import GameCheck, check_game, tenhou_referee

LOG_SUFFIXES = (".mjlog", ".xml", ".json", ".gz")


def find_logs(paths: Iterable[str]) -> list[Path]:
    """The log files named, and those under the folders named (sorted)."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*")
                                if p.is_file() and p.name.lower().endswith(LOG_SUFFIXES)))
        elif path.exists():
            found.append(path)
        else:
            raise RefereeError(f"{path}: no such file or folder")
    return found


def _line(name: str, c: GameCheck) -> str:
    if c.error:
        return f"{name}: ERROR {c.error}"
    text = (f"{name}: hands {c.hands}, wins {c.wins_matched}/{c.wins} matched, hand-end scores "
            f"{c.hand_ends_matched}/{c.hand_ends} matched, violations {c.violations}")
    extras = []
    if c.expected_violations:
        extras.append(f"{c.expected_violations} violation(s) the log itself shows")
    if c.unverifiable:
        extras.append(f"{c.unverifiable} hand(s) not comparable")
    if c.game_end is not None:
        extras.append("game end " + ("matched" if c.game_end else "MISMATCH"))
    if extras:
        text += " (" + "; ".join(extras) + ")"
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", metavar="PATH", nargs="+",
                        help="Tenhou logs (mjlog XML, plain or gzip, or tenhou.net/6 JSON) or "
                             "folders of them")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print each mismatch under its file")


def run(args: argparse.Namespace) -> int:
    logs = find_logs(args.paths)
    if not logs:
        raise RefereeError(f"no Tenhou logs in {' '.join(args.paths)}")
    tenhou_referee()  # fail early, in one line, when the core is missing
    total = GameCheck(source="total")
    all_ok = True
    for path in logs:
        try:
            check = check_game(import_log(path), tenhou_referee())
        except RefereeError as exc:
            check = GameCheck(source=str(path), error=str(exc))
        print(_line(str(path), check))
        if args.verbose:
            for m in check.mismatches:
                print(f"    {m}")
        for name in ("hands", "wins", "wins_matched", "hand_ends", "hand_ends_matched",
                     "violations", "expected_violations", "unverifiable"):
            setattr(total, name, getattr(total, name) + getattr(check, name))
        all_ok = all_ok and check.ok
    print(_line(f"total ({len(logs)} files)", total))
    return 0 if all_ok else 1
