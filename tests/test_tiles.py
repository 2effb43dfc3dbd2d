"""Tiles in mpsz notation with red fives, the 136-tile set, clear errors for bad codes."""
import pytest

from referee.errors import RefereeError, TileError
from referee import tiles as T


def test_every_code_and_only_those():
    assert len(T.TILE_CODES) == 37
    for code in ("1m", "9p", "7z", "0s"):
        assert T.check_tile(code) == code
    for bad in ("8z", "0z", "10m", "5", "m5", "", None, 5):
        with pytest.raises(TileError, match="unknown tile code"):
            T.check_tile(bad)
    assert issubclass(TileError, RefereeError)


def test_red_fives_are_fives():
    assert T.base("0m") == "5m" and T.kind("0p") == T.kind("5p") == 13
    assert T.is_red("0s") and not T.is_red("5s") and T.number("0m") == 5
    assert T.same_kind("0m", "5m") and not T.same_kind("5m", "5p")


def test_the_136_set():
    full = T.full_set()
    assert sum(full.values()) == 136 and full["0m"] == 1 and full["5m"] == 3
    assert sum(T.full_set(red_fives=False).values()) == 136
    assert [T.from_136(i) for i in (16, 17, 52, 135)] == ["0m", "5m", "0p", "7z"]
    assert T.to_136("0p") == 52 and T.from_136(T.to_136("5p")) == "5p"
    with pytest.raises(TileError):
        T.from_136(136)


def test_hands_and_dora():
    assert T.parse_hand("123m055p7z") == ["1m", "2m", "3m", "0p", "5p", "5p", "7z"]
    assert T.hand_str(["5p", "1m", "0p"]) == "1m05p"
    with pytest.raises(TileError):
        T.parse_hand("12x")
    assert [T.dora_from_indicator(i) for i in ("9m", "0p", "4z", "7z", "1z")] == \
        ["1m", "6p", "1z", "5z", "2z"]
