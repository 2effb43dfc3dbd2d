"""Tiles in mpsz notation: ``1m``..``9m``, ``1p``..``9p``, ``1s``..``9s``, ``1z``..``7z``, and
``0m``/``0p``/``0s`` for the red fives.

A tile is kept as its code string everywhere (events, state, rulings) because that is what the
spec and the dashboard use; the helpers here turn codes into the 34-kind index and the 136-tile
numbering that the ``mahjong`` library and Tenhou logs use.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

from .errors import TileError

SUITS = "mpsz"

#: Every valid code: 34 kinds plus the three red fives.
TILE_CODES: tuple[str, ...] = tuple(
    [f"{n}{s}" for s in "mps" for n in range(1, 10)]
    + [f"{n}z" for n in range(1, 8)]
    + ["0m", "0p", "0s"]
)
_VALID = frozenset(TILE_CODES)

#: The 34 kinds in index order (0 = 1m ... 33 = 7z), red fives folded into their five.
KINDS: tuple[str, ...] = TILE_CODES[:34]
_KIND = {code: i for i, code in enumerate(KINDS)}
_KIND.update({"0m": 4, "0p": 13, "0s": 22})

#: Tenhou's 136 numbering: copy 0 of each five is the red one.
RED_136 = {"0m": 16, "0p": 52, "0s": 88}


def check_tile(code: object) -> str:
    """Return ``code`` if it is a valid tile code, else raise :class:`TileError` naming it."""
    if isinstance(code, str) and code in _VALID:
        return code
    raise TileError(f"unknown tile code {code!r} (expected mpsz like 5m, 0p, 7z)")


def kind(code: str) -> int:
    """34-kind index of a tile (0..33); a red five has its five's index."""
    return _KIND[code]


def base(code: str) -> str:
    """The plain tile of a code: ``0m`` -> ``5m``; every other code is returned as it is."""
    return KINDS[_KIND[code]]


def is_red(code: str) -> bool:
    return code[0] == "0"


def suit(code: str) -> str:
    return code[1]


def number(code: str) -> int:
    """1..9 for suited tiles (red fives are 5), 1..7 for honours."""
    n = int(code[0])
    return 5 if n == 0 else n


def is_honor(code: str) -> bool:
    return code[1] == "z"


def is_terminal_or_honor(code: str) -> bool:
    return code[1] == "z" or code[0] in "19"



def same_kind(a: str, b: str) -> bool:
    return _KIND[a] == _KIND[b]


def to_136(code: str, copy: int = 0) -> int:
    """Tenhou 136 index of a tile. Red fives are copy 0; plain fives start at copy 1."""
    if code in RED_136:
        return RED_136[code]
    k = _KIND[code]
    if k in (4, 13, 22) and copy == 0:
        copy = 1
    return k * 4 + copy


def from_136(index: int, red_fives: bool = True) -> str:
    """Tile code of a Tenhou 136 index; copy 0 of a five is red when ``red_fives``."""
    if not 0 <= index < 136:
        raise TileError(f"136-tile index {index} is outside 0..135")
    k = index // 4
    if red_fives and index in (16, 52, 88):
        return "0" + KINDS[k][1]
    return KINDS[k]


def parse_hand(text: str) -> list[str]:
    """``"123m055p7z"`` -> ``['1m','2m','3m','0p','5p','5p','7z']`` (test and CLI helper)."""
    text = text.replace(" ", "")
    if not re.fullmatch(r"(?:[0-9]+[mpsz])*", text):
        raise TileError(f"cannot read hand {text!r} as mpsz")
    tiles: list[str] = []
    for digits, s in re.findall(r"([0-9]+)([mpsz])", text):
        tiles.extend(check_tile(d + s) for d in digits)
    return tiles


def sorted_tiles(tiles: Iterable[str]) -> list[str]:
    """Tiles in kind order (1m..7z), a red five before its plain fives."""
    return sorted(tiles, key=lambda c: (_KIND[c], not is_red(c)))


def hand_str(tiles: Iterable[str]) -> str:
    """Compact mpsz text of tiles, sorted by kind: ``['5p','1m','0p']`` -> ``"1m05p"``."""
    out = []
    by_suit: dict[str, list[str]] = {s: [] for s in SUITS}
    for t in sorted_tiles(tiles):
        by_suit[t[1]].append(t[0])
    for s in SUITS:
        if by_suit[s]:
            out.append("".join(by_suit[s]) + s)
    return "".join(out)


def full_set(red_fives: bool = True) -> Counter:
    """The 136 tiles of a set as a Counter of codes (one red five per suit when ``red_fives``)."""
    counts = Counter({k: 4 for k in KINDS})
    if red_fives:
        for red in ("0m", "0p", "0s"):
            counts[red] = 1
            counts[base(red)] = 3
    return counts


def dora_from_indicator(indicator: str) -> str:
    """The dora a flipped indicator names: the next tile in its suit, winds and dragons cycling."""
    k = _KIND[indicator]
    if k < 27:
        return KINDS[(k // 9) * 9 + (k % 9 + 1) % 9]
    if k < 31:
        return KINDS[27 + (k - 27 + 1) % 4]
    return KINDS[31 + (k - 31 + 1) % 3]
