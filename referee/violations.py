"""Violations: what a player did wrong, the penalty per ruleset, the rule, one plain sentence.

The rules core decides *that* something is wrong; this module says what it costs and how to
say it, and holds the small tile checks behind those decisions (is a meld a set, which tiles
kuikae forbids).
"""
from __future__ import annotations

from .tiles import base, is_honor, number, suit

def violation(ruleset, kind: str, seat: int | None, text: str, **extra) -> dict:
    """A ``violation`` ruling (without ``t``/``ruling_id``, which the core adds)."""
    out = {"type": "violation", "seat": seat, "kind": kind, "penalty": ruleset.penalty(kind),
           "rule": ruleset.rule(kind), "text": text}
    out.update(extra)
    return out


def meld_problem(kind: str, tiles: list[str]) -> str | None:
    """Why ``tiles`` are not a ``kind`` meld, or None when they are.

    chii: three suited tiles of one suit in sequence; pon: three of one kind; any kan: four of
    one kind. Red fives count as fives.
    """
    n = len(tiles)
    kinds = [base(t) for t in tiles]
    if kind == "chii":
        if n != 3:
            return f"a chii is three tiles, not {n}"
        if any(is_honor(t) for t in tiles) or len({suit(t) for t in tiles}) != 1:
            return "a chii is three tiles of one suit in sequence"
        nums = sorted(number(t) for t in tiles)
        if nums[1] != nums[0] + 1 or nums[2] != nums[1] + 1:
            return "a chii is three tiles of one suit in sequence"
        return None
    want = 3 if kind == "pon" else 4
    if n != want:
        return f"a {kind} is {want} tiles, not {n}"
    if len(set(kinds)) != 1:
        return f"a {kind} is {want} tiles of one kind"
    return None


def kuikae_kinds(kind: str, tiles: list[str], called: str) -> tuple:
    """Kinds the caller may not discard right after a chii or pon when kuikae is forbidden.

    The called kind always (red and plain five alike); for a chii called at one end, also the
    tile beyond the other end (calling 4 with 56 forbids 4 and 7; calling 7 with 56 forbids 7
    and 4). A middle-tile chii (5 with 46) forbids only the called kind.
    """
    forbidden = [base(called)]
    if kind == "chii" and len(tiles) == 3:
        nums = sorted(number(t) for t in tiles)
        c = number(called)
        s = suit(called)
        far = None
        if c == nums[0]:
            far = c + 3
        elif c == nums[2]:
            far = c - 3
        if far is not None and 1 <= far <= 9:
            forbidden.append(f"{far}{s}")
    return tuple(forbidden)
