"""A fifth copy: more of a tile on the table than a set holds.

A set has four of each tile; where it has red fives, one of the four fives of each suit is red.
Whatever the camera and the players show at once (ponds, melds, dora and ura indicators,
revealed hands) can never hold more: a fifth copy is a misread, a tile from another set, or a
tile where it should not be. The referee checks the tiles; the core flags it once a hand.

A tile is counted where it lies now: a called discard has left the pond for its meld, an added
kan holds the pon's tiles, and a ron tile shown in the winner's hand lies in the discarder's
pond (or the robbed kan), so it is not counted twice.
"""
from __future__ import annotations

from collections import Counter

from .tiles import base, is_red

COPIES = 4


def seen_on_table(hand) -> Counter:
    """Every tile visible now, by code (red fives under their own code)."""
    seen: Counter = Counter()
    for seat in hand.seats:
        seen.update(e["tile"] for e in seat.pond.entries if not e["called"])
        for meld in seat.melds:
            seen.update(meld["tiles"])
    seen.update(hand.dora_indicators)
    seen.update(hand.ura_seen)
    for tiles in hand.revealed.values():
        seen.update(tiles)
    return seen


def too_many(seen: Counter, red_fives: bool) -> list[tuple[str, int]]:
    """``(tile, copies)`` for each tile seen more often than a set has it: a kind more than
    four times (a red five counts as a five), or, with red fives, a red five twice."""
    kinds: Counter = Counter()
    for code, n in seen.items():
        kinds[base(code)] += n
    out = [(kind, n) for kind, n in sorted(kinds.items()) if n > COPIES]
    if red_fives:
        out += [(code, n) for code, n in sorted(seen.items()) if is_red(code) and n > 1]
    return out
