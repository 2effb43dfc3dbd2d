"""Kuikae (swap-calling): after a chii or pon, the caller may not discard, in the same turn,
the kind it just called, nor (for a chii called at one end) the tile beyond the other end.

Two pure functions: :func:`kuikae_kinds` says which kinds a call forbids, and
:func:`kuikae_discard` says whether a discard breaks that. The rules core
(:mod:`referee.turns`) calls the second at every discard; whether kuikae is forbidden at all,
and what it costs, is the ruleset's (``kuikae_forbidden``, ``penalties["kuikae"]``).
"""
from __future__ import annotations

from .tiles import base, number, suit


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


def kuikae_discard(seat_no: int, tile: str, forbidden: tuple,
                   pending_claim: dict | None) -> str | None:
    """The sentence for a discard that breaks kuikae, or None when it is allowed.

    ``forbidden``: the kinds the seat's exposed chii/pon forbids this turn (see
    :func:`kuikae_kinds`; empty when none). ``pending_claim``: a chii/pon awarded to the seat
    whose meld the camera has not seen yet: discarding the called kind before showing the meld
    is kuikae too (the far side of a chii is unknown until the meld is seen).
    """
    if forbidden:
        if base(tile) in forbidden:
            return (f"Seat {seat_no} discarded {tile} right after calling {forbidden[0]}: "
                    "swap-calling is not allowed.")
        return None
    pc = pending_claim
    if pc is not None and pc["seat"] == seat_no and not pc["meld_seen"] \
            and pc["call"] in ("chii", "pon") and base(tile) == base(pc["tile"]):
        return (f"Seat {seat_no} discarded {tile} right after calling it: swap-calling is not "
                "allowed.")
    return None
