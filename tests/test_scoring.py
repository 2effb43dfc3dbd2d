"""Hand values a referee can check with a pencil: han, fu, yaku and points of revealed hands.

Points are the hand's value before honba and sticks: ron = what the discarder pays, tsumo =
what the three others pay together. Seat "S" is a non-dealer, "E" the dealer.
"""
import pytest

from referee.scoring import (NotAWin, Situation, WinScore, is_complete, is_tenpai, nagashi_mangan,
                             score_win, waits)
from referee.tiles import parse_hand as P

PINFU = P("123456m789p23455s")      # 123m 456m 789p 234s 55s, won on 4s (2-3s waits 1s/4s)
CHIITOI = P("1133557799m1122p")     # seven pairs
OPEN = P("234m567p22s")             # with a chii and a pon below, won on the 2s pair
CHII_345S = {"kind": "chii", "tiles": ["3s", "4s", "5s"], "called": "3s", "from": 0}
CHII_34RED5S = {"kind": "chii", "tiles": ["3s", "4s", "0s"], "called": "0s", "from": 0}
PON_666P = {"kind": "pon", "tiles": ["6p", "6p", "6p"], "called": "6p", "from": 2}
PON_999P = {"kind": "pon", "tiles": ["9p", "9p", "9p"], "called": "9p", "from": 2}
PON_EAST = {"kind": "pon", "tiles": ["1z", "1z", "1z"], "called": "1z", "from": 1}
ANKAN_9P = {"kind": "ankan", "tiles": ["9p", "9p", "9p", "9p"]}
TENHOU = {"double_yakuman": False}

# (id, concealed, melds, win tile, situation, options, han, fu, points, yaku names)
CASES = [
    # riichi 1 + tsumo 1 + pinfu 1; pinfu tsumo is 20 fu: 20*2^5=640 -> 700 each, 1300 dealer
    ("riichi tsumo pinfu", PINFU, [], "4s", Situation(tsumo=True, riichi=True, seat_wind="S"),
     None, 3, 20, 2700, {"riichi", "menzen tsumo", "pinfu"}),
    # the same as dealer: 640*2=1280 -> 1300 all
    ("dealer riichi tsumo pinfu", PINFU, [], "4s",
     Situation(tsumo=True, riichi=True, seat_wind="E"), None, 3, 20, 3900,
     {"riichi", "menzen tsumo", "pinfu"}),
    # closed ron: 20 + 10 = 30 fu, 1 han: 30*2^3*4 = 960 -> 1000
    ("pinfu ron", PINFU, [], "4s", Situation(seat_wind="S"), None, 1, 30, 1000, {"pinfu"}),
    # dealer: 960*1.5 = 1440 -> 1500
    ("dealer pinfu ron", PINFU, [], "4s", Situation(seat_wind="E"), None, 1, 30, 1500,
     {"pinfu"}),
    # seven pairs: always 25 fu; 25*2^4*4 = 1600
    ("chiitoitsu ron", CHIITOI, [], "2p", Situation(seat_wind="S"), None, 2, 25, 1600,
     {"chiitoitsu"}),
    # tsumo adds a han, no fu: 25*2^5 = 800 -> 800 each, 1600 from the dealer
    ("chiitoitsu tsumo", CHIITOI, [], "2p", Situation(tsumo=True, seat_wind="S"), None, 3, 25,
     3200, {"chiitoitsu", "menzen tsumo"}),
    # thirteen orphans on a single wait (the pair was there, 7z completes): 32000
    ("kokushi", P("119m19p19s1234567z"), [], "7z", Situation(seat_wind="S"), None, 13, 0,
     32000, {"kokushi musou"}),
    # thirteen-sided wait: double yakuman where the ruleset has it, single on Tenhou
    ("kokushi 13-sided, double", P("19m19p19s12345677z"), [], "7z", Situation(seat_wind="S"),
     {"double_yakuman": True}, 26, 0, 64000, {"kokushi musou 13-sided wait"}),
    ("kokushi 13-sided, single", P("19m19p19s12345677z"), [], "7z", Situation(seat_wind="S"),
     TENHOU, 13, 0, 32000, {"kokushi musou 13-sided wait"}),
    # only daisuushii counts double (EMA RCR 2012): the thirteen-sided wait is one yakuman
    ("kokushi 13-sided, daisuushii only", P("19m19p19s12345677z"), [], "7z",
     Situation(seat_wind="S"), {"double_yakuman": "daisuushii"}, 13, 0, 32000,
     {"kokushi musou 13-sided wait"}),
    # open tanyao: 20 + open simple pon 2 + pair wait 2 = 24 -> 30 fu; 1 han: 1000
    ("open tanyao", OPEN, [CHII_345S, PON_666P], "2s", Situation(seat_wind="S"),
     {"open_tanyao": True}, 1, 30, 1000, {"tanyao"}),
    # a red five in the chii: one more han: 30*2^4*4 = 1920 -> 2000
    ("open tanyao + red five", OPEN, [CHII_34RED5S, PON_666P], "2s", Situation(seat_wind="S"),
     None, 2, 30, 2000, {"tanyao", "red five"}),
    # without red fives in the set the same tile is a plain five
    ("red five off", OPEN, [CHII_34RED5S, PON_666P], "2s", Situation(seat_wind="S"),
     {"red_fives": False}, 1, 30, 1000, {"tanyao"}),
    # dora: indicator 1m makes 2m dora, the hand holds one: 4 han 20 fu tsumo:
    # 20*2^6 = 1280 -> 1300 each, 2600 from the dealer
    ("dora", PINFU, [], "4s",
     Situation(tsumo=True, riichi=True, seat_wind="S", dora_indicators=("1m",)), None, 4, 20,
     5200, {"riichi", "menzen tsumo", "pinfu", "dora"}),
    # ura dora counts only with riichi
    ("ura without riichi", PINFU, [], "4s", Situation(seat_wind="S", ura_indicators=("1m",)),
     None, 1, 30, 1000, {"pinfu"}),
    # riichi 1 + pinfu 1 + ura 1 = 3 han 30 fu: 30*2^5*4 = 3840 -> 3900
    ("ura with riichi", PINFU, [], "4s",
     Situation(riichi=True, seat_wind="S", ura_indicators=("1m",)), None, 3, 30, 3900,
     {"riichi", "pinfu", "ura dora"}),
    # 5 han is mangan whatever the fu: 2000 each, 4000 from the dealer
    ("mangan", PINFU, [], "4s",
     Situation(tsumo=True, riichi=True, seat_wind="S", dora_indicators=("1m", "3m")), None, 5,
     20, 8000, {"riichi", "menzen tsumo", "pinfu", "dora"}),
    # 4 han 30 fu: 30*2^6*4 = 7680 -> 7700; kiriage rounds it up to mangan
    ("4 han 30 fu", PINFU, [], "4s",
     Situation(riichi=True, seat_wind="S", dora_indicators=("1m", "3m")), None, 4, 30, 7700,
     {"riichi", "pinfu", "dora"}),
    ("4 han 30 fu kiriage", PINFU, [], "4s",
     Situation(riichi=True, seat_wind="S", dora_indicators=("1m", "3m")), {"kiriage": True},
     4, 30, 8000, {"riichi", "pinfu", "dora"}),
    # double east: the dealer's east pon in the east round counts twice; 20 + open honor pon
    # 4 + pair wait 2 = 26 -> 30 fu; 2 han dealer ron: 30*2^4*6 = 2880 -> 2900
    ("double east", P("234m567p789s22s"), [PON_EAST], "2s", Situation(seat_wind="E"), None, 2,
     30, 2900, {"seat wind east", "round wind east"}),
    # robbing a kan: pinfu + chankan, 2 han 30 fu = 2000
    ("chankan", PINFU, [], "4s", Situation(chankan=True, seat_wind="S"), None, 2, 30, 2000,
     {"pinfu", "chankan"}),
    # rinshan after a closed kan of 9p: 20 + closed terminal kan 32 + tsumo 2 = 54 -> 60 fu;
    # tsumo + rinshan 2 han: 60*2^4 = 960 -> 1000 each, 2000 from the dealer
    ("rinshan", P("123456m23455s"), [ANKAN_9P], "4s",
     Situation(tsumo=True, rinshan=True, seat_wind="S"), None, 2, 60, 4000,
     {"menzen tsumo", "rinshan kaihou"}),
    ("haitei", PINFU, [], "4s", Situation(tsumo=True, haitei=True, seat_wind="S"), None, 3, 20,
     2700, {"menzen tsumo", "pinfu", "haitei"}),
    ("houtei", PINFU, [], "4s", Situation(houtei=True, seat_wind="S"), None, 2, 30, 2000,
     {"pinfu", "houtei"}),
    ("ippatsu", PINFU, [], "4s", Situation(riichi=True, ippatsu=True, seat_wind="S"), None, 3,
     30, 3900, {"riichi", "ippatsu", "pinfu"}),
    ("double riichi", PINFU, [], "4s", Situation(double_riichi=True, seat_wind="S"), None, 3,
     30, 3900, {"double riichi", "pinfu"}),
    # tenhou (dealer) 16000 all; chiihou (non-dealer) 8000 each, 16000 from the dealer
    ("tenhou", PINFU, [], "4s", Situation(tsumo=True, tenhou=True, seat_wind="E"), None, 13,
     20, 48000, {"tenhou"}),
    ("chiihou", PINFU, [], "4s", Situation(tsumo=True, chiihou=True, seat_wind="S"), None, 13,
     20, 32000, {"chiihou"}),
    # riichi 1 + tsumo 1 + pinfu 1 + ittsu 2 + chinitsu 6 + dora 3 (indicator 4m; 5m in 456m
    # and the 55m pair) = 14: counted yakuman, 8000 each and 16000 from the dealer
    ("kazoe yakuman", P("123456789m23455m"), [], "4m",
     Situation(tsumo=True, riichi=True, seat_wind="S", dora_indicators=("4m",)), None, 14, 20,
     32000, {"riichi", "menzen tsumo", "pinfu", "ittsu", "chinitsu", "dora"}),
    ("kazoe capped at sanbaiman", P("123456789m23455m"), [], "4m",
     Situation(tsumo=True, riichi=True, seat_wind="S", dora_indicators=("4m",)),
     {"kazoe_limit": "sanbaiman"}, 14, 20, 24000,
     {"riichi", "menzen tsumo", "pinfu", "ittsu", "chinitsu", "dora"}),
]


@pytest.mark.parametrize(
    "concealed, melds, win_tile, situation, options, han, fu, points, yaku",
    [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hand_values(concealed, melds, win_tile, situation, options, han, fu, points, yaku):
    result = score_win(concealed, melds, win_tile, situation, options)
    assert isinstance(result, WinScore), result
    assert (result.han, result.fu, result.points) == (han, fu, points)
    assert set(result.yaku_names) == yaku


def test_base_payments_split_ron_and_tsumo():
    ron = score_win(PINFU, [], "4s", Situation(seat_wind="S"))
    assert (ron.ron_payment, ron.dealer_payment, ron.non_dealer_payment) == (1000, 0, 0)
    tsumo = score_win(PINFU, [], "4s", Situation(tsumo=True, riichi=True, seat_wind="S"))
    assert (tsumo.ron_payment, tsumo.dealer_payment, tsumo.non_dealer_payment) == (0, 1300, 700)
    dealer = score_win(PINFU, [], "4s", Situation(tsumo=True, riichi=True, seat_wind="E"))
    assert (dealer.dealer_payment, dealer.non_dealer_payment) == (0, 1300)


def test_total_adds_honba_and_sticks():
    # 1000 + 2 honba * 300 + 1 stick
    ron = score_win(PINFU, [], "4s", Situation(seat_wind="S", honba=2, kyoutaku=1))
    assert (ron.points, ron.total) == (1000, 2600)
    # 2700 + 2 honba * 100 * 3 + 1000
    tsumo = score_win(PINFU, [], "4s", Situation(tsumo=True, riichi=True, seat_wind="S",
                                                 honba=2, kyoutaku=1))
    assert (tsumo.points, tsumo.total) == (2700, 4300)


def test_limits_and_yakuman_count():
    mangan = score_win(PINFU, [], "4s", Situation(tsumo=True, riichi=True, seat_wind="S",
                                                  dora_indicators=("1m", "3m")))
    assert (mangan.limit, mangan.yakuman) == ("mangan", 0)
    kazoe = score_win(P("123456789m23455m"), [], "4m",
                      Situation(tsumo=True, riichi=True, seat_wind="S", dora_indicators=("4m",)))
    assert (kazoe.limit, kazoe.yakuman) == ("kazoe yakuman", 0)
    double = score_win(P("19m19p19s12345677z"), [], "7z", Situation(seat_wind="S"))
    assert (double.limit, double.yakuman) == ("2x yakuman", 2)


#: riichi, tsumo, dora 2 (the 2p pair): 20 + tsumo 2 + closed 999s pon 8 + closed 5m kan 16 +
#: kanchan 2 = 48 -> 50 fu; 4 han 50 fu is a mangan by its fu alone (50*2^6 = 3200 > 2000).
#: Without red fives: with them, one of the four 5m of the kan is the red one.
KANCHAN_AFTER_ANKAN = (P("123m456p999s22p"), [{"kind": "ankan", "tiles": ["5m"] * 4}], "2m",
                       Situation(tsumo=True, riichi=True, seat_wind="S", dora_indicators=("1p",)))


@pytest.mark.parametrize("kiriage, limit", [(False, "mangan"), (True, "mangan")])
def test_a_mangan_by_its_fu_is_labelled_mangan_with_or_without_kiriage(kiriage, limit):
    won = score_win(*KANCHAN_AFTER_ANKAN, {"kiriage": kiriage, "red_fives": False})
    assert (won.han, won.fu, won.points, won.limit) == (4, 50, 8000, limit)


NOT_WINS = [
    # all simples is the only candidate and 9p is no simple
    ("no yaku, open", OPEN, [CHII_345S, PON_999P], "2s", Situation(seat_wind="S"), None,
     "no_yaku"),
    ("open tanyao off", OPEN, [CHII_345S, PON_666P], "2s", Situation(seat_wind="S"),
     {"open_tanyao": False}, "no_yaku"),
    # dora alone is not a yaku (indicator 1s: the 2s pair is dora)
    ("dora only", OPEN, [CHII_345S, PON_999P], "2s",
     Situation(seat_wind="S", dora_indicators=("1s",)), None, "no_yaku"),
    ("not a winning shape", P("123456m789p2345s5z"), [], "5z", Situation(), None, "false_win"),
    ("too few tiles", PINFU[1:], [], "4s", Situation(), None, "false_win"),
    ("winning tile missing", PINFU, [], "7z", Situation(), None, "false_win"),
    ("five copies", P("11111m234p567s789s"), [], "1m", Situation(), None, "false_win"),
    ("seven pairs with a meld", P("11335577m11p"), [PON_EAST], "1p", Situation(), None,
     "false_win"),
]


@pytest.mark.parametrize("concealed, melds, win_tile, situation, options, reason",
                         [c[1:] for c in NOT_WINS], ids=[c[0] for c in NOT_WINS])
def test_not_a_win(concealed, melds, win_tile, situation, options, reason):
    result = score_win(concealed, melds, win_tile, situation, options)
    assert isinstance(result, NotAWin)
    assert not result
    assert result.reason == reason
    assert result.text


WAITS = [
    ("nine-sided", P("1112345678999m"), [], {f"{n}m" for n in range(1, 10)}),
    ("two-sided", P("123456m789p2355s"), [], {"1s", "4s"}),
    ("seven pairs", P("1133557799m112p"), [], {"2p"}),
    ("kokushi 13-sided", P("19m19p19s1234567z"), [],
     {"1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"}),
    ("kokushi single", P("119m19p19s123456z"), [], {"7z"}),
    ("nobetan with melds", P("2345m"), [PON_EAST, PON_999P, CHII_345S], {"2m", "5m"}),
    ("last pair with four melds", P("2m"), [PON_EAST, PON_999P, CHII_345S, PON_666P], {"2m"}),
    ("not tenpai", P("1359m2468p13579s"), [], set()),
]


@pytest.mark.parametrize("concealed, melds, expected", [c[1:] for c in WAITS],
                         ids=[c[0] for c in WAITS])
def test_waits(concealed, melds, expected):
    assert waits(concealed, melds) == expected


def test_waits_are_plain_kinds_and_red_fives_count_as_fives():
    assert waits(P("123456m789p46s77z"), []) == {"5s"}          # never "0s"
    assert waits(P("123456m789p0s6s77z"), []) == {"4s", "7s"}   # the red five is a five


def test_a_wait_on_a_tile_the_hand_holds_four_of_is_no_tenpai():
    # 1z tanki with the three others in a pon: the wait is real for furiten, not for tenpai
    concealed = P("123m456p789s1z")
    assert waits(concealed, [PON_EAST]) == {"1z"}
    assert waits(concealed, [PON_EAST], include_exhausted=False) == set()
    assert not is_tenpai(concealed, [PON_EAST])
    assert is_tenpai(P("123m456p789s2z"), [PON_EAST])


def test_is_complete():
    assert is_complete(PINFU)
    assert is_complete(CHIITOI)
    assert is_complete(P("19m19p19s12345677z"))
    assert is_complete(OPEN, [CHII_345S, PON_666P])
    assert not is_complete(P("123456m789p2345s5z"))
    assert not is_complete(PINFU[:-1])
    assert not is_complete(CHIITOI[:-2] + ["3p", "4p"])
    assert not is_complete(OPEN, [CHII_345S])          # a set short


def test_nagashi_mangan_is_a_mangan_tsumo():
    dealer = nagashi_mangan(Situation(seat_wind="E"))
    assert (dealer.points, dealer.non_dealer_payment) == (12000, 4000)
    other = nagashi_mangan(Situation(seat_wind="W"))
    assert (other.points, other.dealer_payment, other.non_dealer_payment) == (8000, 4000, 2000)


def test_unknown_options_are_ignored_bad_values_are_not():
    from referee.errors import RefereeError
    assert score_win(PINFU, [], "4s", Situation(seat_wind="S"), {"claim_window": 3.0})
    with pytest.raises(RefereeError):
        score_win(PINFU, [], "4s", Situation(seat_wind="S"), {"kazoe_limit": "huge"})
    with pytest.raises(RefereeError):
        score_win(PINFU, [], "4s", Situation(seat_wind="S"), {"double_yakuman": "kokushi"})
