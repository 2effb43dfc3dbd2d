"""Revealed hands through the rules core: the situational yaku the table state gives (riichi,
double riichi, ippatsu, menzen tsumo, haitei, houtei, rinshan, chankan, tenhou, chiihou, dora,
ura dora, red fives), and the rulings on a hand that is no win (no_yaku, false_win, a closed
kan robbed by anything but thirteen orphans). Values worked out by hand from the scoring
table (fu rounded up to tens; base = fu x 2^(han+2); ron x4 non-dealer, x6 dealer)."""
import pytest

from referee.core import Referee
from referee.simulate import filler, script

#: closed hand 234m 567m 345p 67s 55s: waits on 5s and 8s (pinfu, tanyao)
H = "234m567m345p678s55s"


def play(ruleset, *lines, honba=0, sticks=0, dora="1z", extra=()):
    events = script(f"0 gs {ruleset}", f"0 hs 0 E {dora}", *lines)
    events[1]["honba"] = honba
    events[1]["riichi_sticks"] = sticks
    events += list(extra)
    events.sort(key=lambda e: e["t"])
    ref = Referee()
    out = []
    for ev in events:
        out += ref.feed(ev)
    return out + ref.finish(), ref


def of(rulings, kind):
    return [r for r in rulings if r["type"] == kind]


def only(rulings, kind):
    found = of(rulings, kind)
    assert len(found) == 1, rulings
    return found[0]


def with_ura(events, ura):
    for e in events:
        if e["type"] == "reveal":
            e["ura_indicators"] = ura
    return events


def test_riichi_ippatsu_pinfu_tanyao_ron():
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p",
                      "6 d1 9s r", "7 d2 8s", "7.5 c1 ron", f"11 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert (win["seat"], win["from"], win["han"], win["fu"]) == (1, 2, 4, 30)
    assert set(win["yaku"]) == {"riichi", "ippatsu", "pinfu", "tanyao"}
    assert win["points"] == 7700
    assert win["payments"] == [0, 8700, -7700, 0]  # the riichi stick goes to the winner
    end = only(rulings, "hand_end")
    assert end["result"] == "ron" and end["scores"] == [30000, 37700, 22300, 30000]
    assert only(rulings, "hand_end")["next"] == {"dealer": 1, "honba": 0, "riichi_sticks": 0}
    assert of(rulings, "violation") == []


@pytest.mark.parametrize("ruleset, points", [("ema2016", 7700), ("ema2025", 8000)])
def test_four_han_thirty_fu_is_a_mangan_where_the_ruleset_rounds_up(ruleset, points):
    # the same 4 han 30 fu ron: ema2016 pays 7700, ema2025 (kiriage, from secondary sources)
    # rounds it up to a mangan
    rulings, _ = play(ruleset, "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p",
                      "6 d1 9s r", "7 d2 8s", "7.5 c1 ron", f"11 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert (win["han"], win["fu"], win["points"]) == (4, 30, points)
    assert win["payments"] == [0, points + 1000, -points, 0]  # and the riichi stick


def test_ippatsu_ends_with_the_riichi_players_next_discard():
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p",
                      "6 d1 9s r", "7 d2 1z", "8 d3 1z", "9 d0 9p", "10 d1 7z", "11 d2 8s",
                      "11.5 c1 ron", f"15 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert set(win["yaku"]) == {"riichi", "pinfu", "tanyao"}
    assert (win["han"], win["fu"], win["points"]) == (3, 30, 3900)


def test_a_call_ends_ippatsu():
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p",
                      "6 d1 9s r", "7 d2 7z", "7.5 c3 pon", "10.5 m3 pon 777z 7z@2",
                      "11.5 d3 8s", "12 c1 ron", f"16 reveal 1 {H} 8s")
    assert "ippatsu" not in only(rulings, "win")["yaku"]


def test_double_riichi_ippatsu_and_ura_dora():
    events = script("0 gs ema2012", "0 hs 0 E 1z", "1 d0 1z", "2 d1 9m r", "3 d2 8s",
                    "3.5 c1 ron", f"7 reveal 1 {H} 8s")
    ref = Referee()
    rulings = [r for ev in with_ura(events, ["4s"]) for r in ref.feed(ev)]
    win = only(rulings, "win")
    assert "double riichi" in win["yaku"] and "riichi" not in win["yaku"]
    # double riichi 2 + ippatsu 1 + pinfu 1 + tanyao 1 + ura dora 2 (the 5s pair) = haneman
    assert win["han"] == 7 and win["points"] == 12000
    assert dict(win["yaku_han"])["ura dora"] == 2


def test_ura_dora_only_for_riichi():
    events = script("0 gs ema2012", "0 hs 0 E 1z", "1 d0 1z", "2 d1 9m", "3 d2 8s",
                    "3.5 c1 ron", f"7 reveal 1 {H} 8s")
    ref = Referee()
    rulings = [r for ev in with_ura(events, ["4s"]) for r in ref.feed(ev)]
    win = only(rulings, "win")
    assert win["han"] == 2 and "ura dora" not in win["yaku"] and win["points"] == 2000


def test_dealer_menzen_tsumo_with_honba_and_sticks():
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 1z", "3 d2 9m", "4 d3 9p", "7.5 c0 ron",
                      f"8 reveal 0 {H} 8s", honba=2, sticks=1)
    win = only(rulings, "win")
    assert win["from"] is None
    assert set(win["yaku"]) == {"menzen tsumo", "pinfu", "tanyao"}
    assert (win["han"], win["fu"], win["points"]) == (3, 20, 3900)  # 1300 all
    assert win["payments"] == [5500, -1500, -1500, -1500]  # +100 x 2 honba each, +1 stick
    end = only(rulings, "hand_end")
    assert end["result"] == "tsumo"
    assert end["next"] == {"dealer": 0, "honba": 3, "riichi_sticks": 0}


def test_non_dealer_tsumo():
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p",
                      "8.5 c1 ron", f"9 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert win["points"] == 2700 and win["payments"] == [-1300, 2700, -700, -700]
    assert only(rulings, "hand_end")["next"] == {"dealer": 1, "honba": 0, "riichi_sticks": 0}


def test_tenhou_and_chiihou():
    rulings, _ = play("ema2012", "1 c0 ron", f"1.5 reveal 0 {H} 8s")
    win = only(rulings, "win")
    assert "tenhou" in win["yaku"] and win["points"] == 48000
    assert win["payments"] == [48000, -16000, -16000, -16000]
    rulings, _ = play("ema2012", "1 d0 1z", "4.5 c1 ron", f"5 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert "chiihou" in win["yaku"] and win["payments"] == [-16000, 32000, -8000, -8000]


def test_haitei_on_the_last_draw_and_houtei_on_the_last_discard():
    last = filler(69, 0, 1.0)  # 69 discards: the next draw (seat 1's) is the last tile
    rulings, _ = play("ema2012", "73.5 c1 ron", f"74 reveal 1 {H} 8s", extra=last)
    win = only(rulings, "win")
    assert "haitei" in win["yaku"]
    # menzen tsumo, pinfu, tanyao, haitei: 4 han 20 fu -> 2600 / 1300
    assert win["points"] == 5200 and win["payments"] == [-2600, 5200, -1300, -1300]
    rulings, _ = play("ema2012", "70 d1 8s", "70.5 c2 ron", f"74 reveal 2 {H} 8s", extra=last)
    win = only(rulings, "win")
    assert "houtei" in win["yaku"] and win["points"] == 3900


def test_rinshan_after_a_closed_kan():
    rulings, _ = play("ema2012", "1 c0 kan", "1.5 m0 ankan 2222m", "2.5 c0 ron",
                      "3 reveal 0 567m345p678s55s 8s")
    win = only(rulings, "win")
    assert "rinshan kaihou" in win["yaku"] and "tenhou" not in win["yaku"]
    # rinshan, menzen tsumo, tanyao; 20 + 2 tsumo + 16 closed kan of simples = 40 fu
    assert (win["han"], win["fu"], win["points"]) == (3, 40, 7800)


def test_chankan_robs_an_added_kan():
    rulings, _ = play("ema2012", "1 d0 3p", "1.5 c2 pon", "4.5 m2 pon 333p 3p@0", "5.5 d2 9m",
                      "6.5 d3 1z", "7.5 d0 1z", "8.5 d1 9p", "12 c2 kan",
                      "12.5 m2 shouminkan 3333p", "13 c1 ron",
                      "16.5 reveal 1 234m567m234p678s55s 3p")
    win = only(rulings, "win")
    assert win["from"] == 2 and "chankan" in win["yaku"]
    # chankan + tanyao, 20 + 10 closed ron + 2 closed wait = 40 fu
    assert (win["han"], win["fu"], win["points"]) == (2, 40, 2600)
    assert of(rulings, "violation") == []


#: seat 1 pons the dealer's 5p and later adds the fourth; the kan's indicator (8m: dora 9m)
#: is turned at once. Seat 3 holds 789m 456m 789s 99s and two pin: pinfu, one 9m.
ADDED_KAN = ("1 d0 5p", "1.5 c1 pon", "2 m1 pon 555p 5p@0", "2.8 d1 1z", "4 d2 2z",
             "5 d3 3z", "6 d0 4z", "9.5 c1 kan", "10 m1 shouminkan 5555p", "10.2 dora 8m")
ROBBER = "789m456m789s99s"
ALL_RULESETS = ["ema2012", "ema2016", "ema2025", "wrc2015", "tenhou", "mleague", "dutch"]


@pytest.mark.parametrize("ruleset", ALL_RULESETS)
def test_a_robbed_kan_turns_no_dora_for_the_robbing_hand(ruleset):
    # chankan ends the hand before the kan is made (JMW "Kan"; EMA RCR 5.4 waits for the win
    # declarations before the kan dora), so the indicator turned early does not count: pinfu
    # + chankan, 2 han 30 fu, not 3 han with the 9m
    rulings, _ = play(ruleset, *ADDED_KAN, "10.5 c3 ron", f"14 reveal 3 {ROBBER}345p 5p")
    win = only(rulings, "win")
    assert win["from"] == 1 and set(win["yaku"]) == {"chankan", "pinfu"}
    assert (win["han"], win["fu"], win["points"]) == (2, 30, 2000)
    # the indicator turned early is pointed out to the referee, not counted or penalised
    v = only(rulings, "violation")
    assert (v["kind"], v["seat"], v["penalty"]) == ("procedure", 1, "none")
    assert "8m" in v["text"] and "robbed" in v["text"]


@pytest.mark.parametrize("ruleset", ALL_RULESETS)
def test_an_added_kan_nobody_robs_keeps_its_dora(ruleset):
    # the near miss: the window on the added 5p passes, the kan is made, and its indicator
    # counts for a ron on the kan maker's next discard (seat 3 waits on 1p/4p here, so the
    # 5p that passed leaves it no furiten): pinfu + dora 1
    rulings, _ = play(ruleset, *ADDED_KAN, "14 d1 4p", "14.5 c3 ron",
                      f"18 reveal 3 {ROBBER}234p 4p")
    win = only(rulings, "win")
    assert win["from"] == 1 and dict(win["yaku_han"]) == {"pinfu": 1, "dora": 1}
    assert (win["han"], win["fu"], win["points"]) == (2, 30, 2000)
    assert of(rulings, "violation") == []


@pytest.mark.parametrize("ruleset, counted", [("ema2012", True), ("ema2016", True),
                                              ("wrc2015", True), ("tenhou", False),
                                              ("dutch", False)])
def test_the_replacement_tile_of_an_added_kan_nobody_robbed(ruleset, counted):
    # the kan maker wins on its replacement tile (rinshan, the chankan window closed by its
    # press): a ruleset that turns the indicator at once counts the 9m now that the kan is
    # made; one that turns it after the discard does not (and points it out)
    rulings, _ = play(ruleset, *ADDED_KAN, "11 c1 ron", "12 reveal 1 234m789m678s99s 9s")
    win = only(rulings, "win")
    assert win["from"] is None and "rinshan kaihou" in win["yaku"]
    assert dict(win["yaku_han"]).get("dora", 0) == (1 if counted else 0)
    assert [v["kind"] for v in of(rulings, "violation")] == ([] if counted else ["procedure"])


def test_a_closed_kan_only_to_thirteen_orphans():
    kokushi = "19m19p19s234567z7z"
    rulings, _ = play("tenhou", "1 c0 kan", "1.5 m0 ankan 1111z", "2 c1 ron",
                      f"5.5 reveal 1 {kokushi}1z 1z", dora="2m")
    win = only(rulings, "win")
    assert "kokushi musou" in win["yaku"] and win["points"] == 32000
    assert win["payments"] == [-32000, 32000, 0, 0]
    # a complete hand that is no thirteen orphans may not rob it (1m in a run: a fifth East
    # in a pair would be a tile no set has)
    rulings, _ = play("tenhou", "1 c0 kan", "1.5 m0 ankan 1111m", "2 c1 ron",
                      "5.5 reveal 1 23m567m345p678s55s1m 1m")
    v = only(rulings, "violation")
    assert v["kind"] == "false_win" and v["penalty"] == "chombo"
    assert of(rulings, "win") == []


def test_dora_and_red_fives_per_ruleset():
    lines = ("1 d0 1z", "2 d1 9m", "3 d2 8s", "3.5 c1 ron", "7 reveal 1 234m567m345p678s05s 8s")
    win = only(play("ema2012", *lines)[0], "win")
    assert dict(win["yaku_han"])["red five"] == 1 and win["han"] == 3 and win["points"] == 3900
    win = only(play("wrc2015", *lines)[0], "win")  # no red fives: a five is a five
    assert "red five" not in win["yaku"] and win["points"] == 2000
    win = only(play("ema2012", *lines, dora="7s")[0], "win")  # 8s is dora
    assert dict(win["yaku_han"])["dora"] == 1 and win["han"] == 4


def test_open_tanyao_is_a_yaku_on_tenhou_not_in_ema2012():
    lines = ("1 d0 3m", "1.5 c1 chii", "4.5 m1 chii 234m 3m@0", "5.5 d1 9p", "6.5 d2 1z",
             "7.5 d3 2z", "8.5 d0 8s", "9 c1 ron", "12 reveal 1 567m345p678s55s 8s")
    win = only(play("tenhou", *lines)[0], "win")
    assert win["yaku"] == ["tanyao"] and (win["han"], win["fu"], win["points"]) == (1, 30, 1000)
    rulings, _ = play("ema2012", *lines)
    v = only(rulings, "violation")
    assert (v["kind"], v["seat"], v["penalty"]) == ("no_yaku", 1, "chombo")
    assert of(rulings, "win") == []


@pytest.mark.parametrize("reveal,why", [
    ("234m567m345p689s55s 8s", "not a complete hand"),
    (f"{H} 5s", "showed a hand won on 5s"),       # ron called on 8s
    ("234m567m345p678s5s 8s", "not a complete hand"),  # a tile short
])
def test_false_win(reveal, why):
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 8s", "3.5 c1 ron",
                      f"7 reveal 1 {reveal}")
    v = only(rulings, "violation")
    assert (v["kind"], v["seat"], v["penalty"]) == ("false_win", 1, "chombo")
    assert why in v["text"]


def test_a_dead_hand_cannot_win():
    dead = {"type": "referee", "t": 1.5, "action": "penalty", "seat": 1,
            "text": "dead hand: wrong number of tiles"}
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p",
                      "8.5 c1 ron", f"9 reveal 1 {H} 8s", extra=[dead])
    v = of(rulings, "violation")
    assert [(x["kind"], x["penalty"]) for x in v] == [("procedure", "dead_hand"),
                                                     ("false_win", "chombo")]
    assert of(rulings, "win") == []


def test_nine_terminals_reveal_on_the_first_turn():
    nine = "19m19p19s123z23455m"
    rulings, _ = play("tenhou", f"1 reveal 0 {nine} 5m")
    end = only(rulings, "hand_end")
    assert (end["result"], end["reason"], end["seat"]) == ("abortive", "nine_terminals", 0)
    assert end["scores"] == [25000] * 4
    assert end["next"] == {"dealer": 0, "honba": 1, "riichi_sticks": 0}
    assert of(rulings, "violation") == []
    # after its first discard the seat's first turn is over: the hand shown is taken as a
    # tsumo, and it is no win
    rulings, _ = play("tenhou", "1 d0 1z", "2 d1 2z", "3 d2 3z", "4 d3 4z", "5 d0 7z",
                      f"9 reveal 1 {nine} 5m")
    assert [v["kind"] for v in of(rulings, "violation")] == ["procedure", "false_win"]
    # out of turn: a hand laid open without a win
    rulings, _ = play("tenhou", "1 d0 1z", f"2 reveal 2 {nine} 5m")
    assert only(rulings, "violation")["kind"] == "false_win"
    # a ruleset without abortive draws: a hand shown on one's own turn is taken as a tsumo
    rulings, _ = play("ema2012", f"1 reveal 0 {nine} 5m")
    assert [v["kind"] for v in of(rulings, "violation")] == ["procedure", "false_win"]


def test_reveal_on_own_turn_without_pressing_is_a_tsumo():
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p",
                      f"9 reveal 1 {H} 8s")
    assert only(rulings, "violation")["kind"] == "procedure"
    assert only(rulings, "win")["points"] == 2700


def test_game_start_says_the_game_has_no_open_tanyao_or_red_fives():
    lines = ("1 d0 3m", "1.5 c1 chii", "4.5 m1 chii 234m 3m@0", "5.5 d1 9p", "6.5 d2 1z",
             "7.5 d3 2z", "8.5 d0 8s", "9 c1 ron", "12 reveal 1 567m345p678s55s 8s")
    events = script("0 gs tenhou", "0 hs 0 E 1z", *lines)
    events[0]["open_tanyao"] = False
    ref = Referee()
    rulings = [r for ev in events for r in ref.feed(ev)]
    assert only(rulings, "violation")["kind"] == "no_yaku"
    events = script("0 gs tenhou", "0 hs 0 E 1z", "1 d0 1z", "2 d1 9m", "3 d2 8s", "3.5 c1 ron",
                    "7 reveal 1 234m567m345p678s05s 8s")
    events[0]["red_fives"] = False
    ref = Referee()
    win = only([r for ev in events for r in ref.feed(ev)], "win")
    assert "red five" not in win["yaku"] and win["points"] == 2000


#: seat 1 in riichi presses pon on seat 2's 5p: refused, but it lays the pon open anyway;
#: then it rons seat 0's 8s with 234m 567m 678s 55s (open tanyao, no timing rule needed: a
#: 3-second window has closed by seat 3's discard)
MELD_AFTER_RIICHI = ("1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 2z", "5 d0 9p", "6 d1 9s r",
                     "7 d2 5p", "7.5 c1 pon", "10.5 m1 pon 555p 5p@2", "11.5 d3 9m",
                     "12.5 d0 8s", "13 c1 ron", "16.5 reveal 1 234m567m678s55s 8s")


def test_a_riichi_hand_that_showed_a_meld_is_valued_without_riichi():
    # where the meld costs a warning (wrc2015, the project's reading), the hand, open now,
    # wins with tanyao alone, its riichi not scored
    rulings, _ = play("wrc2015", *MELD_AFTER_RIICHI)
    v = only(rulings, "violation")
    assert (v["kind"], v["seat"], v["penalty"]) == ("riichi_open_hand", 1, "warning")
    win = only(rulings, "win")
    assert win["yaku"] == ["tanyao"] and (win["han"], win["fu"], win["points"]) == (1, 30, 1000)


def test_a_riichi_hand_that_showed_a_meld_is_dead_under_ema2016():
    # RCR 2016 3.4.7 makes riichi on an open hand a dead hand, and this kind covers a meld laid
    # open after riichi: the hand cannot win, and its ron is a false win (chombo)
    rulings, _ = play("ema2016", *MELD_AFTER_RIICHI)
    kinds = [(v["kind"], v["penalty"]) for v in of(rulings, "violation")]
    assert kinds[0] == ("riichi_open_hand", "dead_hand") and ("false_win", "chombo") in kinds
    assert of(rulings, "win") == []


# -- renhou -----------------------------------------------------------------------------------

def test_renhou_is_a_yakuman_under_ema2012():
    # seat 1 rons the dealer's first discard before its own first draw: RCR 2012 counts
    # renhou as a yakuman (riichi.wiki's summary of the 2008-2016 rules; 2016 made it a
    # mangan), so the non-dealer's hand is worth 32,000 whatever else it holds
    rulings, _ = play("ema2012", "1 d0 8s", "1.5 c1 ron", f"5 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert "renhou" in win["yaku"] and win["yakuman"] == 1 and win["points"] == 32000


def test_a_ron_after_the_first_draw_is_no_renhou():
    # the near miss: seat 1 has drawn and discarded once, the same ron is pinfu tanyao
    rulings, _ = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 9p", "4 d3 9s", "5 d0 8s",
                      "5.5 c1 ron", f"9 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert "renhou" not in win["yaku"] and win["points"] == 2000


def test_tenhou_has_no_renhou():
    rulings, _ = play("tenhou", "1 d0 8s", "1.5 c1 ron", f"5 reveal 1 {H} 8s")
    win = only(rulings, "win")
    assert "renhou" not in win["yaku"] and win["points"] == 2000
