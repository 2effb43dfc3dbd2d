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
_RED = {"5m": "0m", "5p": "0p", "5s": "0s"}
_REDS = frozenset(_RED.values())


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


def too_many(seen: Counter, tiles, red_fives: bool) -> list[tuple[str, int]]:
    """``(tile, copies)`` for each of ``tiles``'s kinds seen (``seen``: by code, as
    :func:`seen_on_table` counts) more often than a set has it: a kind more than four times (a
    red five counts as a five), or, with red fives, a red five twice."""
    out = []
    for kind in sorted({base(t) for t in tiles}):
        n = seen[kind] + (seen[_RED[kind]] if kind in _RED else 0)
        if n > COPIES:
            out.append((kind, n))
    if red_fives:
        out += [(code, seen[code]) for code in sorted({t for t in tiles if is_red(t)})
                if seen[code] > 1]
    return out


def over_four(seen: Counter, tile: str) -> bool:
    """The quick test before :func:`too_many` for one tile: could it be one too many?"""
    kind = base(tile)
    return seen[kind] + (seen[_RED[kind]] if kind in _RED else 0) > COPIES or \
        (tile in _REDS and seen[tile] > 1)
