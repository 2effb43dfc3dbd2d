"""Violations: what a player did wrong, the penalty per ruleset, the rule, one plain sentence.

The rules core decides *that* something is wrong; this module says what it costs and how to
say it, and holds the small tile check behind the false-group decision (is a meld a set). The
kuikae check lives in :mod:`referee.kuikae`.
"""
from __future__ import annotations

from .tiles import base, is_honor, number, suit


def violation(ruleset, kind: str, seat: int | None, text: str, **extra) -> dict:
    """A ``violation`` ruling (without ``t``/``ruling_id``, which the core adds)."""
    penalty = ruleset.penalty(kind)
    out = {"type": "violation", "seat": seat, "kind": kind, "penalty": penalty,
           "rule": ruleset.rule(kind), "text": text}
    points = deduction(ruleset, penalty, kind)
    if points:
        out["points"] = points
    out.update(extra)
    return out


def deduction(ruleset, penalty: str, kind: str) -> int:
    """The points a ``penalty`` for ``kind`` takes from the offender under ``ruleset`` as a
    fixed deduction (the penalty ledger, :mod:`referee.ledger`): a ``points`` penalty's, or a
    chombo's where the ruleset's chombo is a fixed deduction; 0 for anything else (a chombo
    paid to the other players is a payment, not a deduction)."""
    if penalty == "points":
        return int(ruleset.penalty_points.get(kind, 0))
    if penalty == "chombo" and ruleset.chombo_style == "fixed":
        return int(ruleset.chombo_amount)
    return 0


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

