"""Table events and rulings as JSON Lines, per ``../shared/spec/table-events.md`` (format v1).

An event is a plain dict exactly as in the spec. :func:`parse_event` checks one against the
format and returns it unchanged (extra keys are kept and ignored); :class:`EventReader` does
the same for a stream of lines and also checks that ``t`` never goes backwards. A malformed
line raises :class:`~referee.errors.MalformedEvent` naming the line; what players do wrong
at the table is not malformed, it is for the rules core to judge.
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Iterator, TextIO

from .errors import MalformedEvent, TileError
from .tiles import check_tile

CALLS = ("chii", "pon", "kan", "ron")
MELD_KINDS = ("chii", "pon", "daiminkan", "shouminkan", "ankan")
WINDS = ("E", "S", "W", "N")
REFEREE_ACTIONS = ("override", "penalty", "undo", "note", "end_game", "cancel_penalty")
#: ``points``: a fixed deduction (the violation's ``points`` key), for rulesets with cards or
#: fixed deductions; it stands on the game's penalty ledger (``game_end``'s ``penalties``)
PENALTIES = ("none", "warning", "dead_hand", "chombo", "points")
CLOCK_ACTIONS = ("start", "extend", "stop")
CLOCK_SOURCES = ("hall", "referee")
VIOLATION_KINDS = ("kuikae", "false_group", "late_call", "wrong_seat_call", "last_discard_call",
                   "illegal_kan", "fifth_kan", "furiten_ron", "no_yaku", "false_win",
                   "riichi_open_hand", "procedure")

# Required keys after `type` and `t`, with a checker for each; optional keys likewise.
_REQUIRED: dict[str, dict[str, str]] = {
    "game_start": {"ruleset": "str", "scores": "scores"},
    "hand_start": {"round_wind": "wind", "dealer": "seat", "honba": "count",
                   "riichi_sticks": "count", "dora_indicators": "tiles"},
    "discard": {"seat": "seat", "tile": "tile"},
    "call": {"seat": "seat", "call": "call"},
    "meld": {"seat": "seat", "kind": "meld_kind", "tiles": "tiles"},
    "dora": {"indicator": "tile"},
    "reveal": {"seat": "seat", "tiles": "tiles", "win_tile": "tile"},
    "tenpai": {"seats": "seats"},
    "referee": {"action": "action", "text": "str"},
    "clock": {"action": "clock_action"},
    "sign": {},
}
_OPTIONAL: dict[str, dict[str, str]] = {
    "game_start": {"names": "names"},
    "discard": {"riichi": "bool"},
    "meld": {"called": "tile", "from": "seat"},
    "reveal": {"ura_indicators": "tiles"},
    "referee": {"ruling_id": "ruling_id"},
    "clock": {"source": "clock_source"},
}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: Bounds of the whole numbers an event carries: beyond them a number is a damaged line, not
#: a game (and arithmetic on it would overflow a float in the final match points).
MAX_COUNT = 10_000             #: honba, riichi sticks
MAX_SCORE = 1_000_000_000      #: a seat's points, either sign
MAX_ROUND_SECONDS = 7 * 24 * 3600   #: a round's length or an extension: a week is damage


def _show(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters: an error names the value in one short line."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int too long to print, a structure too deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


#: Keys whose value is one of a few names: the names, and what a wrong one is called.
NAMED = {"meld_kind": (MELD_KINDS, "meld kind"),
         "action": (REFEREE_ACTIONS, "referee action"),
         "clock_action": (CLOCK_ACTIONS, "clock action"),
         "clock_source": (CLOCK_SOURCES, "clock source")}


def _check(kind: str, key: str, value: Any) -> None:
    """Raise ValueError/TileError with a short reason when ``value`` is not of ``kind``."""
    if kind == "seat":
        if not _is_int(value) or not 0 <= value <= 3:
            raise ValueError(f"seat {_show(value)} in {key!r} is outside 0-3")
    elif kind == "tile":
        if not isinstance(value, str):
            raise ValueError(f"{key!r} must be a tile code like 5m, not {_show(value)}")
        check_tile(value)
    elif kind == "tiles":
        if not isinstance(value, list):
            raise ValueError(f"{key!r} must be a list of tiles")
        for tile in value:
            _check("tile", key, tile)
    elif kind == "seats":
        if not isinstance(value, list):
            raise ValueError(f"{key!r} must be a list of seats")
        for seat in value:
            _check("seat", key, seat)
    elif kind == "scores":
        if not isinstance(value, list) or len(value) != 4 \
                or not all(_is_int(v) and abs(v) <= MAX_SCORE for v in value):
            raise ValueError(f"{key!r} must be a list of 4 integers (points, at most "
                             f"{MAX_SCORE:,} either way)")
    elif kind == "count":
        if not _is_int(value) or not 0 <= value <= MAX_COUNT:
            raise ValueError(f"{key!r} must be a whole number from 0 to {MAX_COUNT:,}, not "
                             f"{_show(value)}")
    elif kind == "str":
        if not isinstance(value, str):
            raise ValueError(f"{key!r} must be a string")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{key!r} must be true or false")
    elif kind == "wind":
        if not isinstance(value, str) or value not in WINDS:
            raise ValueError(f"{key!r} must be one of E, S, W, N, not {_show(value)}")
    elif kind == "call":
        if not isinstance(value, str) or value not in CALLS:
            raise ValueError(f"unknown call {_show(value)} (expected chii, pon, kan or ron)")
    elif kind in NAMED:
        names, what = NAMED[kind]
        if not isinstance(value, str) or value not in names:
            raise ValueError(f"unknown {what} {_show(value)} (expected {', '.join(names)})")
    elif kind == "round_seconds":
        if not _seconds(value) or not 0 <= value <= MAX_ROUND_SECONDS:
            raise ValueError(f"{key!r} must be a number of seconds from 0 to "
                             f"{MAX_ROUND_SECONDS:,}, not {_show(value)}")
    elif kind == "names":
        if not isinstance(value, list) or len(value) != 4:
            raise ValueError(f"{key!r} must be a list of 4 names")
    elif kind == "ruling_id":
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise ValueError(f"{key!r} must be a ruling id")
    else:  # pragma: no cover - a typo in the tables above
        raise AssertionError(kind)


def parse_event(obj: Any, line: int | None = None) -> dict:
    """Check one decoded event against the format and return it.

    Raises :class:`MalformedEvent` (naming ``line`` when given) for anything the spec calls
    malformed: not an object, unknown type, missing key, bad tile code, seat outside 0-3,
    a ``t`` that is not a finite number.
    """
    if not isinstance(obj, dict):
        raise MalformedEvent("an event must be a JSON object", line)
    etype = obj.get("type")
    if not isinstance(etype, str) or etype not in _REQUIRED:
        if "type" not in obj:
            raise MalformedEvent("missing key 'type'", line)
        raise MalformedEvent(f"unknown event type {_show(etype)}", line)
    t = obj.get("t")
    if "t" not in obj:
        raise MalformedEvent(f"{etype}: missing key 't'", line)
    if not _seconds(t):
        raise MalformedEvent(f"{etype}: 't' must be a number of seconds, not {_show(t)}", line)
    try:
        for key, kind in _REQUIRED[etype].items():
            if key not in obj:
                raise ValueError(f"missing key {key!r}")
            _check(kind, key, obj[key])
        for key, kind in _OPTIONAL.get(etype, {}).items():
            if key in obj and obj[key] is not None:
                _check(kind, key, obj[key])
        if etype == "clock":
            _check_clock(obj)
        elif etype == "sign":
            _check_sign(obj)
        elif etype == "referee" and obj["action"] == "cancel_penalty" \
                and obj.get("ruling_id") is None:
            raise ValueError("missing key 'ruling_id' (the penalty to cancel)")
    except (ValueError, TileError) as exc:
        raise MalformedEvent(f"{etype}: {exc}", line) from None
    return obj


def _check_clock(obj: dict) -> None:
    """``seconds`` is the round's length for ``start`` and the time added for ``extend``; a
    ``stop`` needs none (the spec gives it no meaning there), and one it carries is ignored."""
    if obj["action"] == "stop":
        return
    if "seconds" not in obj:
        what = "the round's length" if obj["action"] == "start" else "the time added"
        raise ValueError(f"missing key 'seconds' ({what})")
    _check("round_seconds", "seconds", obj["seconds"])


def _check_sign(obj: dict) -> None:
    """Who signed: ``seat`` (0-3), or ``referee: true`` instead of a seat -- exactly one."""
    by_referee = obj.get("referee")
    if by_referee is not None and not isinstance(by_referee, bool):
        raise ValueError("'referee' must be true or false")
    has_seat = obj.get("seat") is not None
    if has_seat and by_referee:
        raise ValueError("give 'seat' or 'referee': true, not both")
    if has_seat:
        _check("seat", "seat", obj["seat"])
    elif not by_referee:
        raise ValueError("missing key 'seat' (or 'referee': true for the referee)")


def _seconds(t: Any) -> bool:
    """Whether ``t`` is a finite number of seconds (not a bool, not too large for a float)."""
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        return False
    try:
        return math.isfinite(t)
    except OverflowError:  # an integer beyond any float
        return False


def parse_line(text: str | bytes, line: int | None = None) -> dict:
    """Decode and check one JSON line (``bytes`` must be UTF-8)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedEvent(f"not UTF-8 text ({exc.reason} at byte {exc.start + 1})",
                                 line) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedEvent(f"not valid JSON ({exc.msg} at column {exc.colno})", line) from None
    except ValueError as exc:  # a number too long to read (Python's int digit limit)
        raise MalformedEvent(f"not valid JSON ({exc})", line) from None
    except RecursionError:
        raise MalformedEvent("not valid JSON (nested too deeply)", line) from None
    return parse_event(obj, line)


class EventReader:
    """Reads table events from lines, checking each and that ``t`` is non-decreasing.

    Lines are ``str``, or ``bytes`` decoded line by line (so bad UTF-8 is named at its own
    line, after every good line before it has been yielded). Blank lines are skipped.
    Iterating yields ``(line_number, event)``; the first malformed line raises
    :class:`MalformedEvent` and everything yielded before it stands.
    """

    def __init__(self, lines: Iterable[str] | Iterable[bytes]):
        self._lines = lines
        self.last_t: float | None = None

    def __iter__(self) -> Iterator[tuple[int, dict]]:
        for number, text in enumerate(self._lines, start=1):
            if not text.strip():
                continue
            event = parse_line(text, number)
            t = float(event["t"])
            if self.last_t is not None and t < self.last_t:
                raise MalformedEvent(
                    f"{event['type']}: t={_show(event['t'])} goes back in time (previous "
                    f"t={self.last_t})", number)
            self.last_t = t
            yield number, event


def read_events(stream: TextIO | Iterable[str]) -> Iterator[dict]:
    """The checked events of a JSON Lines stream, without line numbers."""
    for _, event in EventReader(stream):
        yield event


def dumps(record: dict) -> str:
    """One JSON line for an event or ruling: compact, keys in the order given, no NaN."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
