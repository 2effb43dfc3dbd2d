"""Payments through the rules core, values worked out by hand: ron and tsumo (see
test_wins.py), multiple ron per ruleset (head bump; Tenhou's double ron with honba and sticks
to the nearest winner; every winner's honba), exhaustive draws with noten payments, nagashi
mangan, abortive draws, chombo, dealer repeat and rotation (``next`` of ``hand_end``), and the
end of the game: bust, the last deal, the leading last dealer, ``end_game`` on time, uma/oka.
"""
from referee.core import Referee, final_points
from referee.rulesets import get_ruleset
from referee.simulate import filler, script

H1 = "234m567m345p678s55s"      # seat 1 on 8s: pinfu tanyao, 2 han 30 fu: 2000 ron
H2 = "234p456p666m888s33s"      # seat 2 on 8s: tanyao, 1 han 40 fu: 1300 ron


def play(ruleset, *lines, honba=0, sticks=0, scores=None, extra=()):
    events = script(f"0 gs {ruleset}", "0 hs 0 E 1z", *lines)
    if scores is not None:
        events[0]["scores"] = list(scores)
    events[1]["honba"], events[1]["riichi_sticks"] = honba, sticks
    events = sorted(events + list(extra), key=lambda e: e["t"])
    ref = Referee()
    out = []
    for ev in events:
        out += ref.feed(ev)
    return out + ref.finish()


def of(rulings, kind):
    return [r for r in rulings if r["type"] == kind]


def hand_end(rulings):
    ends = of(rulings, "hand_end")
    assert len(ends) == 1, rulings
    return ends[0]


DOUBLE = ("1 d0 1z", "2 d1 9m", "3 d2 9p", "4 d3 1z", "5 d0 8s", "5.5 c1 ron", "5.7 c2 ron",
          f"9 reveal 1 {H1} 8s")


def test_tenhou_double_ron_honba_and_sticks_to_the_nearest():
    rulings = play("tenhou", *DOUBLE, f"9.1 reveal 2 {H2} 8s", honba=1, sticks=1)
    w1, w2 = of(rulings, "win")
    # the discarder pays 2000 + 300 honba; the stick on the table goes to the winner too
    assert (w1["seat"], w1["points"], w1["payments"]) == (1, 2000, [-2300, 3300, 0, 0])
    assert (w2["seat"], w2["points"], w2["payments"]) == (2, 1300, [-1300, 0, 1300, 0])
    end = hand_end(rulings)
    assert end["result"] == "ron" and end["scores"] == [21400, 28300, 26300, 25000]
    assert end["next"] == {"dealer": 1, "honba": 0, "riichi_sticks": 0}


def test_ema2016_multiple_ron_each_winner_gets_the_honba():
    rulings = play("ema2016", *DOUBLE, f"9.1 reveal 2 {H2} 8s", honba=1, sticks=1)
    w1, w2 = of(rulings, "win")
    assert w1["payments"] == [-2300, 3300, 0, 0]
    assert w2["payments"] == [-1600, 0, 1600, 0]
    assert hand_end(rulings)["scores"] == [26100, 33300, 31600, 30000]


def test_ema2012_head_bump_only_the_nearest_wins():
    rulings = play("ema2012", *DOUBLE, honba=1, sticks=1)
    rejected = [x for r in of(rulings, "claim") for x in r["rejected"]]
    assert rejected == [{"seat": 2, "call": "ron", "reason": "head_bump"}]
    (win,) = of(rulings, "win")
    assert win["seat"] == 1 and win["payments"] == [-2300, 3300, 0, 0]
    assert hand_end(rulings)["scores"] == [27700, 33300, 30000, 30000]


def test_the_hand_ends_once_every_winner_has_shown():
    rulings = play("tenhou", *DOUBLE)
    assert of(rulings, "hand_end") == []  # seat 2 has not shown yet
    rulings = play("tenhou", *DOUBLE, "20 hs 1")
    v = [r for r in of(rulings, "violation")]
    assert [(x["kind"], x["seat"]) for x in v] == [("procedure", 2)]
    assert hand_end(rulings)["scores"] == [23000, 27000, 25000, 25000]


DRAW = filler(70, 0, 1.0)  # 70 discards: the wall is empty, the last discard passes


def test_exhaustive_draw_noten_payments_and_dealer_rotation():
    end = hand_end(play("ema2012", "75 tenpai 1", extra=DRAW, sticks=1))
    assert (end["result"], end["tenpai"]) == ("exhaustive", [1])
    assert end["changes"] == [-1000, 3000, -1000, -1000]
    assert end["next"] == {"dealer": 1, "honba": 1, "riichi_sticks": 1}  # dealer noten
    end = hand_end(play("ema2012", "75 tenpai 0,2", extra=DRAW))
    assert end["changes"] == [1500, -1500, 1500, -1500]
    assert end["next"] == {"dealer": 0, "honba": 1, "riichi_sticks": 0}  # dealer tenpai
    end = hand_end(play("ema2012", "75 tenpai 0,1,2", extra=DRAW))
    assert end["changes"] == [1000, 1000, 1000, -3000]
    for seats in ("0,1,2,3", ""):
        assert hand_end(play("ema2012", f"75 tenpai {seats}", extra=DRAW))["changes"] == [0] * 4
    # no tenpai event before the next hand: all noten
    end = hand_end(play("ema2012", "90 hs 1", extra=DRAW))
    assert end["tenpai"] == [] and end["changes"] == [0] * 4


def test_nagashi_mangan_where_the_ruleset_has_it():
    only_9p = filler(70, 0, 1.0, tiles="9p2m3m4m")  # seat 0 (dealer) discards only 9p
    end = hand_end(play("tenhou", "75 tenpai 1", extra=only_9p))
    assert end["reason"] == "nagashi_mangan" and end["nagashi"] == [0]
    assert end["changes"] == [12000, -4000, -4000, -4000]  # instead of noten payments
    only_9p_seat1 = filler(70, 0, 1.0, tiles="2m9p3m4m")
    end = hand_end(play("tenhou", "75 tenpai 0", extra=only_9p_seat1))
    assert end["changes"] == [-4000, 8000, -2000, -2000]
    # EMA 2012 has no nagashi mangan: the noten payments apply
    end = hand_end(play("ema2012", "75 tenpai 1", extra=only_9p_seat1))
    assert end.get("reason") is None and end["changes"] == [-1000, 3000, -1000, -1000]


def test_abortive_draw_keeps_dealer_and_sticks():
    rulings = play("tenhou", "1 d0 1z r", "2 d1 2z r", "3 d2 3z r", "4 d3 5z r", "5 d0 9p")
    end = hand_end(rulings)
    assert (end["result"], end["reason"]) == ("abortive", "four_riichi")
    assert end["scores"] == [24000] * 4
    assert end["next"] == {"dealer": 0, "honba": 1, "riichi_sticks": 4}


def test_chombo_payments_and_the_replayed_hand():
    false = ("1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p", "6 d1 9s r", "7 d2 8s",
             "7.5 c1 ron", "11 reveal 1 234m567m345p689s55s 8s")
    rulings = play("ema2012", *false, sticks=2)
    end = hand_end(rulings)
    # its riichi stick of this hand goes back to the offender; the 20,000 is no payment but a
    # deduction after uma (EMA 2016), so it stands on the penalty ledger, not on the table
    assert end["changes"] == [0, 1000, 0, 0]
    assert end["scores"] == [30000, 30000, 30000, 30000]
    chombo = [r for r in rulings if r["type"] == "violation" and r["penalty"] == "chombo"]
    assert [(v["seat"], v["points"]) for v in chombo] == [(1, 20000)]
    assert end["next"] == {"dealer": 0, "honba": 0, "riichi_sticks": 2}
    end = hand_end(play("tenhou", *false, honba=3))
    assert end["changes"] == [4000, -7000, 2000, 2000]  # mangan: 4000 dealer, 2000 others
    assert end["next"] == {"dealer": 0, "honba": 3, "riichi_sticks": 0}
    # a dealer's chombo: 4000 to each
    end = hand_end(play("tenhou", "1 c0 ron", "1.5 reveal 0 234m567m345p689s55s 8s"))
    assert end["changes"] == [-12000, 4000, 4000, 4000]


def test_dealer_repeats_on_a_win_and_rotates_otherwise():
    dealer_win = ("1 d0 1z", "2 d1 1z", "3 d2 9m", "4 d3 9p", "7.5 c0 ron", f"8 reveal 0 {H1} 8s")
    assert hand_end(play("ema2012", *dealer_win, honba=1))["next"] == \
        {"dealer": 0, "honba": 2, "riichi_sticks": 0}
    other_win = ("1 d0 8s", "1.5 c1 ron", f"5 reveal 1 {H1} 8s")
    assert hand_end(play("ema2012", *other_win, honba=1))["next"] == \
        {"dealer": 1, "honba": 0, "riichi_sticks": 0}


def test_tenhou_bust_ends_the_game_with_uma_and_oka():
    rulings = play("tenhou", "1 d0 8s", "1.5 c1 ron", f"5 reveal 1 {H1} 8s",
                   scores=[1000, 25000, 25000, 49000])
    end = rulings[-1]
    assert end["type"] == "game_end" and rulings[-2]["type"] == "hand_end"
    assert end["scores"] == [-1000, 27000, 25000, 49000]
    # Tenhou: (score rounded to thousands - 30) + uma 20/10/-10/-20, first takes the balance
    assert end["final"] == [-51.0, 7.0, -15.0, 59.0]


def south4(ruleset, dealer_wins, scores):
    """The last deal (South 4, seat 3 deals) after an East 1 dealt by seat 0."""
    if dealer_wins:
        lines = ("1 hs 3 S 1z", "2 d3 1z", "3 d0 9m", "4 d1 9p", "5 d2 1z", "8.5 c3 ron",
                 f"9 reveal 3 {H1} 8s")
    else:
        lines = ("1 hs 3 S 1z", "2 d3 1z", "3 d0 9m", "4 d1 9p", "5 d2 1z", "6 d3 8s",
                 "6.5 c1 ron", f"10 reveal 1 {H1} 8s")
    return play(ruleset, *lines, scores=scores)


def test_the_last_deal_ends_the_game_when_someone_has_30000():
    rulings = south4("tenhou", False, [20000, 33000, 25000, 22000])
    assert rulings[-1]["type"] == "game_end"
    assert rulings[-1]["scores"] == [20000, 35000, 25000, 20000]
    # nobody at 30,000 after the last deal: Tenhou goes on into the West round
    rulings = south4("tenhou", False, [26000, 26000, 24000, 24000])
    assert of(rulings, "game_end") == []
    # EMA has no extension: the last deal passed, the game is over
    rulings = south4("ema2012", False, [30000, 30000, 30000, 30000])
    assert rulings[-1]["type"] == "game_end"
    # 32000 first (+2 +15); seats 0 and 2 tie at 30000 and share 2nd and 3rd uma (0)
    assert rulings[-1]["scores"] == [30000, 32000, 30000, 28000]
    assert rulings[-1]["final"] == [0.0, 17.0, 0.0, -17.0]


def test_the_last_dealer_alone_on_top_stops_on_tenhou():
    rulings = south4("tenhou", True, [24000, 24000, 22000, 30000])
    assert rulings[-1]["type"] == "game_end"
    rulings = south4("tenhou", True, [34000, 24000, 22000, 20000])  # not on top: goes on
    assert of(rulings, "game_end") == []
    rulings = south4("ema2012", True, [24000, 24000, 22000, 50000])  # EMA: goes on
    assert of(rulings, "game_end") == []


def test_end_game_on_time_gives_the_sticks_on_the_table_to_first_on_tenhou():
    rulings = play("tenhou", "1 d0 3p r", "2 d1 1z", "3 ref end_game time limit",
                   scores=[30000, 25000, 25000, 20000])
    end = rulings[-1]
    assert end["type"] == "game_end"
    assert end["scores"] == [30000, 25000, 25000, 20000]  # 29000 + the stick, still first
    # ties rank by seat order from the first dealer: seat 1 second, seat 2 third
    assert end["final"] == [40.0, 5.0, -15.0, -30.0]
    # EMA: the stick is lost
    rulings = play("ema2012", "1 d0 3p r", "2 d1 1z", "3 ref end_game time limit")
    assert rulings[-1]["scores"] == [29000, 30000, 30000, 30000]


# -- riichi sticks at the end of the game ------------------------------------------------------

def last_deal_draw(ruleset, tenpai, then=()):
    """South 4 (seat 3 deals) with a riichi stick on the table from before, drawn with
    ``tenpai`` showing, then the events ``then``."""
    events = script(f"0 gs {ruleset}", "0 hs 0", "1 hs 3 S 1z", f"75 tenpai {tenpai}", *then)
    events[0]["scores"] = [20000, 26000, 22000, 31000]   # + 1 stick on the table: 100,000
    events[2]["riichi_sticks"] = 1
    for ev in events[3:]:
        if ev["type"] == "hand_start":
            ev["honba"], ev["riichi_sticks"] = 1, 1
    draw = filler(70, 3, 2.0, tiles="2m3m4m6p")  # no terminal: nobody has nagashi mangan
    ref = Referee()
    out = []
    for ev in sorted(events + draw, key=lambda e: e["t"]):
        out += ref.feed(ev)
    return out + ref.finish()


def test_a_last_dealer_kept_by_tenpai_plays_on_and_the_stick_is_paid_once_on_tenhou():
    # Tenhou stops the game for the last dealer's win on top (agari-yame), not for its tenpai:
    # the stick stays on the table for the next hand, and its winner alone takes it
    rulings = last_deal_draw("tenhou", "3", then=(
        "80 hs 3 S 1z", "81 d3 8s", "81.5 c1 ron", f"85 reveal 1 {H1} 8s"))
    draw_end, win_end = of(rulings, "hand_end")
    assert draw_end["scores"] == [19000, 25000, 21000, 34000]
    assert draw_end["next"] == {"dealer": 3, "honba": 1, "riichi_sticks": 1}
    (win,) = of(rulings, "win")
    assert win["payments"] == [0, 3300, 0, -2300]   # 2000 + 300 honba, the stick: 1000
    assert win_end["scores"] == [19000, 28300, 21000, 31700]
    assert sum(win_end["scores"]) == 100000
    (end,) = of(rulings, "game_end")                 # the deal passed with 31,700 on top
    assert rulings[-1] is end and end["scores"] == win_end["scores"]


def test_a_last_dealer_kept_by_a_win_on_top_still_stops_on_tenhou():
    # the near miss: the same last dealer winning (not tenpai) ends the game at once
    rulings = south4("tenhou", True, [24000, 24000, 22000, 30000])
    assert [r["type"] for r in rulings[-2:]] == ["hand_end", "game_end"]


def test_a_table_playing_on_after_the_game_end_takes_the_leftover_stick_back():
    # M.League ends after the last deal; the leftover stick goes to first place. If the table
    # deals again anyway, that stick is back on the table (the hand_start says so): the next
    # winner takes it and first place does not keep it too
    rulings = last_deal_draw("mleague", "1", then=(
        "80 hs 0 W 1z", "81 d0 8s", "81.5 c1 ron", f"85 reveal 1 {H1} 8s"))
    first_end, second_end = of(rulings, "game_end")
    assert first_end["scores"] == [19000, 29000, 21000, 31000]   # 30,000 + the stick
    hand_ends = of(rulings, "hand_end")
    assert hand_ends[-1]["scores"] == [16700, 32300, 21000, 30000]
    assert sum(hand_ends[-1]["scores"]) == 100000
    assert second_end["scores"] == hand_ends[-1]["scores"]


def test_the_leftover_stick_at_a_real_game_end_goes_to_first_once():
    # the near miss: the game ends and nothing follows: first place keeps the stick
    rulings = last_deal_draw("mleague", "1")
    (end,) = of(rulings, "game_end")
    assert end["scores"] == [19000, 29000, 21000, 31000] and sum(end["scores"]) == 100000


def test_tenhou_final_points_round_a_negative_half_away_from_zero():
    # a phoenix-room game (dnovikoff/tenhou test data bug3.xml) ended with seat 3 busted at
    # -7,500: Tenhou gave it -58 (-8 thousand - 30 - 20 uma); 19,500 rounds to 20 as before
    rs = get_ruleset("tenhou")
    assert final_points([26900, 29200, 51400, -7500], rs) == [-13.0, 9.0, 62.0, -58.0]
    assert final_points([19500, 30500, 25000, 25000], rs)[0] == -30.0


def test_a_game_a_referee_ended_stays_ended_when_a_hand_is_dealt():
    events = script("0 gs tenhou", "0 hs 0", "1 d0 3p r", "2 d1 1z",
                    "3 ref end_game time limit", "9 hs 1")
    events[0]["scores"] = [30000, 25000, 25000, 20000]
    ref = Referee()
    rulings = [r for ev in events for r in ref.feed(ev)]
    (end,) = of(rulings, "game_end")
    assert end["scores"] == [30000, 25000, 25000, 20000]  # 29,000 + the stick, first
    # a deal after it does not withdraw it (a game the ruleset ended would be: see above)
    snap = ref.snapshot()
    assert snap["game_over"] is True and snap["scores"] == end["scores"]
