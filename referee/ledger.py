"""The penalty ledger: the fixed deductions a game's players were given, and the match points
they leave.

A deduction is not a payment between players: it takes points from one seat and gives them
to nobody (WRC 2015 7.1: point penalties "are not added to the opponents' scores. It doesn't
change the table's score"). So it never touches the table's scores; it stands on the ledger
until the game's end, where ``game_end`` lists it under ``penalties`` and applies it to
``final``. An entry is a dict, as ``game_end`` gives it::

    {"seat": 1, "points": 20000, "kind": "false_win", "reason": "...", "ruling_id": "r12",
     "applies": "after_uma"}

``points`` is the deduction in table points (a positive number: 20,000 is 20 match points);
``applies`` says where it comes off (:data:`referee.rulesets.PENALTY_APPLIES`): from the table
score before uma and oka (it can change the ranking), or from the match points after them.
A penalty cancelled (``cancel_penalty``) leaves the ledger.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from .hand_end import final_points
from .rulesets import PENALTY_APPLIES


def entry(seat: int, points: int, kind: str, reason: str, ruling_id: str,
          applies: str) -> dict:
    """One deduction on the ledger: ``points`` off ``seat`` for the violation ``kind``, given
    by the ruling ``ruling_id`` whose ``reason`` (its text) the score sheet shows."""
    if applies not in PENALTY_APPLIES:
        raise ValueError(f"applies must be one of {', '.join(PENALTY_APPLIES)}, not "
                         f"{applies!r}")
    return {"seat": seat, "points": int(points), "kind": kind, "reason": reason,
            "ruling_id": ruling_id, "applies": applies}


def deductions(penalties: Iterable[dict], applies: str) -> list[int]:
    """Points each seat loses to the penalties that come off at ``applies``."""
    out = [0, 0, 0, 0]
    for p in penalties:
        if p["applies"] == applies:
            out[p["seat"]] += p["points"]
    return out


def final_with_penalties(scores: Sequence[int], penalties: Iterable[dict], ruleset,
                         first_dealer: int = 0) -> list[float]:
    """Match points of a game that ended with ``scores`` and the standing ``penalties``.

    Deductions ``before_uma`` come off the table scores, which then rank the seats for uma
    and oka (:func:`referee.hand_end.final_points`); those ``after_uma`` come off the match
    points, 1,000 table points to a match point, leaving the ranking as the table played it.
    """
    penalties = list(penalties)
    before = deductions(penalties, "before_uma")
    after = deductions(penalties, "after_uma")
    ranked = [s - d for s, d in zip(scores, before)]
    final = final_points(ranked, ruleset, first_dealer)
    return [round(f - d / 1000, 1) + 0.0 for f, d in zip(final, after)]
