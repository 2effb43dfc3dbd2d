"""Furiten, judged when a ron is revealed, on the revealed hand's waits: a wait among the
winner's own discards (called ones too), a wait that passed since the winner's last discard
(temporary), a wait that passed after the winner's riichi. A tsumo is never furiten.

The hand used: 234m 567m 345p 67s 55s, waiting on 5s and 8s."""
import pytest

from referee.core import Referee
from referee.simulate import script

H = "234m567m345p678s55s"


def play(ruleset, *lines):
    ref = Referee()
    out = []
    for ev in script(f"0 gs {ruleset}", "0 hs 0 E 1z", *lines):
        out += ref.feed(ev)
    return out + ref.finish()


def violations(rulings):
    return [r for r in rulings if r["type"] == "violation"]


def wins(rulings):
    return [r for r in rulings if r["type"] == "win"]


def assert_furiten(rulings, seat, phrase):
    v = violations(rulings)
    assert [(x["kind"], x["seat"], x["penalty"]) for x in v] == [("furiten_ron", seat, "chombo")]
    assert phrase in v[0]["text"]
    assert wins(rulings) == []
    end = [r for r in rulings if r["type"] == "hand_end"][0]
    assert (end["result"], end["reason"]) == ("abortive", "chombo")
    return end


def test_a_wait_in_the_winners_own_discards():
    rulings = play("ema2012", "1 d0 1z", "2 d1 5s", "3 d2 1z", "4 d3 1z", "5 d0 9p", "6 d1 9m",
                   "7 d2 8s", "7.5 c1 ron", f"11 reveal 1 {H} 8s")
    end = assert_furiten(rulings, 1, "discarded itself")
    # EMA: 20,000 from the offender after uma (a deduction on the penalty ledger, not a
    # change of the table's scores), the hand replayed with the same dealer and counters
    assert end["scores"] == [30000, 30000, 30000, 30000]
    assert violations(rulings)[0]["points"] == 20000
    assert end["next"] == {"dealer": 0, "honba": 0, "riichi_sticks": 0}


def test_a_discard_called_away_still_makes_furiten():
    rulings = play("ema2012", "1 d0 1z", "2 d1 8s", "2.5 c2 pon", "5.5 m2 pon 888s 8s@1",
                   "6.5 d2 9p", "7.5 d3 1z", "8.5 d0 5s", "9 c1 ron",
                   "12.5 reveal 1 234m567m345p567s55s 5s")
    assert_furiten(rulings, 1, "8s, which it discarded itself")


def test_temporary_furiten_until_the_winners_next_discard():
    # 5s passes (seat 3's discard) while seat 1 waits on it; 8s comes before seat 1 discards
    rulings = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 5s", "5 d0 8s",
                   "5.5 c1 ron", f"9 reveal 1 {H} 8s")
    assert_furiten(rulings, 1, "temporary")
    # once seat 1 has discarded again, the ron stands
    rulings = play("ema2012", "1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 5s", "5 d0 9p",
                   "6 d1 9s", "7 d2 8s", "7.5 c1 ron", f"11 reveal 1 {H} 8s")
    assert violations(rulings) == [] and wins(rulings)[0]["points"] == 2000


def test_riichi_furiten_lasts_the_hand():
    lines = ["1 d0 1z", "2 d1 9m r", "3 d2 1z", "4 d3 5s", "5 d0 9p", "6 d1 9s", "7 d2 8s",
             "7.5 c1 ron", f"11 reveal 1 {H} 8s"]
    assert_furiten(play("ema2012", *lines), 1, "after its riichi")
    # the same play without riichi: seat 1's discard at 6 ended the temporary furiten
    lines[1] = "2 d1 9m"
    rulings = play("ema2012", *lines)
    assert violations(rulings) == [] and wins(rulings)[0]["from"] == 2


@pytest.mark.parametrize("passed", ["4 d3 5s", "2 d1 5s"])
def test_a_tsumo_is_never_furiten(passed):
    lines = ["1 d0 1z", "2 d1 9m", "3 d2 1z", "4 d3 1z", "5 d0 9p", "8.5 c1 ron",
             f"9 reveal 1 {H} 8s"]
    lines[1 if passed.startswith("2") else 3] = passed
    rulings = play("ema2012", *lines)
    assert violations(rulings) == []
    assert wins(rulings)[0]["from"] is None


def test_tiles_that_are_no_wait_do_not_matter():
    # 6s and 7s are in the hand's shape, not waits: discarding them is no furiten
    rulings = play("ema2012", "1 d0 1z", "2 d1 7s", "3 d2 6s", "4 d3 1z", "5 d0 8s",
                   "5.5 c1 ron", f"9 reveal 1 {H} 8s")
    assert violations(rulings) == [] and wins(rulings)[0]["points"] == 2000


def test_furiten_on_tenhou_costs_a_mangan_chombo():
    rulings = play("tenhou", "1 d0 1z", "2 d1 5s", "3 d2 1z", "4 d3 2z", "5 d0 9p", "6 d1 9m",
                   "7 d2 8s", "7.5 c1 ron", f"11 reveal 1 {H} 8s")
    end = assert_furiten(rulings, 1, "discarded itself")
    assert end["changes"] == [4000, -8000, 2000, 2000]
    assert end["scores"] == [29000, 17000, 27000, 27000]
