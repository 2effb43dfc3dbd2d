"""Tenhou game logs -> the table events a camera and seat buttons would have produced.

``riichi-referee import-tenhou LOG [-o EVENTS.jsonl]`` reads a Tenhou mjlog (XML, plain or
gzip) or a tenhou.net/6 JSON log and writes table events (format v1, one per line).

:func:`import_log` returns an :class:`ImportedGame`: ``events`` (what a camera and seat buttons
see: discards with riichi turned sideways, call presses inside the claim window, melds with
their called tile and source, dora flips, reveals at wins, tenpai at exhaustive draws; never a
concealed hand or a draw) and, kept apart, ``hands``: what the log says happened in each hand
(wins with han, fu, points, yaku and per-seat payments; the draw type; closing scores), which is
what a replay of the events must reproduce. Seats are Tenhou's player numbers.

The package, in the order a log goes through it:

* :mod:`.mjlog` and :mod:`.tenhou6` read the two formats into one format-neutral
  play-by-play, the :mod:`.records` (``LoggedGame``, ``LoggedHand``...);
* :mod:`.to_events` plays it out into timed table events and the expected results (its
  docstring says when each event happens);
* this module finds the format, and turns any fault in the log into one RefereeError line;
* :mod:`.check` replays an imported game through the rules core and compares with the log.
"""
from __future__ import annotations

import gzip
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from ..errors import RefereeError, unreadable
from .mjlog import parse_mjlog
from .records import ExpectedHand, ExpectedWin, ImportedGame, LogError
from .tenhou6 import parse_tenhou6
from .to_events import game_events

__all__ = ["import_log", "import_text", "ImportedGame", "ExpectedHand", "ExpectedWin"]


def _read(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RefereeError(unreadable(str(path), exc, "log")) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise RefereeError(f"{path}: a damaged gzip file ({exc})") from None
    return data


def import_log(path: str | Path) -> ImportedGame:
    """Read a Tenhou log file (mjlog XML, plain or gzip, or tenhou.net/6 JSON)."""
    path = Path(path)
    data = _read(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RefereeError(f"{path}: not a Tenhou log (not UTF-8 text)") from None
    return import_text(text, str(path))


def import_text(text: str, source: str = "<log>") -> ImportedGame:
    """Import a log already read into a string; ``source`` names it in errors."""
    stripped = text.lstrip()
    try:
        if stripped.startswith("<"):
            try:
                root = ET.fromstring(stripped)
            except ET.ParseError as exc:
                raise RefereeError(f"{source}: not a Tenhou log (broken XML: {exc})") from None
            if root.tag != "mjloggm":
                raise RefereeError(f"{source}: not a Tenhou mjlog (root element "
                                   f"<{root.tag}>, expected <mjloggm>)")
            fmt = "mjlog"
            logged = parse_mjlog(root)
        elif stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise RefereeError(f"{source}: not a Tenhou log (broken JSON: {exc.msg} at "
                                   f"line {exc.lineno})") from None
            if not isinstance(data, dict) or "log" not in data:
                raise RefereeError(f"{source}: not a tenhou.net/6 log (no 'log' key)")
            fmt = "tenhou6"
            logged = parse_tenhou6(data)
        else:
            raise RefereeError(f"{source}: not a Tenhou log (neither mjlog XML nor "
                               "tenhou.net/6 JSON)")
        events, expected = game_events(logged)
    except LogError as exc:
        raise RefereeError(f"{source}: {exc}") from None
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as exc:
        raise RefereeError(f"{source}: not a readable Tenhou log ({type(exc).__name__}: "
                           f"{exc})") from None
    return ImportedGame(source=source, format=fmt, names=logged.names,
                        red_fives=logged.red_fives, open_tanyao=logged.open_tanyao,
                        game_length=logged.game_length, events=events, hands=expected,
                        final_scores=logged.final_scores, final_points=logged.final_points)

