"""A hand the referee lays out, valued with the table's situation (referee/shown_hand.py):
what the table knows (winds, dora, sticks, riichi, the game's red-five rule) is what counts."""
from __future__ import annotations

import pytest

from referee.core import Referee
from referee.errors import RefereeError
from referee.shown_hand import meld_of, value_shown_hand
from table.live import LiveTable

T = 0.0


def table(dealer=0, round_wind="E", dora=("1z",), honba=0, sticks=0, ruleset="wrc2015",
          **game) -> LiveTable:
    t = LiveTable(Referee(), clock=lambda: T)
    t.submit({"type": "game_start", "t": T, "ruleset": ruleset, "scores": [25000] * 4, **game})
    t.submit({"type": "hand_start", "t": T, "round_wind": round_wind, "dealer": dealer,
              "honba": honba, "riichi_sticks": sticks, "dora_indicators": list(dora)})
    return t


def value(t: LiveTable, seat, hand: str, win: str, tsumo=False, melds=(), **kw) -> dict:
    return value_shown_hand(t.snapshot(), t.events(), seat, hand.split(), list(melds), win,
                            tsumo, **kw)


PINFU_TANYAO = "2m 3m 4m 5p 6p 7p 3s 4s 5s 6s 7s 8s 5m 5m"   # ron on 8s: pinfu, tanyao


@pytest.mark.parametrize("dealer,seat,wind,points", [
    (0, 0, "E", 2900),     # the dealer: 2 han 30 fu ron
    (0, 1, "S", 2000),
    (2, 1, "N", 2000),
    (1, 1, "E", 2900),     # the dealer has moved on: seat 1 is East now
])
def test_the_seat_wind_and_the_dealer_come_from_the_table(dealer, seat, wind, points):
    v = value(table(dealer=dealer), seat, PINFU_TANYAO, "8s")
    assert v["table"]["seat_wind"] == wind and (v["han"], v["fu"], v["points"]) == \
        (2, 30, points)


@pytest.mark.parametrize("game,dora,han", [
    ({}, ("1z",), 2),
    ({}, ("4m",), 4),                        # two 5m are dora
    ({}, ("4p",), 3),
])
def test_the_tables_dora_indicators_count(game, dora, han):
    assert value(table(dora=dora, **game), 1, PINFU_TANYAO, "8s")["han"] == han


@pytest.mark.parametrize("ruleset,points", [("wrc2015", 8000), ("ema2012", 7700)])
def test_the_tables_ruleset_scores_it(ruleset, points):
    """4 han 30 fu: WRC 2015 rounds it up to mangan (kiriage), EMA 2012 does not."""
    v = value(table(ruleset=ruleset, dora=("4m",)), 1, PINFU_TANYAO, "8s")
    assert (v["han"], v["fu"], v["points"], v["table"]["ruleset"]) == (4, 30, points, ruleset)


def test_a_red_five_counts_only_where_the_ruleset_and_the_game_play_with_them():
    hand = "2m 3m 4m 0p 6p 7p 3s 4s 5s 6s 7s 8s 5m 5m"
    assert value(table(ruleset="ema2012"), 1, hand, "8s")["han"] == 3
    assert value(table(ruleset="ema2012", red_fives=False), 1, hand, "8s")["han"] == 2
    assert value(table(ruleset="wrc2015"), 1, hand, "8s")["han"] == 2    # WRC has none


def test_riichi_as_the_table_saw_it_unless_the_referee_says_otherwise_and_ura_with_it():
    t = table()
    assert value(t, 1, PINFU_TANYAO, "8s")["table"]["riichi"] is False
    v = value(t, 1, PINFU_TANYAO, "8s", riichi=True, ura=["4m"])
    assert v["han"] == 2 + 1 + 2 and v["table"]["riichi"] is True
    # without riichi, ura dora are not turned over: they count nothing
    assert value(t, 1, PINFU_TANYAO, "8s", riichi=False, ura=["4m"])["han"] == 2


def test_honba_and_sticks_go_to_the_winner():
    v = value(table(honba=2, sticks=1), 1, PINFU_TANYAO, "8s")
    assert v["points"] == 2000 and v["total"] == 2000 + 600 + 1000


@pytest.mark.parametrize("tiles,closed,kind", [
    ("1s 2s 3s", False, "chii"),
    ("3s 1s 2s", False, "chii"),
    ("7z 7z 7z", False, "pon"),
    ("7z 7z 7z 7z", False, "daiminkan"),
    ("7z 7z 7z 7z", True, "ankan"),
    ("5p 0p 5p", False, "pon"),
])
def test_a_meld_is_what_its_tiles_are(tiles, closed, kind):
    assert meld_of(tiles.split(), closed)["kind"] == kind


def test_a_closed_kan_keeps_the_hand_closed_and_a_dragon_pon_is_a_yaku():
    t = table()
    v = value(t, 1, "2m 3m 4m 5p 6p 7p 3s 4s 5s 8s 8s", "8s", tsumo=True,
              melds=[{"tiles": ["7z"] * 4, "closed": True}], riichi=True)
    assert {"riichi", "menzen tsumo", "red dragon"} <= {n for n, h in v["yaku"] if h}
    v = value(t, 1, "2m 3m 4m 5p 6p 7p 3s 4s 5s 8s 8s", "8s",
              melds=[{"tiles": ["7z"] * 3}])
    assert [n for n, h in v["yaku"] if h] == ["red dragon"]


@pytest.mark.parametrize("hand,win,reason", [
    (PINFU_TANYAO, "9s", "false_win"),                           # not among the tiles
    ("2m 3m 4m 5p 6p 7p 3s 4s 5s 6s 7s 8s 5m 9m", "8s", "false_win"),
    ("1m 2m 3m 5p 6p 7p 3s 4s 5s 6s 7s 8s 9m 9m", "3m", "no_yaku"),   # ron, kanchan-less
])
def test_a_hand_that_does_not_win_says_why(hand, win, reason):
    v = value(table(), 1, hand, win)
    assert v["win"] is False and v["reason"] == reason and v["text"]


def test_what_cannot_be_valued_at_all_is_one_line():
    fresh = LiveTable(Referee(), clock=lambda: T)
    with pytest.raises(RefereeError, match="no hand has been dealt at this table yet"):
        value(fresh, 0, PINFU_TANYAO, "8s")
    with pytest.raises(RefereeError, match="seat 4 is not a seat"):
        value(table(), 4, PINFU_TANYAO, "8s")
    with pytest.raises(RefereeError, match="an open meld cannot be in riichi"):
        value(table(), 1, "2m 3m 4m 5p 6p 7p 3s 4s 5s 8s 8s", "8s",
              melds=[{"tiles": ["7z"] * 3}], riichi=True)
